import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, openTestDatabase, type TestContext } from '../testing/harness.js';
import { type DemoCatalog, readCatalog, seedDemo } from './seed.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const demoCatalog = () => readCatalog(join(import.meta.dirname, '../../../../demo/catalog.json'));

describe('seedDemo', () => {
  it('refuses a bad origin before writing anything', async () => {
    const catalog = demoCatalog();
    const keys = async () => (await t.db.query('SELECT id FROM api_keys')).length;
    const before = await keys();
    await expect(seedDemo(t.db, catalog, { origins: ['http://ok.example', 'not-a-url'] })).rejects.toThrow(
      /not-a-url/,
    );
    expect(await keys()).toBe(before);
  });

  it("refuses, before writing anything, a catalog amount with more decimals than its currency's", async () => {
    const { db, cleanup } = await openTestDatabase();
    try {
      const cases: [(catalog: DemoCatalog) => void, string][] = [
        [
          (c) => {
            c.coupons.find((k) => k.code === 'PROMO500')!.valor = 0.015;
          },
          'coupons[1].valor: at most 2 decimals in MXN',
        ],
        // Without a currency, an amount coupon applies in each of the organization's.
        [
          (c) => {
            c.coupons.push({
              code: 'SINMONEDA',
              tipo: 'monto',
              valor: 1.005,
              max_uses: null,
              expires_at: null,
              active: true,
            });
          },
          'coupons[6].valor: at most 2 decimals in MXN',
        ],
        [
          (c) => {
            c.products[0]!.precio_lista = 100.555;
          },
          'products[0].precio_lista: at most 2 decimals in MXN',
        ],
      ];
      for (const [change, message] of cases) {
        const catalog = demoCatalog();
        change(catalog);
        await expect(seedDemo(db, catalog, { origins: [] })).rejects.toThrow(message);
        expect((await db.query('SELECT id FROM orgs')).length).toBe(0);
        expect((await db.query('SELECT id FROM coupons')).length).toBe(0);
      }
      // The demo catalog itself passes.
      await seedDemo(db, demoCatalog(), { origins: [] });
      expect((await db.query("SELECT valor FROM coupons WHERE code = 'PROMO500'")).length).toBe(2);
    } finally {
      await cleanup();
    }
  });
});

describe('seedDemo products', () => {
  it('gives each product its id in test mode (id) and in live mode (live_id), each found with a key of its mode', async () => {
    const get = (key: string, id: string) => t.call('GET', `/api/v1/productos/${id}`, { key });
    const { keys, products } = t.seed;
    expect(products.length).toBeGreaterThan(0);
    for (const product of products) {
      expect(product.live_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(product.live_id).not.toBe(product.id);
      const live = await get(keys.sk_live_write, product.live_id);
      expect(live.status, product.sku).toBe(200);
      expect(((await live.json()) as { data: { sku: string } }).data.sku).toBe(product.sku);
      const test = await get(keys.sk_test_write, product.id);
      expect(((await test.json()) as { data: { sku: string } }).data.sku).toBe(product.sku);
      // Each mode sees only its own.
      expect((await get(keys.sk_test_write, product.live_id)).status).toBe(404);
      expect((await get(keys.sk_live_write, product.id)).status).toBe(404);
    }
    // A second run prints the same ids.
    const again = await seedDemo(t.db, demoCatalog(), { origins: [] });
    expect(again.products).toEqual(products);
  });
});
