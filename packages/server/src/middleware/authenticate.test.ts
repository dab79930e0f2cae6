import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION } from '../config.js';
import { createApiKey, hashKey, revokeApiKey, rotateApiKey } from '../services/api-keys.js';
import { createOrg } from '../services/orgs.js';
import { expectError } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { ipAllowed } from './authenticate.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const me = (key?: string, headers?: Record<string, string>) => t.call('GET', '/api/v1/me', { key, headers });

describe('authentication', () => {
  it('answers 401 missing_key without an Authorization header', async () => {
    await expectError(await me(), 401, 'missing_key');
    await expectError(await me(undefined, { authorization: '' }), 401, 'missing_key');
    await expectError(await me(undefined, { authorization: 'Bearer' }), 401, 'missing_key');
  });

  it('answers 401 invalid_key for an Authorization header that is there but not "Bearer <key>"', async () => {
    await expectError(await me(undefined, { authorization: 'Basic abc' }), 401, 'invalid_key');
    await expectError(
      await me(undefined, { authorization: `Bearer ${t.seed.keys.sk_test_write} extra` }),
      401,
      'invalid_key',
    );
  });

  it('answers 401 invalid_key for an unknown key of valid shape and for junk', async () => {
    await expectError(await me('sk_test_00000000000000000000000000000000'), 401, 'invalid_key');
    await expectError(await me('not-a-key'), 401, 'invalid_key');
  });

  it('stores keys only as hashes', async () => {
    const rows = await t.db.query<Record<string, unknown>>('SELECT * FROM api_keys');
    const dump = JSON.stringify(rows);
    for (const key of Object.values(t.seed.keys)) expect(dump).not.toContain(key);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(String(r.secret_hash)))).toBe(true);
    expect(String(rows[0]?.display)).toMatch(/^(sk|pk)_(test|live)_\.\.\.[0-9A-Za-z]{4}$/);
  });

  it('stops accepting a revoked key at once, even after it was cached', async () => {
    const { key, record } = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'secret',
      mode: 'test',
      scope: 'read',
    });
    expect((await me(key)).status).toBe(200);
    expect(await revokeApiKey(t.db, record.id)).toBe(true);
    await expectError(await me(key), 401, 'invalid_key');
  });

  it('rotates a key: the same settings, the old one until its grace ends, its webhook endpoints kept', async () => {
    const { key, record } = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'secret',
      mode: 'test',
      scope: 'write',
    });
    const hook = await t.call('POST', '/api/v1/webhooks', {
      key,
      body: { url: 'https://hooks.example.com/rotation', eventos: ['quote.created'] },
    });
    expect(hook.status).toBe(200);
    const hookId = ((await hook.json()) as { data: { id: string } }).data.id;
    const rotated = await rotateApiKey(t.db, record.id, 0);
    expect(rotated.record).toMatchObject({
      kind: 'secret',
      mode: 'test',
      scope: 'write',
      api_version: record.api_version,
    });
    expect(rotated.previous.id).toBe(record.id);
    await expectError(await me(key), 401, 'invalid_key');
    expect((await me(rotated.key)).status).toBe(200);
    // The endpoint the old key made now belongs to the new one, and stays enabled.
    const [endpoint] = await t.db.query<{ key_id: string; status: string }>(
      'SELECT key_id, status FROM webhook_endpoints WHERE id = $1',
      [hookId],
    );
    expect(endpoint).toEqual({ key_id: rotated.record.id, status: 'active' });
    await expect(rotateApiKey(t.db, record.id, 1)).rejects.toMatchObject({
      status: 409,
      code: 'invalid_state',
    });
    await expect(rotateApiKey(t.db, rotated.record.id, 721)).rejects.toMatchObject({ status: 400 });
    // A key in its grace period is rotated once, and makes no endpoints that would outlive it.
    const graced = await rotateApiKey(t.db, rotated.record.id, 2);
    await expect(rotateApiKey(t.db, rotated.record.id, 2)).rejects.toMatchObject({
      status: 409,
      code: 'invalid_state',
    });
    expect((await me(rotated.key)).status).toBe(200);
    await expectError(
      await t.call('POST', '/api/v1/webhooks', {
        key: rotated.key,
        body: { url: 'https://hooks.example.com/late', eventos: [] },
      }),
      409,
      'invalid_state',
    );
    expect((await me(graced.key)).status).toBe(200);
    await expect(rotateApiKey(t.db, '00000000-0000-0000-0000-000000000000', 1)).rejects.toMatchObject({
      status: 404,
    });
  });

  it('counts only keys that still work toward the plan’s number of keys', async () => {
    const org = await createOrg(t.db, { nombre: 'Llaves Libres', plan: 'free' });
    const make = (expiresAt: Date | null = null) =>
      createApiKey(t.db, { orgId: org.id, kind: 'secret', mode: 'test', scope: 'read', expiresAt });
    const { record } = await make(new Date(Date.now() + 60_000));
    await make();
    await expect(make()).rejects.toMatchObject({ status: 402, code: 'plan_limit_reached' });
    // The first key expires: a new one fits again.
    await t.db.query("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1", [
      record.id,
    ]);
    expect((await make()).key).toMatch(/^sk_test_/);
  });

  it('refuses an expired key', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const { key } = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'secret',
      mode: 'test',
      scope: 'read',
      expiresAt,
    });
    expect((await me(key)).status).toBe(200);
    t.setNow(new Date(expiresAt.getTime() + 1));
    try {
      const body = await expectError(await me(key), 401, 'invalid_key');
      expect(body.error).toMatch(/expired/);
    } finally {
      t.setNow(undefined);
    }
  });

  /** A test-mode read key usable only from `ips`. */
  const readKeyFrom = async (ips: string[]) =>
    (await createApiKey(t.db, { orgId: t.seed.org.id, kind: 'secret', mode: 'test', scope: 'read', ips }))
      .key;

  it('accepts a secret key only from its allowed IPs', async () => {
    const key = await readKeyFrom(['203.0.113.7', '198.51.100.0/24']);
    expect((await me(key, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
    expect((await me(key, { 'x-forwarded-for': '198.51.100.42' })).status).toBe(200);
    await expectError(await me(key, { 'x-forwarded-for': '203.0.113.8' }), 401, 'invalid_key');
    // The load balancer appends the address it saw; what comes before is the client's own text.
    expect((await me(key, { 'x-forwarded-for': '203.0.113.8, 203.0.113.7' })).status).toBe(200);
    await expectError(await me(key, { 'x-forwarded-for': '203.0.113.7, 203.0.113.8' }), 401, 'invalid_key');
    // Without a proxy header the address is the socket's, which @hono/node-server hands to
    // app.fetch with the Node request: it must reach the app through the configuration fast path.
    const fromSocket = (remoteAddress: string) =>
      t.app.fetch(
        new Request('http://localhost/api/v1/me', { headers: { authorization: `Bearer ${key}` } }),
        { incoming: { socket: { remoteAddress } } },
      );
    expect((await fromSocket('::ffff:203.0.113.7')).status).toBe(200);
    await expectError(await fromSocket('203.0.113.8'), 401, 'invalid_key');
  });

  it('checks the allowlist of a key used through the agent interface against the caller’s address', async () => {
    const key = await readKeyFrom(['203.0.113.7']);
    const listQuotes = async (from: string) => {
      const res = await t.call('POST', '/mcp', {
        key,
        headers: { 'x-forwarded-for': from, accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_quotes', arguments: {} } },
      });
      return res.status === 200
        ? ((await res.json()) as { result: { isError?: boolean } }).result
        : res.status;
    };
    // Each tool's operation sees the address the interface was called from, as REST does.
    expect(await listQuotes('203.0.113.7')).not.toHaveProperty('isError');
    expect(await listQuotes('203.0.113.8')).toBe(401);
  });

  it('refuses an IP entry that is not an address or a CIDR range with 400 invalid_request, storing nothing', async () => {
    const count = async () => (await t.db.query('SELECT id FROM api_keys')).length;
    const before = await count();
    for (const [ips, message] of [
      [
        ['10.0.0.0/33'],
        'ips[0]: "10.0.0.0/33" has a prefix length that is not a whole number from 0 to 32 (IPv4)',
      ],
      [['203.0.113.7', '10.0.0.0/abc'], 'ips[1]: "10.0.0.0/abc" has a prefix length that is not'],
      [
        ['2001:db8::/129'],
        'ips[0]: "2001:db8::/129" has a prefix length that is not a whole number from 0 to 128 (IPv6)',
      ],
      [['not-an-ip'], 'ips[0]: "not-an-ip" is not an IP address or CIDR range'],
      [['10.0.0.0/8/8'], 'ips[0]: "10.0.0.0/8/8" is not an IP address or CIDR range'],
      [['10.0.0.0/'], 'ips[0]: "10.0.0.0/" has a prefix length that is not'],
      [[''], 'ips[0]: "" is not an IP address or CIDR range'],
    ] as const) {
      const refused = readKeyFrom([...ips]);
      await expect(refused, ips.join(' ')).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
      await expect(refused, ips.join(' ')).rejects.toThrow(message);
    }
    expect(await count()).toBe(before);
    // Every form the allowlist takes, stored trimmed.
    const { record } = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'secret',
      mode: 'test',
      scope: 'read',
      ips: [' 203.0.113.7 ', '10.0.0.0/8', '0.0.0.0/0', '2001:db8::1', '2001:db8::/32', '::/0'],
    });
    expect(record.allowed_ips).toEqual([
      '203.0.113.7',
      '10.0.0.0/8',
      '0.0.0.0/0',
      '2001:db8::1',
      '2001:db8::/32',
      '::/0',
    ]);
  });

  it('answers 401, never 500, for a key whose stored allowlist holds entries that are not addresses', async () => {
    const key = await readKeyFrom(['203.0.113.7']);
    // Rows stored before entries were checked: a malformed entry matches nothing.
    await t.db.query(`UPDATE api_keys SET allowed_ips = $2 WHERE secret_hash = $1`, [
      hashKey(key),
      ['10.0.0.0/33', '10.0.0.0/abc', 'not-an-ip', '203.0.113.0/24'],
    ]);
    await expectError(await me(key, { 'x-forwarded-for': '10.0.0.1' }), 401, 'invalid_key');
    expect((await me(key, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(200);
    expect(ipAllowed('10.0.0.1', ['10.0.0.0/33', '10.0.0.0/abc', '::/200', 'x', '10.0.0.0/8/8'])).toBe(false);
    expect(ipAllowed('10.0.0.1', ['10.0.0.0/33', '10.0.0.0/8'])).toBe(true);
  });

  it('pins a new key to the current API version and answers with the version the key stores', async () => {
    const { key, record } = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'secret',
      mode: 'test',
      scope: 'read',
    });
    const [stored] = await t.db.query<{ api_version: string }>(
      'SELECT api_version FROM api_keys WHERE id = $1',
      [record.id],
    );
    expect(stored?.api_version).toBe(API_VERSION);
    const res = await me(key);
    const body = (await res.json()) as { data: { key: { api_version: string } } };
    expect(body.data.key.api_version).toBe(stored?.api_version);
    expect(res.headers.get('service-version')).toBe(stored?.api_version);
    // Naming that version explicitly is the same request.
    expect((await me(key, { 'service-version': API_VERSION })).status).toBe(200);
  });

  it('refuses a Service-Version the service does not have with 400 invalid_request, before anything runs', async () => {
    await expectError(
      await me(t.seed.keys.sk_test_read, { 'service-version': '2020-01-01' }),
      400,
      'invalid_request',
    );
    const quotes = async () => (await t.db.query('SELECT 1 FROM quotes')).length;
    const before = await quotes();
    const created = await t.call('POST', '/api/v1/cotizaciones', {
      key: t.seed.keys.sk_test_write,
      headers: { 'service-version': '2099-01-01' },
      body: {
        items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 100 }],
        cliente: { empresa: 'Versión SA' },
      },
    });
    const error = await expectError(created, 400, 'invalid_request');
    expect(error.error).toContain('2099-01-01');
    expect(await quotes()).toBe(before);
  });
});

