import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { startScheduler } from '../services/scheduler.js';
import { openTestDatabase } from '../testing/harness.js';
import type { Database } from './database.js';
import { maintainPglite } from './pglite-maintenance.js';

let db: Database;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ db, cleanup } = await openTestDatabase());
  await db.query('CREATE TABLE maintained (id serial PRIMARY KEY, note text)');
});
afterAll(() => cleanup());

const stats = async () => {
  // A session reports its counts at most once a second, when idle; make the next report happen.
  await db.query('SELECT pg_stat_force_next_flush()');
  await db.query('SELECT 1');
  return (
    await db.query<{ changed: number; dead: number }>(
      `SELECT n_mod_since_analyze::int AS changed, n_dead_tup::int AS dead
       FROM pg_stat_user_tables WHERE relname = 'maintained'`,
    )
  )[0]!;
};

describe('maintainPglite', () => {
  it.runIf(process.env.TEST_DB !== 'postgres')(
    'analyzes tables past autovacuum thresholds and vacuums their dead rows, then leaves them be',
    async () => {
      await db.query("INSERT INTO maintained (note) SELECT 'n' || i FROM generate_series(1, 500) i");
      await db.query("UPDATE maintained SET note = note || '!' WHERE id <= 300");
      expect(await stats()).toMatchObject({ changed: 800, dead: 300 });
      expect(await maintainPglite(db)).toContain('maintained');
      expect(await stats()).toEqual({ changed: 0, dead: 0 });
      const [{ reltuples }] = (await db.query<{ reltuples: number }>(
        "SELECT reltuples::int AS reltuples FROM pg_class WHERE relname = 'maintained'",
      )) as [{ reltuples: number }];
      expect(reltuples).toBe(500);
      // With a sample of 300 rows: ANALYZE holds PGlite's one connection a tenth as long as with 3,000.
      expect(await db.query('SHOW default_statistics_target')).toEqual([{ default_statistics_target: '1' }]);
      // Below the thresholds (50 + 10 % changed): nothing to do.
      await db.query("UPDATE maintained SET note = 'x' WHERE id <= 10");
      expect(await stats()).toMatchObject({ changed: 10 });
      expect(await maintainPglite(db)).not.toContain('maintained');
    },
  );

  it.runIf(process.env.TEST_DB !== 'postgres')('is run by the scheduler of a PGlite server', async () => {
    await db.query("INSERT INTO maintained (note) SELECT 'n' || i FROM generate_series(1, 500) i");
    expect((await stats()).changed).toBeGreaterThan(100);
    const stop = startScheduler(db, createLogger('silent'), () => new Date(), 3_600_000, 50);
    try {
      let changed = -1;
      for (let i = 0; i < 50 && changed !== 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        changed = (await stats()).changed;
      }
      expect(changed).toBe(0);
    } finally {
      stop();
    }
  });

  it.runIf(process.env.TEST_DB === 'postgres')('leaves PostgreSQL to its own autovacuum', async () => {
    await db.query("INSERT INTO maintained (note) SELECT 'n' || i FROM generate_series(1, 500) i");
    expect(await maintainPglite(db)).toEqual([]);
  });
});
