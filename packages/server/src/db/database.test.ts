import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { until } from '../testing/assertions.js';
import { openTestDatabase } from '../testing/harness.js';
import type { Database } from './database.js';

let db: Database;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ db, cleanup } = await openTestDatabase());
});
afterAll(async () => {
  await cleanup();
});

const txid = async (db: Pick<Database, 'query'>) =>
  (await db.query<{ id: string }>('SELECT txid_current()::text AS id'))[0]!.id;

describe('the ambient transaction', () => {
  it('runs plain queries made during a transaction inside it, and outside once it ends', async () => {
    const inside = await db.transaction(async (tx) => ({
      explicit: await txid(tx),
      ambient: await txid(db),
    }));
    expect(inside.ambient).toBe(inside.explicit);
    // After the last transaction the tracking is switched off: queries run on their own again.
    expect(await txid(db)).not.toBe(inside.explicit);
  });

  it('lets the event loop turn between queued transactions', async () => {
    // PGlite runs statements on this thread: queued transactions must not starve the server's I/O.
    let finished = 0;
    let finishedWhenTheLoopTurned = -1;
    const all = Array.from({ length: 20 }, () =>
      db.transaction(async (tx) => {
        await tx.query('SELECT 1');
        await tx.query('SELECT 2');
        finished++;
      }),
    );
    setImmediate(() => {
      finishedWhenTheLoopTurned = finished;
    });
    await Promise.all(all);
    expect(finishedWhenTheLoopTurned).toBeGreaterThanOrEqual(0);
    expect(finishedWhenTheLoopTurned).toBeLessThan(20);
  });

  it('keeps a transaction ambient while another one ends around it', async () => {
    // PGlite has one connection and runs transactions one after the other; PostgreSQL overlaps them.
    let releaseOuter!: () => void;
    const outerMayEnd = new Promise<void>((resolve) => {
      releaseOuter = resolve;
    });
    const outer = db.transaction(async (tx) => {
      const before = await txid(db);
      await outerMayEnd;
      return { explicit: await txid(tx), before, after: await txid(db) };
    });
    const other = db.transaction(async (tx) => txid(tx));
    if (db.kind === 'postgres') await other;
    releaseOuter();
    const seen = await outer;
    await other;
    expect(seen.before).toBe(seen.explicit);
    expect(seen.after).toBe(seen.explicit);
  });
});

// Change notifications carry key revocations and catalog changes to every cache. On PostgreSQL
// they travel over a LISTEN connection: losing it must tell the caches to drop everything,
// reconnect by itself, and never crash the process, however many errors the dying connection
// reports. PGlite has one process, so only delivery applies there.
describe('change notifications', () => {
  it('reach the listeners of a channel, this process included', async () => {
    const heard: string[] = [];
    const unlisten = await db.listen('svc_test_delivery', (payload) => heard.push(payload));
    await db.notify('svc_test_delivery', 'org:o_1');
    await until(async () => heard.includes('org:o_1'), 'the notification');
    await unlisten();
  });

  // Defined on the PostgreSQL pass only (not skipped on PGlite: there is no connection to lose).
  if (inject('testDb') === 'postgres')
    it('survive their connection being terminated, clears caches, and listens again', async () => {
      const heard: string[] = [];
      await db.listen('svc_test_channel', (payload) => heard.push(payload));
      const listeners = async () =>
        db.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity
         WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
        );
      const [before] = await listeners();
      expect(before).toBeDefined();
      await db.query('SELECT pg_terminate_backend($1)', [before!.pid]);
      // Told to drop everything while disconnected.
      await until(async () => heard.includes(''), 'the empty "drop everything" message');
      // Back on a new connection: a NOTIFY from elsewhere reaches the handler again.
      await until(async () => {
        const [after] = await listeners();
        return after !== undefined && after.pid !== before!.pid;
      }, 'a new LISTEN connection');
      await db.query(`SELECT pg_notify('svc_test_channel', 'key:k_1')`);
      await until(async () => heard.includes('key:k_1'), 'the notification on the new connection');
    });
});
