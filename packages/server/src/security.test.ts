import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from './openapi/operations.js';
import { createApiKey } from './services/api-keys.js';
import { createTestContext, type TestContext } from './testing/harness.js';

/** Every operation of the API, taken from the same list the OpenAPI document is built from. */
let t: TestContext;
const ORIGIN = { origin: 'http://127.0.0.1:8787' };
const url = (path: string) =>
  (path.startsWith('/api/') ? path : `/api/v1${path}`)
    .replace(/\{id\}/g, '00000000-0000-4000-8000-000000000000')
    .replace(/\{job\}/g, '00000000-0000-4000-8000-000000000001');

beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

describe('who may call what, on every operation', () => {
  it('refuses publishable keys on every operation not marked for them, even from an allowed origin', async () => {
    for (const op of OPERATIONS.filter((o) => !o.publishable)) {
      const res = await t.call(op.method.toUpperCase(), url(op.path), {
        key: t.seed.keys.pk_test,
        headers: ORIGIN,
        body: op.method === 'get' ? undefined : {},
      });
      const body = (await res.json()) as { code: string };
      expect({ op: `${op.method} ${op.path}`, status: res.status, code: body.code }).toEqual({
        op: `${op.method} ${op.path}`,
        status: 403,
        code: 'insufficient_scope',
      });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('sends no CORS headers for the quote list by HEAD, nor to a preflight asking for GET', async () => {
    const head = await t.call('HEAD', url('/cotizaciones'), { headers: ORIGIN });
    expect(head.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await t.call('OPTIONS', url('/cotizaciones'), {
      headers: { ...ORIGIN, 'access-control-request-method': 'GET' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const creation = await t.call('OPTIONS', url('/cotizaciones'), {
      headers: { ...ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(creation.status).toBe(204);
    expect(creation.headers.get('access-control-allow-origin')).toBe(Object.values(ORIGIN)[0]);
  });

  it('sends no CORS headers on an operation publishable keys cannot call, whatever the key', async () => {
    for (const op of OPERATIONS.filter((o) => !o.publishable)) {
      for (const key of [undefined, 'sk_test_00000000000000000000000000000000']) {
        const res = await t.call(op.method.toUpperCase(), url(op.path), {
          key,
          headers: ORIGIN,
          body: op.method === 'get' ? undefined : {},
        });
        expect({ op: `${op.method} ${op.path}`, status: res.status }).toEqual({
          op: `${op.method} ${op.path}`,
          status: 401,
        });
        expect({
          op: `${op.method} ${op.path}`,
          cors: res.headers.get('access-control-allow-origin'),
        }).toEqual({
          op: `${op.method} ${op.path}`,
          cors: null,
        });
      }
    }
  });

  it('refuses read keys on every write operation', async () => {
    for (const op of OPERATIONS.filter((o) => o.scope === 'write')) {
      const res = await t.call(op.method.toUpperCase(), url(op.path), {
        key: t.seed.keys.sk_test_read,
        body: op.method === 'get' ? undefined : {},
      });
      expect({ op: `${op.method} ${op.path}`, status: res.status }).toEqual({
        op: `${op.method} ${op.path}`,
        status: 403,
      });
    }
  });

  it('keeps a restricted key to what it was granted, on every operation', async () => {
    const { key } = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'restricted',
      mode: 'test',
      scope: 'write',
      permissions: { clientes: 'read' },
    });
    for (const op of OPERATIONS.filter((o) => o.path !== '/me' && !o.publishable)) {
      const res = await t.call(op.method.toUpperCase(), url(op.path), {
        key,
        body: op.method === 'get' ? undefined : {},
      });
      const allowed = op.path.startsWith('/clientes') && op.scope === 'read';
      if (!allowed)
        expect({ op: `${op.method} ${op.path}`, status: res.status }).toEqual({
          op: `${op.method} ${op.path}`,
          status: 403,
        });
      else expect(res.status).not.toBe(403);
    }
  });

  it('answers 401 without a key on every operation', async () => {
    for (const op of OPERATIONS) {
      const res = await t.call(op.method.toUpperCase(), url(op.path), {
        body: op.method === 'get' ? undefined : {},
      });
      expect({ op: `${op.method} ${op.path}`, status: res.status }).toEqual({
        op: `${op.method} ${op.path}`,
        status: 401,
      });
    }
  });
});
