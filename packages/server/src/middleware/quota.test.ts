import { describe, expect, it, vi } from 'vitest';
import { createDatabase } from '../db/database.js';
import { openPostgres } from '../db/postgres.js';
import type { ApiError } from '../errors.js';
import type { KeyWithOrg } from '../services/key-store.js';
import { createOrg } from '../services/orgs.js';
import { openTestDatabase } from '../testing/harness.js';
import { chargeQuota } from './quota.js';

describe('monthly quota under concurrency', () => {
  it('lets exactly the quota through of concurrent calls on two processes, counting none refused', async () => {
    const { db, url, cleanup } = await openTestDatabase();
    // On PostgreSQL another process's pool on the same database; PGlite has one process.
    const other = url ? createDatabase(await openPostgres(url, { max: 10 })) : db;
    try {
      const org = await createOrg(db, { nombre: 'Busy Month', plan: 'free' }); // 100 calls
      const auth = { key: { mode: 'live', kind: 'secret' }, org } as unknown as KeyWithOrg;
      const now = new Date();
      const query = vi.spyOn(db, 'query');
      const calls = await Promise.allSettled(
        Array.from({ length: 130 }, (_, i) => chargeQuota(i % 2 === 0 ? db : other, auth, now)),
      );
      const statements = query.mock.calls.length;
      query.mockRestore();
      expect(calls.filter((call) => call.status === 'fulfilled')).toHaveLength(100);
      for (const call of calls.filter((c) => c.status === 'rejected'))
        expect((call.reason as ApiError).code).toBe('api_quota_exceeded');
      const [usage] = await db.query<{ count: number }>(
        'SELECT count FROM usage_counters WHERE org_id = $1',
        [org.id],
      );
      expect(usage!.count).toBe(100);
      // Calls that came while a charge was under way were charged together.
      expect(statements).toBeLessThan(30);
      // Used up: the next call is refused and changes nothing.
      await expect(chargeQuota(db, auth, now)).rejects.toMatchObject({ code: 'api_quota_exceeded' });
    } finally {
      if (other !== db) await other.close();
      await cleanup();
    }
  });
});
