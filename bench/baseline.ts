// The ceilings of `npm run bench`: a bare Hono JSON route, a bare Hono route running one
// transaction of four statements (BEGIN; INSERT; UPDATE … RETURNING; COMMIT), and bare routes
// running the one read statement of a measured read route (see bench/read-ceilings.ts), on the
// same kind of database as the server under test. Usage: tsx bench/baseline.ts PORT (DATABASE_URL
// or DATA_DIR).
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createDatabase } from '../packages/server/src/db/database.js';
import { openPglite } from '../packages/server/src/db/pglite.js';
import { openPostgres } from '../packages/server/src/db/postgres.js';
import { readCeilings } from './read-ceilings.js';

const port = Number(process.argv[2]);
const driver = process.env.DATABASE_URL
  ? await openPostgres(process.env.DATABASE_URL, { max: 10 })
  : await openPglite(`${process.env.DATA_DIR}/baseline-pglite`);
const db = createDatabase(driver);
await db.query('CREATE TABLE IF NOT EXISTS bench_counter (id serial PRIMARY KEY, n integer NOT NULL)');
await db.query('CREATE TABLE IF NOT EXISTS bench_shared (id integer PRIMARY KEY, n integer NOT NULL)');
await db.query('INSERT INTO bench_shared VALUES (1, 0) ON CONFLICT (id) DO NOTHING');
const body = { data: { ok: true, nombre: 'Estudio Nopal', currency: 'MXN' } };
// A JSON body of exactly n bytes, built once per size: the same payload as a measured route,
// so its ratio shows the route's own overhead apart from the cost of sending its bytes.
const sized = new Map<number, Uint8Array<ArrayBuffer>>();
const sizedBody = (bytes: number) => {
  let cached = sized.get(bytes);
  if (!cached) {
    const frame = JSON.stringify({ data: { padding: '' } });
    const json = JSON.stringify({ data: { padding: 'x'.repeat(Math.max(0, bytes - frame.length)) } });
    cached = new TextEncoder().encode(json);
    sized.set(bytes, cached);
  }
  return cached;
};
const reads = await readCeilings(db);
const app = new Hono()
  .get('/bare', (c) => c.json(body))
  .get('/bare-sized/:bytes', (c) =>
    c.body(sizedBody(Number(c.req.param('bytes'))), 200, { 'Content-Type': 'application/json' }),
  )
  .post('/bare-tx', async (c) => {
    const row = await db.transaction(async (tx) => {
      const [inserted] = await tx.query<{ id: number }>(
        'INSERT INTO bench_counter (n) VALUES (1) RETURNING id',
      );
      const [updated] = await tx.query<{ n: number }>(
        'UPDATE bench_counter SET n = n + 1 WHERE id = $1 RETURNING n',
        [inserted!.id],
      );
      return updated;
    });
    return c.json({ data: row });
  })
  // The same transaction with one serial point, as a folio counter is: every request updates the
  // one shared row, whose lock lasts from the UPDATE to COMMIT (a focused tool's ceiling, not the
  // bench's: bench/profile-submission.ts PROFILE_TARGET=bare-shared).
  .post('/bare-tx-shared', async (c) => {
    const row = await db.transaction(async (tx) => {
      await tx.query('INSERT INTO bench_counter (n) VALUES (1)');
      const [updated] = await tx.query<{ n: number }>(
        'UPDATE bench_shared SET n = n + 1 WHERE id = 1 RETURNING n',
      );
      return updated;
    });
    return c.json({ data: row });
  })
  .post('/bare-products', async (c) => {
    const body = (await c.req.json()) as { items: unknown[] };
    return c.json({ data: await reads.products(body.items.length) });
  })
  .get('/bare-quotes-page', async (c) =>
    c.json({ data: await reads.quotePage(Number(c.req.query('limit'))) }),
  );
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () =>
  process.stderr.write(`baseline listening on ${port}\n`),
);
