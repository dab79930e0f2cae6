import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Database, QueryOptions } from '../db/database.js';
import type { CouponRow, CouponTerms } from '../repositories/coupons.js';
import { findQuote, type QuoteItemRow, type QuoteRow } from '../repositories/quotes.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { clientOfNewQuote, draftQuote } from '../testing/quote-fixtures.js';
import { QuoteWriter } from './quote-writer.js';

let t: TestContext;
let clientId: string;
let laptopId: string;
let couponId: string;
/** BIENVENIDA10's values, which a quote with it is priced with. */
let couponTerms: CouponTerms;
beforeAll(async () => {
  t = await createTestContext();
  laptopId = t.seed.products.find((p) => p.sku === 'LAP-14')!.id;
  clientId = await clientOfNewQuote(t, t.seed.keys.sk_test_write, {
    empresa: 'Grupo Escritor SA',
    email: 'compras@escritor.example',
  });
  const [coupon] = await t.db.query<CouponRow>(
    "SELECT id, tipo, valor::float8 AS valor, moneda FROM coupons WHERE code = 'BIENVENIDA10' AND mode = 'test'",
  );
  couponId = coupon!.id;
  couponTerms = { tipo: coupon!.tipo, valor: coupon!.valor, moneda: coupon!.moneda };
});
afterAll(() => t.close());

