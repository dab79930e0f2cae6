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
