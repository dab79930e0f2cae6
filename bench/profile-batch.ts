// The batch statement's own cost, without HTTP or the server around it: the database's CPU for
// statements of the widget's kind of quotes (new client presumed new, coupon, stored response,
// a visitor address's counters, product versions) at two sizes, and from them the fixed cost of a
// statement and the cost of a quote: what bounds the writer at 10 connections (docs/performance.md,
// stop 32). Each size runs three interleaved rounds and the least CPU of the three is kept; on this
// shared machine the fit still moves by 10–20 % between runs, so compare what-ifs over several.
// Usage: TEST_PG_URL=… tsx bench/profile-batch.ts
//   PROFILE_DB=pglite     PGlite, in this process (its CPU then includes building the parameters)
//   PROFILE_SIZES=1,9     statement sizes (the first and last give the fit)
//   PROFILE_QUOTES=6000   quotes a size and round (3 rounds, interleaved)
//   PROFILE_SQL="…"       SQL run on the seeded database first, for what-ifs (e.g. dropping a constraint)
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DEFAULT_CATALOG } from '../packages/server/src/cli/seed.js';
import { openDatabase } from '../packages/server/src/db/open.js';
import { type BatchedQuote, insertQuoteBatch } from '../packages/server/src/repositories/quote-batch.js';
import { readCatalog, seedDemo } from '../packages/server/src/services/seed.js';
import { draftQuote } from '../packages/server/src/testing/quote-fixtures.js';
import { postgresCpu } from './process-cpu.js';

const onPglite = process.env.PROFILE_DB === 'pglite';
const sizes = (process.env.PROFILE_SIZES ?? '1,9').split(',').map(Number);
const quotesPerRound = Number(process.env.PROFILE_QUOTES ?? 6000);

let databaseUrl: string | undefined;
if (!onPglite) {
  const admin = new pg.Client(process.env.TEST_PG_URL);
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS profile_batch WITH (FORCE)');
  await admin.query('CREATE DATABASE profile_batch');
  await admin.end();
  databaseUrl = process.env.TEST_PG_URL!.replace(/\/postgres$/, '/profile_batch');
}
const db = await openDatabase(
  databaseUrl ? { databaseUrl } : { dataDir: mkdtempSync(join(tmpdir(), 'svc-profile-batch-')) },
);
const seed = await seedDemo(db, readCatalog(DEFAULT_CATALOG), { origins: [] });
// One statement at a time: PGlite's query takes one.
for (const statement of (process.env.PROFILE_SQL ?? '').split(';').filter((s) => s.trim())) {
  await db.query(statement);
}
const orgId = seed.org.id;
const [laptop] = await db.query<{ id: string; version: string }>(
  "SELECT id, xmin::text AS version FROM products WHERE org_id = $1 AND mode = 'test' AND sku = 'LAP-14'",
  [orgId],
);
const [coupon] = await db.query<{ id: string }>(
  "SELECT id FROM coupons WHERE org_id = $1 AND mode = 'test' AND code = 'BIENVENIDA10'",
  [orgId],
);
const [key] = await db.query<{ id: string }>(
  "SELECT id FROM api_keys WHERE org_id = $1 AND mode = 'test' AND kind = 'publishable' LIMIT 1",
  [orgId],
);

/** One widget submission as the server hands it to the writer: two laptops, 10 % off. */
function submission(): BatchedQuote {
  const id = randomUUID();
  const visitor = randomUUID();
  const clientId = randomUUID();
  const empresa = `Visitante ${visitor}`;
  const email = `${visitor}@bench.example`;
  const folioToken = JSON.stringify(`@@folio:${id}@@`);
  const quote = draftQuote({
    org_id: orgId,
    cliente_id: clientId,
    cliente_nombre: empresa,
    cupon: 'BIENVENIDA10',
    coupon_id: coupon!.id,
    terminos_codigo: 'contado',
    subtotal: 49000,
    descuento: 4900,
    impuestos: 7056,
    total: 51156,
    created_by: `api:${key!.id}`,
  });
  const address = `10.${visitor.charCodeAt(0)}.${visitor.charCodeAt(1)}.${visitor.charCodeAt(2)}-${visitor}`;
  const window = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  return {
    id,
    quote,
    items: [
      {
        position: 0,
        descripcion: 'Laptop',
        cantidad: 2,
        unidad: 'pieza',
        precio_unitario: 24500,
        precio_negociado: null,
        costo_unitario: null,
        producto_id: laptop!.id,
        sku: 'LAP-14',
        tax_rate: 0.16,
        exemption_reason: null,
        clave_sat: '43211503',
        clave_unidad_sat: 'H87',
        importe: 49000,
        descuento: 4900,
        impuesto: 7056,
      },
    ],
    eventData: { status: 'draft', moneda: 'MXN', total: 51156, cliente: empresa, cliente_id: clientId },
    coupon: { tipo: 'porcentaje', valor: 10, moneda: null },
    versions: { client: null, products: new Map([[laptop!.id, laptop!.version]]) },
    counters: [
      { bucket: `ip:create:${orgId}:${address}`, windowStart: window, increment: true, allowed: 30 },
      { bucket: `coupon-fail:${orgId}:${address}`, windowStart: window, increment: false, allowed: 9 },
    ],
    newClient: {
      row: {
        id: clientId,
        empresa,
        contacto: null,
        email,
        telefono: null,
        rfc: null,
        fiscal: null,
        terminos: null,
        country_code: null,
      },
      eventData: { id: clientId, object: 'client', empresa, email },
    },
    stored: {
      keyId: key!.id,
      idempotencyKey: randomUUID(),
      fingerprint: randomUUID(),
      status: 200,
      body: JSON.stringify({ data: { id, token: quote.token, folio: `@@folio:${id}@@`, status: 'draft' } }),
      type: 'application/json',
      folioToken,
    },
    presumedNew: { by: 'email', value: email, limit: 1_000_000 },
  };
}

/** CPU so far, in µs: PostgreSQL's processes, or this one's on PGlite. */
function cpu(): number {
  if (!onPglite) return postgresCpu();
  const { user, system } = process.cpuUsage();
  return user + system;
}

async function statements(size: number, count: number): Promise<number> {
  const before = cpu();
  for (let i = 0; i < count; i++) {
    const batch = Array.from({ length: size }, submission);
    const outcomes = await insertQuoteBatch(db, { orgId, mode: 'test' }, batch, new Date());
    if ([...outcomes.values()].some((outcome) => !outcome.created)) throw new Error('a quote was left out');
  }
  return (cpu() - before) / count;
}

await statements(9, 300); // warm-up: plans cached, tables past their first pages
const perStatement = new Map<number, number[]>(sizes.map((size) => [size, []]));
for (let round = 0; round < 3; round++) {
  for (const size of sizes) {
    perStatement.get(size)!.push(await statements(size, Math.round(quotesPerRound / size)));
  }
}
const best = (size: number) => Math.min(...perStatement.get(size)!);
const [small, large] = [sizes[0]!, sizes.at(-1)!];
const perQuote = (best(large) - best(small)) / (large - small);
console.log(
  JSON.stringify({
    database: onPglite ? 'pglite' : 'postgres',
    cpu_us_per_statement: Object.fromEntries(
      sizes.map((size) => [size, perStatement.get(size)!.map(Math.round)]),
    ),
    fixed_us_per_statement: Math.round(best(small) - perQuote * small),
    us_per_quote: Math.round(perQuote),
  }),
);
await db.close();