/** The database, counting the statements sent through it, and the most under way at once. */
function counting(db: Database): { db: Database; statements: () => number; mostAtOnce: () => number } {
  let statements = 0;
  let underWay = 0;
  let most = 0;
  const wrapped: Database = {
    ...db,
    query: async <T>(sql: string, params?: readonly unknown[], options?: QueryOptions) => {
      statements++;
      most = Math.max(most, ++underWay);
      try {
        return await db.query<T>(sql, params, options);
      } finally {
        underWay--;
      }
    },
  };
  return { db: wrapped, statements: () => statements, mostAtOnce: () => most };
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
          coupon: i % 2 === 0 ? couponTerms : null,
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

  it.runIf(inject('testDb') === 'postgres')(
    'on PostgreSQL, sends a second statement behind the one under way once 5 creations wait: every quote once, folios without gap in arrival order, coupon uses exact',
    async () => {
      const usesBefore = await couponUses();
      /**
       * Creations called at once, through a writer of their own: by the batch statement even the
       * first (as the widget's are), or the first on its own and the others after it.
       */
      const writeAtOnce = async (
        name: string,
        n: number,
        withCoupon: (i: number) => boolean,
        batched = true,
      ) => {
        const { db, statements, mostAtOnce } = counting(t.db);
        const writer = new QuoteWriter(db);
        const rows = await Promise.all(
          Array.from({ length: n }, (_, i) => {
            const coupon = withCoupon(i) ? couponTerms : null;
            const notas = `${name}-${i}`;
            return batched
              ? writer
                  .insertFromMemory(
                    { quote: quote(notas, coupon !== null), items: lines(), eventData: {}, coupon },
                    new Date(),
                  )
                  .then((outcome) => outcome.row)
              : writer.insert(quote(notas, coupon !== null), lines(), {
                  now: new Date(),
                  eventData: {},
                  coupon,
                  couponLimited: false,
                });
          }),
        );
        return { rows, counted: [statements(), mostAtOnce()] };
      };
      // The first under way alone, four wait for it: still one statement at a time.
      const few = await writeAtOnce('pocos', 5, (i) => i % 2 === 0);
      expect(few.counted).toEqual([2, 1]);
      // The fifth to wait sends its statement at once, behind the first, on its connection; the
      // other two wait for the first to end.
      const many = await writeAtOnce('muchos', 8, (i) => i % 3 === 0);
      expect(many.counted).toEqual([3, 2]);
      // A creation written on its own (by insertQuote, on another connection) has nothing sent
      // behind it: the 40 that wait for it are written together after it.
      const behindOne = await writeAtOnce('tras-uno', 41, (i) => i % 4 === 0, false);
      expect(behindOne.counted).toEqual([2, 1]);
      // One connection runs a lane's statements in the order sent: the folios follow the calls.
      const rows = [...few.rows, ...many.rows, ...behindOne.rows];
      const folios = rows.map(folioNumber);
      expect(folios).toEqual(folios.map((_, i) => folios[0]! + i));
      for (const row of rows) {
        expect(row).toEqual(await findQuote(t.db, { orgId: t.seed.org.id, mode: 'test' }, row!.id));
      }
      expect(await couponUses()).toBe(usesBefore + 3 + 3 + 11);
    },
  );

  it.runIf(inject('testDb') === 'pglite')(
    'on PGlite, waits for as many creations as the last statement answered before writing the next, so the first back is not written alone',
    async () => {
      const { db, statements } = counting(t.db);
      const writer = new QuoteWriter(db);
      const write = (notas: string) =>
        writer
          .insertFromMemory({ quote: quote(notas), items: lines(), eventData: {}, coupon: null }, new Date())
          .then((outcome) => outcome.row);
      const turns = async (n: number) => {
        for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
      };
      // The first alone, the four that arrive meanwhile together: the last statement answered four.
      const first = await Promise.all(
        ['vuelta-0', 'vuelta-1', 'vuelta-2', 'vuelta-3', 'vuelta-4'].map(write),
      );
      expect(statements()).toBe(2);
      // Their clients come back one after another, three turns of the event loop apart: without
      // the wait, the first back would be written two turns after the last statement, alone.
      const again: Promise<QuoteRow | undefined>[] = [];
      for (let i = 0; i < 4; i++) {
        again.push(write(`vuelta-${5 + i}`));
        await turns(3);
      }
      const rows = [...first, ...(await Promise.all(again))];
      expect(statements()).toBe(3);
      const folios = rows.map(folioNumber);
      expect(folios).toEqual(folios.map((_, i) => folios[0]! + i));
      // Fewer than that come back: the next statement waits only a few milliseconds for the rest.
      const late = await write('vuelta-sola');
      expect(statements()).toBe(4);
      expect(folioNumber(late)).toBe(folios.at(-1)! + 1);
    },
  );

  it('leaves a quote whose coupon changed since it was read to be written on its own, which refuses it', async () => {
    const { db, statements } = counting(t.db);
    const writer = new QuoteWriter(db);
    const options = { now: new Date(), eventData: {}, coupon: null, couponLimited: false };
    await t.db.query('UPDATE coupons SET active = false WHERE id = $1', [couponId]);
    try {
      const usesBefore = await couponUses();
      const [first, a, withCoupon, b] = await Promise.all([
        writer.insert(quote('solo'), lines(), options),
        writer.insert(quote('a'), lines(), options),
        writer.insert(quote('cupon', true), lines(), { ...options, coupon: couponTerms }),
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
    const options = { now: new Date(), eventData: {}, coupon: null, couponLimited: false };
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

  it.runIf(inject('testDb') === 'pglite')(
    'on PGlite, lets the creations that arrive right after a batch statement join the next batch',
    async () => {
      // A PGlite statement blocks the thread: requests that came meanwhile are read on the next
      // turns of the event loop, here two creations one turn after the second statement ends.
      let statements = 0;
      let late: Promise<QuoteRow | undefined>[] = [];
      const options = { now: new Date(), eventData: {}, coupon: null, couponLimited: false };
      const db: Database = {
        ...t.db,
        query: async <T>(sql: string, params?: readonly unknown[]) => {
          const rows = await t.db.query<T>(sql, params);
          if (++statements === 2) {
            setImmediate(() => {
              late = ['tarde-1', 'tarde-2'].map((n) => writer.insert(quote(n), lines(), options));
            });
          }
          return rows;
        },
      };
      const writer = new QuoteWriter(db);
      // The first is written alone, the second in a batch statement; the two late ones together.
      const first = await Promise.all(
        ['pronto-1', 'pronto-2'].map((n) => writer.insert(quote(n), lines(), options)),
      );
      await new Promise((resolve) => setImmediate(resolve));
      const rows = [...first, ...(await Promise.all(late))];
      expect(late).toHaveLength(2);
      expect(statements).toBe(3);
      const folios = rows.map(folioNumber);
      expect(folios).toEqual(folios.map((_, i) => folios[0]! + i));
    },
  );

  it('writes quotes with a limited coupon, and quotes in a transaction, each on its own', async () => {
    const { db, statements } = counting(t.db);
    const writer = new QuoteWriter(db);
    const options = { now: new Date(), eventData: {}, coupon: null };
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

describe('QuoteWriter.insertFromMemory', () => {
  /** The versions (xmin) the client and the laptop have now, as a read would remember them. */
  const currentVersions = async () => {
    const [row] = await t.db.query<{ client: string; laptop: string }>(
      `SELECT (SELECT xmin::text FROM clients WHERE id = $1) AS client,
              (SELECT xmin::text FROM products WHERE id = $2) AS laptop`,
      [clientId, laptopId],
    );
    return { client: row!.client, products: new Map([[laptopId, row!.laptop]]) };
  };
  const counter = (bucket: string, allowed: number) => ({
    bucket,
    windowStart: 0,
    increment: true,
    allowed,
  });
  const stored = (notas: string) =>
    t.db.query('SELECT 1 FROM quotes WHERE notas = $1 AND org_id = $2', [notas, t.seed.org.id]);

  it('writes a quote alone in the batch statement, counting its counters there: one statement', async () => {
    const { db, statements } = counting(t.db);
    const writer = new QuoteWriter(db);
    const bucket = `memoria:${randomUUID()}`;
    const outcome = await writer.insertFromMemory(
      {
        quote: quote('memoria-sola', true),
        items: lines(),
        eventData: {},
        coupon: couponTerms,
        versions: await currentVersions(),
        counters: [counter(bucket, 5)],
      },
      new Date(),
    );
    expect(statements()).toBe(1);
    expect(outcome.counts).toEqual([1]);
    expect(outcome.row).toEqual(
      await findQuote(t.db, { orgId: t.seed.org.id, mode: 'test' }, outcome.row!.id),
    );
    const [count] = await t.db.query<{ count: number }>('SELECT count FROM rate_counters WHERE bucket = $1', [
      bucket,
    ]);
    expect(count!.count).toBe(1);
  });

  it('counts a window once per quote, in order, across and within batches, and leaves out the quotes over it', async () => {
    const writer = new QuoteWriter(t.db);
    const bucket = `memoria:${randomUUID()}`;
    const versions = await currentVersions();
    const usesBefore = await couponUses();
    const names = ['ventana-1', 'ventana-2', 'ventana-3', 'ventana-4'];
    // The first is written alone; the three that arrive meanwhile share one statement.
    const outcomes = await Promise.all(
      names.map((notas) =>
        writer.insertFromMemory(
          {
            quote: quote(notas, true),
            items: lines(),
            eventData: {},
            coupon: couponTerms,
            versions,
            counters: [counter(bucket, 2), { ...counter(`otro:${bucket}`, 9), increment: false }],
          },
          new Date(),
        ),
      ),
    );
    expect(outcomes.map((o) => o.counts)).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
      [4, 0],
    ]);
    expect(outcomes.map((o) => o.row !== undefined)).toEqual([true, true, false, false]);
    expect((await stored('ventana-3')).length + (await stored('ventana-4')).length).toBe(0);
    // Only the quotes written used the coupon.
    expect(await couponUses()).toBe(usesBefore + 2);
    const [count] = await t.db.query<{ count: number }>('SELECT count FROM rate_counters WHERE bucket = $1', [
      bucket,
    ]);
    expect(count!.count).toBe(4);
  });

  it('writes each quote of a transaction at once, in the transaction, never with others', async () => {
    const { db, statements } = counting(t.db);
    const writer = new QuoteWriter(db);
    const versions = await currentVersions();
    const names = ['tx-1', 'tx-2', 'tx-3'];
    await expect(
      t.db.transaction(async () => {
        const outcomes = await Promise.all(
          names.map((notas) =>
            writer.insertFromMemory(
              { quote: quote(notas), items: lines(), eventData: {}, coupon: null, versions, counters: [] },
              new Date(),
            ),
          ),
        );
        expect(outcomes.every((outcome) => outcome.row)).toBe(true);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(statements()).toBe(3);
    for (const notas of names) expect(await stored(notas)).toEqual([]);
  });

  it('leaves out a quote priced with a client, a product or coupon values that changed since, writing nothing for it', async () => {
    const writer = new QuoteWriter(t.db);
    const write = async (
      notas: string,
      versions: Awaited<ReturnType<typeof currentVersions>>,
      coupon = couponTerms,
    ) =>
      writer.insertFromMemory(
        { quote: quote(notas, true), items: lines(), eventData: {}, coupon, versions, counters: [] },
        new Date(),
      );
    const before = await currentVersions();
    const usesBefore = await couponUses();
    await t.db.query("UPDATE clients SET telefono = '555' WHERE id = $1", [clientId]);
    await t.db.query('UPDATE products SET precio_lista = precio_lista + 1 WHERE id = $1', [laptopId]);
    const stale = await write('cliente-cambiado', {
      ...before,
      products: (await currentVersions()).products,
    });
    expect(stale).toEqual({ row: undefined, counts: [] });
    const staleProduct = await write('producto-cambiado', {
      ...before,
      client: (await currentVersions()).client,
    });
    expect(staleProduct).toEqual({ row: undefined, counts: [] });
    const otherCoupon = await write('cupon-cambiado', await currentVersions(), { ...couponTerms, valor: 99 });
    expect(otherCoupon).toEqual({ row: undefined, counts: [] });
    for (const notas of ['cliente-cambiado', 'producto-cambiado', 'cupon-cambiado']) {
      expect(await stored(notas)).toEqual([]);
    }
    expect(await couponUses()).toBe(usesBefore);
    // With what the rows are now, the same quote is written.
    const fresh = await write('al-dia', await currentVersions());
    expect(fresh.row?.notas).toBe('al-dia');
    expect(await couponUses()).toBe(usesBefore + 1);
  });
});
