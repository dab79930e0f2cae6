// The fair ceilings of two read routes, for bench/baseline.ts: what `POST /elements/preview` and
// `GET /cotizaciones` cannot beat, one read statement each, of the same rows the routes read.

import { DEFAULT_CATALOG } from '../packages/server/src/cli/seed.js';
import type { Database } from '../packages/server/src/db/database.js';
import { migrate } from '../packages/server/src/db/migrate.js';
import { readCatalog, seedDemo } from '../packages/server/src/services/seed.js';

/** The demo organization's slug, which `svc-server seed` creates. */
const DEMO_SLUG = 'demo-estudio-nopal';
/** Quotes a PGlite ceiling database gets, so that its page comes from a table of some size. */
const SYNTHETIC_QUOTES = 5_000;

/**
 * Opens the rows the read ceilings read. On PostgreSQL they are the server's own (the same
 * database: its catalog and, by the time the list is measured, the quotes the creation loads
 * made). PGlite is one process's database, so the baseline has its own: seeded with the same demo
 * catalog, and given {@link SYNTHETIC_QUOTES} quotes; reading 20 of them through the list index
 * costs the same whatever the table's size beyond a few pages.
 */
export async function readCeilings(db: Database) {
  if (db.kind === 'pglite') {
    await migrate(db);
    if (!(await demoOrg(db))) await seedDemo(db, readCatalog(DEFAULT_CATALOG), { origins: [] });
  }
  const orgId = (await demoOrg(db))!;
  if (db.kind === 'pglite') await fillQuotes(db, orgId);
  const [laptop] = await db.query<{ id: string }>(
    `SELECT id FROM products WHERE org_id = $1 AND mode = 'test' AND sku = 'LAP-14'`,
    [orgId],
  );
  return {
    /** The columns of a basket of `count` lines of the catalog, read by id, as the preview does. */
    products: (count: number) =>
      db.query(
        `SELECT id, sku, nombre, unidad, precio_lista, moneda, tax_rate
         FROM products WHERE id = ANY($1::uuid[]) AND org_id = $2 AND mode = 'test'`,
        [Array.from({ length: count }, () => laptop!.id), orgId],
      ),
    /** The newest page of quotes, every column, through the list index. */
    quotePage: (limit: number) =>
      db.query(`SELECT * FROM quotes WHERE org_id = $1 AND mode = 'test' ORDER BY seq DESC LIMIT $2`, [
        orgId,
        limit > 0 ? limit : 20,
      ]),
  };
}

async function demoOrg(db: Database): Promise<string | undefined> {
  return (await db.query<{ id: string }>('SELECT id FROM orgs WHERE slug = $1', [DEMO_SLUG]))[0]?.id;
}

async function fillQuotes(db: Database, orgId: string): Promise<void> {
  const [{ n }] = (await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM quotes WHERE org_id = $1 AND mode = 'test'`,
    [orgId],
  )) as [{ n: number }];
  if (n >= SYNTHETIC_QUOTES) return;
  const [client] = await db.query<{ id: string }>(
    `INSERT INTO clients (org_id, mode, empresa) VALUES ($1, 'test', 'Bench SA') RETURNING id`,
    [orgId],
  );
  await db.query(
    `INSERT INTO quotes (org_id, mode, folio, cliente_id, cliente_nombre, status, moneda, vigencia_dias,
       subtotal, descuento, impuestos, total, token, draft_language, created_by)
     SELECT $1, 'test', 'BEN-' || lpad(i::text, 6, '0'), $2, 'Bench SA', 'draft', 'MXN', 30,
       49000, 4900, 7056, 51156, md5(random()::text || i), 'es', 'bench'
     FROM generate_series(1, $3::int) AS i`,
    [orgId, client!.id, SYNTHETIC_QUOTES],
  );
  await db.query('ANALYZE quotes');
}
