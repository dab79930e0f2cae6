import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/database.js';
import { findQuote, type QuoteItemRow, type QuoteRow } from '../repositories/quotes.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { clientOfNewQuote, draftQuote } from '../testing/quote-fixtures.js';
import { QuoteWriter } from './quote-writer.js';

let t: TestContext;
let clientId: string;
let laptopId: string;
let couponId: string;
beforeAll(async () => {
  t = await createTestContext();
  laptopId = t.seed.products.find((p) => p.sku === 'LAP-14')!.id;
  clientId = await clientOfNewQuote(t, t.seed.keys.sk_test_write, {
    empresa: 'Grupo Escritor SA',
    email: 'compras@escritor.example',
  });
  [{ id: couponId }] = (await t.db.query<{ id: string }>(
    "SELECT id FROM coupons WHERE code = 'BIENVENIDA10' AND mode = 'test'",
  )) as [{ id: string }];
});
afterAll(() => t.close());

/** The database, counting the statements sent through it. */
function counting(db: Database): { db: Database; statements: () => number } {
  let statements = 0;
  const wrapped: Database = {
    ...db,
    query: (sql, params) => {
      statements++;
      return db.query(sql, params);
    },
  };
  return { db: wrapped, statements: () => statements };
}

const quote = (notas: string, coupon = false) =>
  draftQuote({
    org_id: t.seed.org.id,
    cliente_id: clientId,
    cliente_nombre: 'Grupo Escritor SA',
    notas,
    cupon: coupon ? 'BIENVENIDA10' : null,
    coupon_id: coupon ? couponId : null,
    subtotal: coupon ? 24500 : 49000,
    descuento: coupon ? 2450 : 0,
    impuestos: coupon ? 3528 : 7840,
    total: coupon ? 25578 : 56840,
    created_by: `api:writer-${notas}`,
  });
const lines = (productoId = laptopId): QuoteItemRow[] => [
  {
    position: 0,
    descripcion: 'Laptop 14"',
    cantidad: 2,
    unidad: 'pieza',
    precio_unitario: 24500,
    precio_negociado: null,
    costo_unitario: null,
    producto_id: productoId,
    sku: 'LAP-14',
    tax_rate: 0.16,
    exemption_reason: null,
    clave_sat: null,
    clave_unidad_sat: null,
    importe: 49000,
    descuento: 0,
    impuesto: 7840,
  },
];
const folioNumber = (row: QuoteRow | undefined) => Number(row!.folio.slice(4));
const couponUses = async () =>
  (await t.db.query<{ uses: number }>('SELECT uses FROM coupons WHERE id = $1', [couponId]))[0]!.uses;

