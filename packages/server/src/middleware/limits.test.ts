import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../services/api-keys.js';
import { createOrg } from '../services/orgs.js';
import { expectError } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { KEY_RATE_LIMIT } from './rate-limit.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

describe('rate limit', () => {
  it(`allows ${KEY_RATE_LIMIT} requests a minute per secret key, then 429 rate_limited with Retry-After`, async () => {
    const { key } = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'secret',
      mode: 'test',
      scope: 'read',
    });
    // Start at the beginning of a window so the burst cannot straddle two.
    const start = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 60_000);
    t.setNow(start);
    try {
      for (let i = 0; i < KEY_RATE_LIMIT; i += 50) {
        const batch = await Promise.all(
          Array.from({ length: 50 }, () => t.call('GET', '/api/v1/me', { key })),
        );
        expect(batch.every((r) => r.status === 200)).toBe(true);
      }
      const over = await t.call('GET', '/api/v1/me', { key });
      const body = await expectError(over, 429, 'rate_limited');
      expect(body.limit).toBe(KEY_RATE_LIMIT);
      expect(Number(over.headers.get('retry-after'))).toBe(60);
      // Another key of the same organization has its own allowance.
      expect((await t.call('GET', '/api/v1/me', { key: t.seed.keys.sk_test_read })).status).toBe(200);
      // The next window starts afresh.
      t.setNow(new Date(start.getTime() + 60_000));
      expect((await t.call('GET', '/api/v1/me', { key })).status).toBe(200);
    } finally {
      t.setNow(undefined);
    }
  });
});

describe('monthly quota', () => {
  it('counts live calls per organization up to the plan quota, then 429 api_quota_exceeded', async () => {
    const org = await createOrg(t.db, { nombre: 'Quota Test', plan: 'free' });
    const live = (await createApiKey(t.db, { orgId: org.id, kind: 'secret', mode: 'live', scope: 'write' }))
      .key;
    const test = (await createApiKey(t.db, { orgId: org.id, kind: 'secret', mode: 'test', scope: 'write' }))
      .key;
    t.setNow(new Date('2026-11-30T12:00:00Z'));
    try {
      for (let i = 0; i < 100; i++)
        expect((await t.call('GET', '/api/v1/me', { key: live })).status).toBe(200);
      const over = await t.call('GET', '/api/v1/me', { key: live });
      const body = await expectError(over, 429, 'api_quota_exceeded');
      expect(body).toMatchObject({ limit: 100, plan: 'free' });
      expect(Number(over.headers.get('retry-after'))).toBe(12 * 3600);
      // Test keys never use the quota.
      expect((await t.call('GET', '/api/v1/me', { key: test })).status).toBe(200);
      // A new month, a new quota.
      t.setNow(new Date('2026-12-01T00:00:00Z'));
      expect((await t.call('GET', '/api/v1/me', { key: live })).status).toBe(200);
    } finally {
      t.setNow(undefined);
    }
  });

  it('does not count an idempotent replay', async () => {
    const org = await createOrg(t.db, { nombre: 'Replay Quota', plan: 'free' });
    const live = (await createApiKey(t.db, { orgId: org.id, kind: 'secret', mode: 'live', scope: 'write' }))
      .key;
    const post = () =>
      t.call('POST', '/api/test-mode/reset', { key: live, body: {}, headers: { 'idempotency-key': 'same' } });
    await post();
    await post();
    await post();
    const [usage] = await t.db.query<{ count: number }>(
      'SELECT count FROM usage_counters WHERE org_id = $1',
      [org.id],
    );
    expect(usage?.count).toBe(1);
  });

  it('refuses an idempotent call once the quota is used up without running it or storing it, and counts a 4xx', async () => {
    const org = await createOrg(t.db, { nombre: 'Last Calls', plan: 'free' });
    const live = (await createApiKey(t.db, { orgId: org.id, kind: 'secret', mode: 'live', scope: 'write' }))
      .key;
    const period = new Date().toISOString().slice(0, 7);
    await t.db.query('INSERT INTO usage_counters (org_id, period, count) VALUES ($1, $2, 98)', [
      org.id,
      period,
    ]);
    const create = (idem: string, body: unknown) =>
      t.call('POST', '/api/v1/clientes', { key: live, body, headers: { 'idempotency-key': idem } });
    const count = async (sql: string) => (await t.db.query<{ n: number }>(sql, [org.id]))[0]!.n;
    const usage = () => count('SELECT count AS n FROM usage_counters WHERE org_id = $1');
    await expectError(await create('bad', { empresa: '' }), 400, 'invalid_request');
    expect(await usage()).toBe(99);
    expect((await create('last', { empresa: 'Última SA' })).status).toBe(200);
    expect(await usage()).toBe(100);
    for (const idem of ['over', 'over']) {
      const over = await create(idem, { empresa: 'Sobra SA' });
      expect((await expectError(over, 429, 'api_quota_exceeded')).limit).toBe(100);
    }
    expect(await usage()).toBe(100);
    expect(
      await count("SELECT count(*)::int AS n FROM clients WHERE org_id = $1 AND empresa = 'Sobra SA'"),
    ).toBe(0);
    expect(
      await count(
        "SELECT count(*)::int AS n FROM idempotency_keys i JOIN api_keys k ON k.id = i.key_id WHERE k.org_id = $1 AND i.idempotency_key = 'over'",
      ),
    ).toBe(0);
  });
});
