import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

type Mode = 'test' | 'live';

/** Per-mode rows of the demo organization a reset must delete in test mode and keep in live mode. */
const PER_MODE_TABLES = ['quotes', 'clients', 'events', 'email_outbox'] as const;

/**
 * Everything of one mode a reset may touch, as comparable rows: the ids of each per-mode table,
 * coupon use counts, idempotency records of that mode's keys and the folio counter.
 */
async function snapshot(mode: Mode): Promise<Record<string, unknown[]>> {
  const org = t.seed.org.id;
  const rows: Record<string, unknown[]> = {};
  for (const table of PER_MODE_TABLES) {
    rows[table] = await t.db.query(`SELECT id FROM ${table} WHERE org_id = $1 AND mode = $2 ORDER BY id`, [
      org,
      mode,
    ]);
  }
  rows.coupon_uses = await t.db.query(
    'SELECT code, uses FROM coupons WHERE org_id = $1 AND mode = $2 ORDER BY code',
    [org, mode],
  );
  rows.idempotency_keys = await t.db.query(
    `SELECT i.key_id, i.idempotency_key, i.response_body FROM idempotency_keys i
     JOIN api_keys k ON k.id = i.key_id WHERE k.org_id = $1 AND k.mode = $2 ORDER BY i.idempotency_key`,
    [org, mode],
  );
  rows.folio_counters = await t.db.query('SELECT last FROM folio_counters WHERE org_id = $1 AND mode = $2', [
    org,
    mode,
  ]);
  return rows;
}

/** A sent quote with a coupon and a client e-mail, created under an idempotency key. */
async function createSentQuote(key: string, idempotencyKey: string): Promise<Response> {
  return t.call('POST', '/api/v1/cotizaciones', {
    key,
    headers: { 'idempotency-key': idempotencyKey },
    body: {
      items: [{ descripcion: 'Servicio', cantidad: 2, precio_unitario: 1000 }],
      cliente: { empresa: `Reset ${idempotencyKey}`, email: 'compras@reset.example' },
      cupon: 'BIENVENIDA10',
      send: true,
    },
  });
}

const folioOf = async (response: Response) => {
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { folio: string } }).data.folio;
};

describe('POST /api/test-mode/reset', () => {
  it('deletes every test-mode record, restarts test folios and coupon uses, and keeps every live row', async () => {
    const { sk_test_write: testKey, sk_live_write: liveKey } = t.seed.keys;
    const seededTestCoupons = (await snapshot('test')).coupon_uses;
    for (const [key, prefix] of [
      [testKey, 'test'],
      [liveKey, 'live'],
    ] as const) {
      for (const n of [1, 2])
        expect(await folioOf(await createSentQuote(key, `${prefix}-${n}`))).toMatch(/^COT-/);
    }
    const before = { test: await snapshot('test'), live: await snapshot('live') };
    // Both modes hold rows of every kind, so the reset has something to delete and to keep.
    for (const mode of ['test', 'live'] as const) {
      for (const table of [...PER_MODE_TABLES, 'idempotency_keys', 'folio_counters']) {
        expect(before[mode][table]!.length, `${mode} ${table}`).toBeGreaterThan(0);
      }
    }
    expect(before.test.coupon_uses).not.toEqual(seededTestCoupons);

    const res = await t.call('POST', '/api/test-mode/reset', { key: testKey, body: {} });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { reset: boolean } }).data.reset).toBe(true);

    const after = { test: await snapshot('test'), live: await snapshot('live') };
    expect(after.live).toEqual(before.live);
    expect(after.test).toEqual({
      quotes: [],
      clients: [],
      events: [],
      email_outbox: [],
      coupon_uses: seededTestCoupons,
      idempotency_keys: [],
      folio_counters: [],
    });
    const products = await t.db.query(`SELECT 1 FROM products WHERE org_id = $1 AND mode = 'test'`, [
      t.seed.org.id,
    ]);
    expect(products.length).toBe(t.seed.products.length);

    // The same idempotency key runs again in test mode and still replays in live mode; the test
    // folio starts over while the live one goes on.
    expect(await folioOf(await createSentQuote(testKey, 'test-1'))).toBe('COT-000001');
    const replayed = await createSentQuote(liveKey, 'live-1');
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await folioOf(await createSentQuote(liveKey, 'live-3'))).toBe('COT-000003');
  });

  it('replays a reset sent under an Idempotency-Key instead of wiping again', async () => {
    const key = t.seed.keys.sk_test_write;
    const reset = () =>
      t.call('POST', '/api/test-mode/reset', { key, body: {}, headers: { 'idempotency-key': 'reset-once' } });
    const first = await reset();
    expect(first.status).toBe(200);
    const folio = await folioOf(await createSentQuote(key, 'after-reset'));
    const again = await reset();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(await first.text());
    // The quote made in between is still there.
    const quotes = await t.db.query(
      `SELECT 1 FROM quotes WHERE org_id = $1 AND mode = 'test' AND folio = $2`,
      [t.seed.org.id, folio],
    );
    expect(quotes).toHaveLength(1);
  });

  it('answers 409 for a live key and touches nothing', async () => {
    const before = await snapshot('live');
    await expectError(
      await t.call('POST', '/api/test-mode/reset', { key: t.seed.keys.sk_live_write, body: {} }),
      409,
      'invalid_state',
    );
    expect(await snapshot('live')).toEqual(before);
  });
});
