import { describe, expect, it } from 'vitest';
import type { Database } from '../db/database.js';
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
});
