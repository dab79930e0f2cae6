import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../db/database.js';
import { createOrg } from '../services/orgs.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { clientOfNewQuote, draftQuote } from '../testing/quote-fixtures.js';
import { clientSql, listClients } from './clients.js';
import { readCollections } from './collections.js';
import { couponByCodeSql } from './coupons.js';
import { listEvents } from './events.js';
import { listProducts, productsByIdsSql } from './products.js';
import { type BatchedQuote, insertQuoteBatch } from './quote-batch.js';
import { findQuote, listQuotes, type NewQuote } from './quotes.js';

const BURST = 3000;

let t: TestContext;
const scope = () => ({ orgId: t.seed.org.id, mode: 'live' });
let catalogOrg: string;
const catalog = () => ({ orgId: catalogOrg, mode: 'test' });
beforeAll(async () => {
  t = await createTestContext();
  // Statistics taken while every quote and event was in test mode, then a burst of live quotes
  // they know nothing of: a merchant's first day live, or any burst between two autovacuum runs.
  await t.db.query('ANALYZE quotes');
  await t.db.query('ANALYZE events');
  await t.db.query('ANALYZE clients');
  await t.db.query('ANALYZE products');
  const cliente_id = await clientOfNewQuote(t, t.seed.keys.sk_live_write, {
    empresa: 'Ráfaga SA',
    email: 'compras@rafaga.example',
  });
  const burst = Array.from({ length: BURST }, (_, i) => ({
    id: randomUUID(),
    quote: draftQuote({
      org_id: t.seed.org.id,
      mode: 'live',
      cliente_id,
      cliente_nombre: 'Ráfaga SA',
      notas: `#${i}`,
    }),
    items: [],
    eventData: {},
    coupon: null,
  }));
  const written = await insertQuoteBatch(t.db, scope(), burst, new Date());
  expect([...written.values()].filter((outcome) => outcome.created)).toHaveLength(BURST);
  // And as many new clients, one a second apart, all older than the first one: on a busy machine
  // the burst above can take longer than a second.
  await t.db.query(
    `INSERT INTO clients (org_id, mode, empresa, email, created_at)
     SELECT $1, 'live', 'Cliente ' || i, 'c' || i || '@rafaga.example',
       (SELECT created_at FROM clients WHERE id = $3) - make_interval(secs => i)
     FROM generate_series(1, $2::int) i`,
    [t.seed.org.id, BURST, cliente_id],
  );
  // And a new merchant's catalog of as many products, imported at once.
  catalogOrg = (await createOrg(t.db, { nombre: 'Catálogo Nuevo', plan: 'developer' })).id;
  await t.db.query(
    `INSERT INTO products (org_id, mode, sku, nombre, precio_lista, moneda, created_at)
     SELECT $1, 'test', 'SKU-' || i, 'Producto ' || i, 100, 'MXN', now() + make_interval(secs => i)
     FROM generate_series(1, $2::int) i`,
    [catalogOrg, BURST],
  );
  // And as many single-use coupon codes, a campaign's.
  await t.db.query(
    `INSERT INTO coupons (org_id, mode, code, tipo, valor, max_uses)
     SELECT $1, 'test', 'UNICO-' || i, 'porcentaje', 5, 1 FROM generate_series(1, $2::int) i`,
    [catalogOrg, BURST],
  );
});
afterAll(() => t.close());