describe('QuoteWriter', () => {
  it('writes the creations that arrive during a write together: consecutive folios in arrival order, lines, events, coupon uses', async () => {
    const hook = await t.call('POST', '/api/v1/webhooks', {
      key: t.seed.keys.sk_test_write,
      body: { url: 'https://hooks.example/writer', eventos: ['quote.created'] },
    });
    expect(hook.status).toBe(200);
    const { db, statements } = counting(t.db);
    const writer = new QuoteWriter(db);
    const usesBefore = await couponUses();
    const names = Array.from({ length: 12 }, (_, i) => `lote-${i}`);
    // All called at once: the first is written alone, the eleven that arrive meanwhile together.
    const rows = await Promise.all(
      names.map((notas, i) =>
        writer.insert(quote(notas, i % 2 === 0), lines(), {
          now: new Date(),
          eventData: { total: 1, link_publico: 'https://secret.example/q/token' },
          couponLimited: false,
        }),
      ),
    );
    expect(statements()).toBe(2);
    const folios = rows.map(folioNumber);
    expect(folios).toEqual(folios.map((_, i) => folios[0]! + i));
    for (const row of rows) {
      expect(row).toEqual(await findQuote(t.db, { orgId: t.seed.org.id, mode: 'test' }, row!.id));
    }
    expect(await couponUses()).toBe(usesBefore + 6);
    const ids = rows.map((row) => row!.id);
    const items = await t.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM quote_items WHERE quote_id = ANY($1::uuid[])',
      [ids],
    );
    expect(items[0]!.n).toBe(12);
    const events = await t.db.query<{ object_id: string; actor: string; data: Record<string, unknown> }>(
      "SELECT object_id, actor, data FROM events WHERE type = 'quote.created' AND object_id = ANY($1::uuid[]) ORDER BY seq",
      [ids],
    );
    // In the quotes' order, each by its own key, with its id and folio and never the link's token.
    expect(events.map((e) => e.object_id)).toEqual(ids);
    expect(events.map((e) => e.actor)).toEqual(names.map((n) => `api:writer-${n}`));
    expect(events.map((e) => e.data)).toEqual(
      rows.map((row) => ({ total: 1, id: row!.id, folio: row!.folio })),
    );
    // And each event its delivery to the subscribed endpoint, queued by the same statement.
    const deliveries = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_jobs job JOIN events e ON e.id = job.event_id
       WHERE e.object_id = ANY($1::uuid[])`,
      [ids],
    );
    expect(deliveries[0]!.n).toBe(12);
  });

  it('leaves a quote whose coupon changed since it was read to be written on its own, which refuses it', async () => {
    const { db, statements } = counting(t.db);
    const writer = new QuoteWriter(db);
    const options = { now: new Date(), eventData: {}, couponLimited: false };
    await t.db.query('UPDATE coupons SET active = false WHERE id = $1', [couponId]);
    try {
      const usesBefore = await couponUses();
      const [first, a, withCoupon, b] = await Promise.all([
        writer.insert(quote('solo'), lines(), options),
        writer.insert(quote('a'), lines(), options),
        writer.insert(quote('cupon', true), lines(), options),
        writer.insert(quote('b'), lines(), options),
      ]);
      // Alone, then the batch of three, then the one left out on its own.
      expect(statements()).toBe(3);
      expect(withCoupon).toBeUndefined();
      expect([first, a, b].map(folioNumber)).toEqual([0, 1, 2].map((i) => folioNumber(first) + i));
      expect(await couponUses()).toBe(usesBefore);
      expect(
        await t.db.query("SELECT 1 FROM quotes WHERE notas = 'cupon' AND org_id = $1", [t.seed.org.id]),
      ).toEqual([]);
    } finally {
      await t.db.query('UPDATE coupons SET active = true WHERE id = $1', [couponId]);
    }
  });

  it('writes every quote of a failing batch again on its own, so only the bad one fails and it writes nothing', async () => {
    const writer = new QuoteWriter(t.db);
    const options = { now: new Date(), eventData: {}, couponLimited: false };
    const quotes = ['ok-1', 'malo', 'ok-2', 'ok-3'].map((notas) => quote(notas));
    const results = await Promise.allSettled(
      // The second line names a product that does not exist: its batch's statement fails.
      quotes.map((q, i) => writer.insert(q, lines(i === 1 ? randomUUID() : laptopId), options)),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(((results[1] as PromiseRejectedResult).reason as { code?: string }).code).toBe('23503');
    const stored = await t.db.query<{ notas: string }>(
      'SELECT notas FROM quotes WHERE token = ANY($1) ORDER BY seq',
      [quotes.map((q) => q.token)],
    );
    expect(stored.map((row) => row.notas)).toEqual(['ok-1', 'ok-2', 'ok-3']);
  });

  it('writes quotes with a limited coupon, and quotes in a transaction, each on its own', async () => {
    const { db, statements } = counting(t.db);
    const writer = new QuoteWriter(db);
    const options = { now: new Date(), eventData: {} };
    await Promise.all(
      ['l1', 'l2', 'l3'].map((n) => writer.insert(quote(n), lines(), { ...options, couponLimited: true })),
    );
    expect(statements()).toBe(3);
    const rows = await t.db.transaction(async () =>
      Promise.all(
        ['t1', 't2', 't3'].map((n) => writer.insert(quote(n), lines(), { ...options, couponLimited: false })),
      ),
    );
    expect(rows.every((row) => row !== undefined)).toBe(true);
    expect(statements()).toBe(6);
  });
});