describe('authorization', () => {
  it('lets a read key read but not write (403 insufficient_scope)', async () => {
    expect((await me(t.seed.keys.sk_test_read)).status).toBe(200);
    await expectError(
      await t.call('POST', '/api/test-mode/reset', { key: t.seed.keys.sk_test_read, body: {} }),
      403,
      'insufficient_scope',
    );
  });

  it('refuses publishable keys outside their operations', async () => {
    const origin = { origin: 'http://127.0.0.1:8787' };
    await expectError(await me(t.seed.keys.pk_test, origin), 403, 'insufficient_scope');
    await expectError(
      await t.call('POST', '/api/test-mode/reset', { key: t.seed.keys.pk_test, body: {}, headers: origin }),
      403,
      'insufficient_scope',
    );
  });

  it('limits a restricted key to the resources and levels it was granted', async () => {
    const { key } = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'restricted',
      mode: 'test',
      scope: 'write',
      permissions: { cotizaciones: 'read' },
    });
    expect(key).toMatch(/^rk_test_/);
    expect((await me(key)).status).toBe(200);
    await expectError(
      await t.call('POST', '/api/test-mode/reset', { key, body: {} }),
      403,
      'insufficient_scope',
    );
  });

  it('refuses a new key over the plan limit with 402 plan_limit_reached', async () => {
    const { PLANS } = await import('../services/plans.js');
    const free = t.seed.free_org.id;
    // The seed issues the free organization's two keys without the limit; the next one is refused.
    await expect(
      createApiKey(t.db, { orgId: free, kind: 'secret', mode: 'test', scope: 'read' }),
    ).rejects.toMatchObject({
      status: 402,
      code: 'plan_limit_reached',
      extra: { limit: PLANS.free.maxKeys, plan: 'free' },
    });
  });
});
