import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Database } from '../db/database.js';
import { createLogger } from '../logger.js';
import { countRequest, windowAt } from '../middleware/rate-limit.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { VisitorCounters } from './visitor-counters.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const WINDOW = 60_000;
const logger = createLogger('silent');
const stored = async (bucket: string, now: Date) =>
  (
    await t.db.query<{ count: number }>(
      'SELECT count FROM rate_counters WHERE bucket = $1 AND window_start = $2',
      [bucket, windowAt(now, WINDOW).start],
    )
  )[0]?.count ?? 0;

describe('VisitorCounters', () => {
  it.runIf(inject('testDb') === 'pglite')('counts in the same memory as countRequest on PGlite', async () => {
    const counters = new VisitorCounters(t.db, logger);
    const now = new Date();
    expect(counters.count('vc:pglite', now, WINDOW)).toBe(1);
    expect((await countRequest(t.db, 'vc:pglite', now, WINDOW)).count).toBe(2);
    expect(counters.read('vc:pglite', now, WINDOW)).toBe(2);
  });

  it.runIf(inject('testDb') === 'postgres')(
    'adds its counts to rate_counters and reads back the shared totals, losing none in flight',
    async () => {
      const a = new VisitorCounters(t.db, logger, { flushMs: 60_000 });
      const b = new VisitorCounters(t.db, logger, { flushMs: 60_000 });
      const now = new Date();
      for (let i = 0; i < 3; i++) a.count('vc:shared', now, WINDOW);
      expect(await stored('vc:shared', now)).toBe(0);
      // Counted while the flush is on its way: kept for the next one.
      const flushing = a.flush();
      a.count('vc:shared', now, WINDOW);
      await flushing;
      expect(await stored('vc:shared', now)).toBe(3);
      expect(a.read('vc:shared', now, WINDOW)).toBe(4);
      b.count('vc:shared', now, WINDOW);
      await b.flush();
      expect(b.read('vc:shared', now, WINDOW)).toBe(4);
      await a.flush();
      expect(await stored('vc:shared', now)).toBe(5);
      expect(a.read('vc:shared', now, WINDOW)).toBe(5);
      // Only read, never counted here: read back without a write.
      const c = new VisitorCounters(t.db, logger, { flushMs: 60_000 });
      expect(c.read('vc:shared', now, WINDOW)).toBe(0);
      await c.flush();
      expect(c.read('vc:shared', now, WINDOW)).toBe(5);
      expect(await stored('vc:shared', now)).toBe(5);
      await Promise.all([a.close(), b.close(), c.close()]);
    },
  );

  it.runIf(inject('testDb') === 'postgres')(
    'keeps its counts through a failed flush and sends them with the next, and on close',
    async () => {
      let failing = true;
      const flaky: Database = {
        ...t.db,
        query: (sql, params) => (failing ? Promise.reject(new Error('down')) : t.db.query(sql, params)),
      } as Database;
      const counters = new VisitorCounters(flaky, logger, { flushMs: 60_000 });
      const now = new Date();
      counters.count('vc:flaky', now, WINDOW);
      counters.count('vc:flaky', now, WINDOW);
      await counters.flush();
      expect(await stored('vc:flaky', now)).toBe(0);
      expect(counters.read('vc:flaky', now, WINDOW)).toBe(2);
      failing = false;
      counters.count('vc:flaky', now, WINDOW);
      await counters.close();
      expect(await stored('vc:flaky', now)).toBe(3);
    },
  );

  it.runIf(inject('testDb') === 'postgres')(
    'forgets a window once it has ended and its counts were sent, and counters nobody counted',
    async () => {
      const counters = new VisitorCounters(t.db, logger, { flushMs: 60_000 });
      const first = new Date(Math.floor(Date.now() / WINDOW) * WINDOW - 2 * WINDOW);
      for (let i = 0; i < 5; i++) counters.count(`vc:old:${i}`, first, WINDOW);
      // Only read and never counted anywhere: nothing to remember after the flush.
      counters.read('vc:nobody', first, WINDOW);
      expect(counters.kept).toBe(6);
      await counters.flush();
      expect(counters.kept).toBe(5);
      counters.count('vc:new', new Date(first.getTime() + WINDOW), WINDOW);
      expect(counters.kept).toBe(1);
      // A window whose counts were not sent yet is kept until they are.
      counters.count('vc:newer', new Date(first.getTime() + 2 * WINDOW), WINDOW);
      expect(counters.kept).toBe(2);
      await counters.close();
    },
  );

  it.runIf(inject('testDb') === 'postgres')('flushes by itself within its interval', async () => {
    const counters = new VisitorCounters(t.db, logger, { flushMs: 50 });
    const now = new Date();
    counters.count('vc:timer', now, WINDOW);
    const deadline = Date.now() + 2_000;
    while ((await stored('vc:timer', now)) === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await stored('vc:timer', now)).toBe(1);
    await counters.close();
  });
});
