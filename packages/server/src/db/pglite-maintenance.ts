import type { Database } from './database.js';

/**
 * The tables due for autovacuum's work by its default thresholds: statistics once more than
 * 50 rows + 10 % of the table changed since the last ANALYZE, dead rows once more than
 * 50 + 20 % of it are dead.
 */
const DUE_TABLES = `SELECT s.relname AS name,
    s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0) AS vacuum
  FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
  WHERE s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)
     OR s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)`;

/**
 * Does on PGlite what autovacuum does on PostgreSQL. PGlite runs PostgreSQL in single-user mode,
 * which has no autovacuum: without this, statistics would stay as they were when a table was
 * small and prepared statements would keep plans made for it (a page of `GET /cotizaciones` took
 * 50 ms at 25 k quotes instead of under 1), and dead rows would never be reclaimed. ANALYZE also
 * makes PostgreSQL plan the statements that use the table again. Returns the tables it treated.
 */
export async function maintainPglite(db: Database): Promise<string[]> {
  if (db.kind !== 'pglite') return [];
  const due = await db.query<{ name: string; vacuum: boolean }>(DUE_TABLES);
  // Every other statement waits while ANALYZE runs on PGlite's one connection, so the sample is
  // small: 300 rows (statistics target 1) instead of PostgreSQL's 30,000. On 63 k quotes ANALYZE
  // took ~8 ms a table, against 44-123 ms with 3,000 rows: with three tables due at once, a stall
  // of over 100 ms for every request then in flight, the tail of creation's latency. It still
  // tells the planner what it needs here: sizes, and the most common organization and status.
  if (due.length > 0) await db.query('SET default_statistics_target = 1');
  for (const table of due) {
    const name = `"${table.name.replaceAll('"', '""')}"`;
    await db.query(table.vacuum ? `VACUUM (ANALYZE) ${name}` : `ANALYZE ${name}`);
  }
  return due.map((table) => table.name);
}
