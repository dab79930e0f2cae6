import { describe, expect, it, vi } from 'vitest';
import { createDatabase, type Database } from '../db/database.js';
import { openPostgres } from '../db/postgres.js';
import { openTestDatabase } from '../testing/harness.js';
import { countRequest, currentCount, MAX_LOCAL_WINDOWS } from './rate-limit.js';

// Counting in memory is PGlite's: the database is only the key the windows are kept under.
const pglite = () => ({ kind: 'pglite' }) as Database;
const MINUTE = 60_000;

describe('rate windows counted in memory', () => {
  it('keeps counting every running window exactly when there are more than it keeps before dropping', async () => {
    const db = pglite();
    const now = new Date(Date.UTC(2026, 10, 23, 12, 0, 10));
    for (let i = 0; i < MAX_LOCAL_WINDOWS + 10; i++) await countRequest(db, `ip:${i}`, now);
    await countRequest(db, 'ip:0', now);
    expect(await currentCount(db, 'ip:0', now, MINUTE)).toBe(2);
    expect(await currentCount(db, `ip:${MAX_LOCAL_WINDOWS + 9}`, now, MINUTE)).toBe(1);
  });

  it('drops ended windows when there are many, at most once a second', async () => {
    const db = pglite();
    const t0 = Date.UTC(2026, 10, 23, 12, 0, 10);
    // Fill with windows that end at 12:01; then one more visitor once the minute is over.
    for (let i = 0; i < MAX_LOCAL_WINDOWS; i++) await countRequest(db, `ip:${i}`, new Date(t0));
    const later = new Date(t0 + MINUTE);
    await countRequest(db, 'ip:first-after', later);
    // The sweep ran: a window of the past minute is gone.
    expect(await currentCount(db, 'ip:1', new Date(t0), MINUTE)).toBe(0);
    // Fill again with half-second windows, which end at once; a new visitor after they ended but
    // within a second of the last sweep finds them still there; one a second after, drops them.
    for (let i = 0; i < MAX_LOCAL_WINDOWS; i++) await countRequest(db, `short:${i}`, later, 500);
    await countRequest(db, 'ip:within-the-second', new Date(later.getTime() + 600));
    expect(await currentCount(db, 'short:1', later, 500)).toBe(1);
    await countRequest(db, 'ip:next-second', new Date(later.getTime() + 1000));
    expect(await currentCount(db, 'short:1', later, 500)).toBe(0);
  });
});

describe.runIf(process.env.TEST_DB === 'postgres')('rate windows counted in PostgreSQL', () => {
  it('are counted exactly under concurrency, in a table kept out of the write-ahead log', async () => {
    const { db, cleanup } = await openTestDatabase();
    try {
      const now = new Date();
      const counts = await Promise.all(
        Array.from({ length: 20 }, () => countRequest(db, 'ip:203.0.113.9', now)),
      );
      expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      expect(await currentCount(db, 'ip:203.0.113.9', now, MINUTE)).toBe(20);
      // Written by nearly every widget request: unlogged, such a write waits for no WAL flush.
      expect(
        await db.query("SELECT relpersistence FROM pg_class WHERE oid = 'rate_counters'::regclass"),
      ).toEqual([{ relpersistence: 'u' }]);
    } finally {
      await cleanup();
    }
  });

  it("counts a counter's concurrent requests together, each its own place in the total, across processes", async () => {
    const { db, url, cleanup } = await openTestDatabase();
    // Another process's pool on the same database.
    const other = createDatabase(await openPostgres(url!, { max: 10 }));
    try {
      const now = new Date();
      const query = vi.spyOn(db, 'query');
      const counts = await Promise.all([
        ...Array.from({ length: 30 }, () => countRequest(db, 'key:together', now)),
        ...Array.from({ length: 10 }, () => countRequest(other, 'key:together', now)),
      ]);
      const statements = query.mock.calls.filter(([sql]) => sql.includes('INSERT INTO rate_counters')).length;
      query.mockRestore();
      expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 40 }, (_, i) => i + 1),
      );
      // The first request's statement, then one for the 29 that came while it was under way.
      expect(statements).toBe(2);
      expect(await currentCount(db, 'key:together', now, MINUTE)).toBe(40);
    } finally {
      await other.close();
      await cleanup();
    }
  });

  it('counts the requests that waited even when the statement they waited behind failed', async () => {
    const { db, cleanup } = await openTestDatabase();
    try {
      const now = new Date();
      vi.spyOn(db, 'query').mockRejectedValueOnce(new Error('connection lost'));
      const counts = await Promise.allSettled(
        Array.from({ length: 5 }, () => countRequest(db, 'key:after-failure', now)),
      );
      vi.restoreAllMocks();
      expect(counts[0]).toMatchObject({ status: 'rejected' });
      expect(counts.slice(1).map((c) => (c.status === 'fulfilled' ? c.value.count : 0))).toEqual([
        1, 2, 3, 4,
      ]);
      expect(await countRequest(db, 'key:after-failure', now)).toMatchObject({ count: 5 });
    } finally {
      await cleanup();
    }
  });
});
