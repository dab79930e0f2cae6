import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { until } from '../testing/assertions.js';
import { openTestDatabase } from '../testing/harness.js';
import type { Database } from './database.js';

// The LISTEN connection that carries key revocations between processes (PostgreSQL only: PGlite
// has one process). Losing it must tell the caches to drop everything, reconnect by itself, and
// never crash the process, however many errors the dying connection reports.
describe.runIf(inject('testDb') === 'postgres')('PostgreSQL change notifications', () => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ db, cleanup } = await openTestDatabase());
  });
  afterAll(async () => {
    await cleanup();
  });

  it('survives its connection being terminated, clears caches, and listens again', async () => {
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
