import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

describe('POST /api/test-mode/reset', () => {
  it('wipes the sandbox with a test key and keeps the catalog', async () => {
    const res = await t.call('POST', '/api/test-mode/reset', { key: t.seed.keys.sk_test_write, body: {} });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { reset: boolean } }).data.reset).toBe(true);
    const products = await t.db.query(`SELECT 1 FROM products WHERE org_id = $1 AND mode = 'test'`, [
      t.seed.org.id,
    ]);
    expect(products.length).toBe(t.seed.products.length);
    // No quote is listed afterwards, and the next one is counted from zero again.
    const list = async () =>
      (await (await t.call('GET', '/api/v1/cotizaciones', { key: t.seed.keys.sk_test_write })).json()) as {
        meta: { total: number };
      };
    expect((await list()).meta.total).toBe(0);
    const created = await t.call('POST', '/api/v1/cotizaciones', {
      key: t.seed.keys.sk_test_write,
      body: {
        items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 100 }],
        cliente: { empresa: 'Nueva SA' },
      },
    });
    expect(created.status).toBe(200);
    expect((await list()).meta.total).toBe(1);
  });

  it('answers 409 for a live key and touches nothing', async () => {
    await expectError(
      await t.call('POST', '/api/test-mode/reset', { key: t.seed.keys.sk_live_write, body: {} }),
      409,
      'invalid_state',
    );
  });
});