/** The plan of the first statement `read` sends, as the database would run it now. */
async function planOf(read: (db: Queryable) => Promise<unknown>): Promise<string> {
  let first: { sql: string; params: readonly unknown[] } | undefined;
  await read({
    query: (sql, params = []) => {
      first ??= { sql, params };
      return t.db.query(sql, params);
    },
  });
  const rows = await t.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${first!.sql}`, first!.params);
  return rows.map((row) => row['QUERY PLAN']).join('\n');
}

describe('the newest-first lists', () => {
  it('are the only indexes of quotes, events, clients and products that begin with the organization and mode', async () => {
    // Another one would look as good to a planner with stale statistics, which then reads every
    // row of the organization through it and sorts them (see migration 008).
    const leading = await t.db.query<{ table: string; index: string }>(
      `SELECT i.indrelid::regclass::text AS table, i.indexrelid::regclass::text AS index
       FROM pg_index i
       WHERE i.indrelid IN ('quotes'::regclass, 'events'::regclass, 'clients'::regclass, 'products'::regclass)
         AND (SELECT array_agg(attname::text ORDER BY k.n)
              FROM unnest(i.indkey[0:1]) WITH ORDINALITY AS k(attnum, n)
              JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum) = ARRAY['org_id', 'mode']
       ORDER BY 1`,
    );
    expect(leading).toEqual([
      { table: 'clients', index: 'clients_list' },
      { table: 'events', index: 'events_list' },
      { table: 'products', index: 'products_list' },
      { table: 'quotes', index: 'quotes_list' },
    ]);
  });

  it('give a page of quotes through quotes_list, after a burst the statistics do not know of, newest first without sorting', async () => {
    const plan = await planOf((db) => listQuotes(db, scope(), { limit: 20, offset: 0 }));
    expect(plan).toContain('quotes_list');
    expect(plan).not.toMatch(/Sort/);
    const page = await listQuotes(t.db, scope(), { limit: 2, offset: 0 });
    expect(page.rows.map((row) => row.folio)).toEqual([`COT-00${BURST + 1}`, `COT-00${BURST}`]);
  });

  it('give a page of events through events_list, after the same burst, newest first without sorting', async () => {
    const plan = await planOf((db) => listEvents(db, { ...scope(), limit: 20 }));
    expect(plan).toContain('events_list');
    expect(plan).not.toMatch(/Sort/);
  });

  it('give a page of clients through clients_list, newest first without sorting them all', async () => {
    const plan = await planOf((db) => listClients(db, scope(), { limit: 20, offset: 0 }));
    expect(plan).toContain('clients_list');
    expect(plan).not.toMatch(/Sort/);
    const page = await listClients(t.db, scope(), { limit: 3, offset: 1 });
    // 'Ráfaga SA' came with the first live quote; the others one a second back in time from it.
    expect(page.records.map((client) => client.empresa)).toEqual(['Cliente 1', 'Cliente 2', 'Cliente 3']);
  });

  it('give a page of products through products_list, in order without sorting the catalog', async () => {
    const plan = await planOf((db) => listProducts(db, catalog(), { limit: 20, offset: 0 }));
    expect(plan).toContain('products_list');
    expect(plan).not.toMatch(/Sort/);
    const page = await listProducts(t.db, catalog(), { limit: 3, offset: 0 });
    expect(page.records.map((product) => product.sku)).toEqual(['SKU-1', 'SKU-2', 'SKU-3']);
  });
});

describe('the products of a basket', () => {
  it('are read by their ids, not by filtering the whole catalog of a stale-statistics planner', async () => {
    const [{ id }] = (await t.db.query<{ id: string }>(
      'SELECT id FROM products WHERE org_id = $1 AND sku = $2',
      [catalogOrg, 'SKU-7'],
    )) as [{ id: string }];
    // Still only the organization's own: another one's id finds nothing.
    expect(await t.db.query(productsByIdsSql('$1', '$2', '$3'), [t.seed.org.id, 'test', [id]])).toEqual([]);
    const plan = await planOf((db) =>
      db.query(productsByIdsSql('$1', '$2', '$3'), [catalogOrg, 'test', [id]]),
    );
    expect(plan).toContain('products_pkey');
  });
});

describe('one quote or client of a burst the statistics do not know of', () => {
  it('is a quote found by its id through quotes_pkey, not by reading the organization', async () => {
    const [quote] = (await listQuotes(t.db, scope(), { limit: 1, offset: 1500 })).rows;
    expect(await planOf((db) => findQuote(db, scope(), quote!.id))).toContain('quotes_pkey');
    expect((await findQuote(t.db, { ...scope(), mode: 'test' }, quote!.id))?.id).toBeUndefined();
  });

  it('is a client found by its e-mail through clients_lookup_email', async () => {
    const plan = await planOf((db) =>
      db.query(clientSql('$1', '$2', 'email', '$3'), [t.seed.org.id, 'live', 'c77@rafaga.example']),
    );
    expect(plan).toContain('clients_lookup_email');
  });

  it('is a client found by its id through clients_pkey', async () => {
    const [{ id }] = (await t.db.query<{ id: string }>(
      "SELECT id FROM clients WHERE mode = 'live' AND email = 'c77@rafaga.example'",
    )) as [{ id: string }];
    const plan = await planOf((db) =>
      db.query(clientSql('$1', '$2', 'id', '$3'), [t.seed.org.id, 'live', id]),
    );
    expect(plan).toContain('clients_pkey');
  });
});

describe('a coupon', () => {
  it('is found by its code, in any case, through coupons_code_any_case', async () => {
    const lookup = (db: Queryable) =>
      db.query(couponByCodeSql('$1', '$2', '$3'), [t.seed.org.id, 'test', 'bienvenida10']);
    expect(await planOf(lookup)).toContain('coupons_code_any_case');
    expect(await lookup(t.db)).toEqual([expect.objectContaining({ code: 'BIENVENIDA10' })]);
    // No second index by code for a planner with stale statistics to prefer (migration 012).
    const indexes = await t.db.query<{ name: string }>(
      "SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'coupons'::regclass ORDER BY 1",
    );
    expect(indexes.map((index) => index.name)).toEqual(['coupons_code_any_case', 'coupons_pkey']);
  });
});

/** A live draft of the burst's "Cliente 77" (`clienteId`) for the batch statement. */
const liveQuote = (clienteId: string, fields: Partial<NewQuote> = {}): BatchedQuote => ({
  id: randomUUID(),
  quote: draftQuote({
    org_id: t.seed.org.id,
    mode: 'live',
    cliente_id: clienteId,
    cliente_nombre: 'Cliente 77',
    ...fields,
  }),
  items: [],
  eventData: {},
  coupon: null,
});

describe('a creation priced from memory', () => {
  it('checks its client, products and coupon by their keys, never by reading their tables', async () => {
    const [client] = await t.db.query<{ id: string; version: string }>(
      "SELECT id, xmin::text AS version FROM clients WHERE email = 'c77@rafaga.example'",
    );
    const [product] = await t.db.query<{ id: string; version: string }>(
      "SELECT id, xmin::text AS version FROM products WHERE org_id = $1 AND sku = 'SKU-7'",
      [catalogOrg],
    );
    const [coupon] = await t.db.query<{ id: string }>(
      "SELECT id FROM coupons WHERE org_id = $1 AND mode = 'live' AND code = 'BIENVENIDA10'",
      [t.seed.org.id],
    );
    const quote = {
      ...liveQuote(client!.id, { coupon_id: coupon!.id }),
      coupon: { tipo: 'porcentaje' as const, valor: 10, moneda: null },
      versions: { client: client!.version, products: new Map([[product!.id, product!.version]]) },
    };
    const plan = await planOf((db) => insertQuoteBatch(db, scope(), [quote], new Date()));
    expect(plan).toContain('clients_pkey');
    expect(plan).toContain('products_pkey');
    expect(plan).toContain('coupons_pkey');
    expect(plan).not.toMatch(/Seq Scan on (clients|products|coupons)/);
  });
});

describe('an idempotent creation', () => {
  it('looks a stored response up by its key, never by reading every stored response', async () => {
    // Checked twice: before the write, and for a quote the batch left out. The second, as EXISTS,
    // was planned as a hash of the whole table, which then grows under the connection's generic plan.
    const [key] = await t.db.query<{ id: string }>(
      "SELECT id FROM api_keys WHERE org_id = $1 AND mode = 'live' LIMIT 1",
      [t.seed.org.id],
    );
    const [client] = await t.db.query<{ id: string }>(
      "SELECT id FROM clients WHERE mode = 'live' AND email = 'c77@rafaga.example'",
    );
    const quote = {
      ...liveQuote(client!.id),
      stored: {
        keyId: key!.id,
        idempotencyKey: randomUUID(),
        fingerprint: 'f',
        status: 200,
        body: '{"folio":"@@f@@"}',
        type: 'application/json',
        folioToken: '"@@f@@"',
      },
    };
    const plan = await planOf((db) => insertQuoteBatch(db, scope(), [quote], new Date()));
    expect(plan.match(/idempotency_keys_pkey/g)?.length).toBeGreaterThanOrEqual(3);
    expect(plan).not.toMatch(/Seq Scan on idempotency_keys/);
  });
});

describe('the receivables book (GET /cobranza)', () => {
  it('reads 10,000 open invoices of a burst from invoices_receivable_by_client, never the table', async () => {
    const [client] = await t.db.query<{ id: string }>(
      "SELECT id FROM clients WHERE mode = 'live' AND email = 'c77@rafaga.example'",
    );
    await t.db.query(
      `INSERT INTO invoices (org_id, mode, numero, token, estado, estado_fiscal, pais, tipo, moneda, moneda_fiscal,
         subtotal, descuento, impuestos, total, pagado, emitida, vence, dias_credito, cliente_id,
         cliente_nombre, language, created_by)
       SELECT $1, 'live', 'F-' || lpad(i::text, 6, '0'), 'tok-' || i, 'open', 'not_applicable', 'MX',
         'commercial', 'MXN', 'MXN', 100, 0, 16, 116, 16, current_date - 60, current_date - (i % 120), 0, $2,
         'Cliente 77', 'es', 'test'
       FROM generate_series(1, 10000) i`,
      [t.seed.org.id, client!.id],
    );
    const query = { asOf: new Date().toISOString().slice(0, 10), limit: 20, offset: 0 };
    const plan = await planOf((db) => readCollections(db, scope(), query));
    expect(plan).toContain('invoices_receivable_by_client');
    expect(plan).not.toMatch(/Seq Scan on invoices/);
    const report = await readCollections(t.db, scope(), query);
    expect(report.monedas).toEqual([expect.objectContaining({ moneda: 'MXN', por_cobrar: 1_000_000 })]);
  });
});
