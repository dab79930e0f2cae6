import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiErrorFor } from './http/error-handler.js';
import { expectError } from './testing/assertions.js';
import { createTestContext, type TestContext } from './testing/harness.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

describe('HTTP conventions', () => {
  it('stamps Service-Request-Id and Service-Version on successes and errors', async () => {
    const ok = await t.call('GET', '/api/v1/me', { key: t.seed.keys.sk_test_read });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('service-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
    expect(ok.headers.get('service-version')).toBe('2026-10-01');
    const missing = await t.call('GET', '/api/v1/me');
    expect(missing.headers.get('service-request-id')).toMatch(/^req_/);
    expect(missing.headers.get('service-version')).toBe('2026-10-01');
    expect(missing.headers.get('service-request-id')).not.toBe(ok.headers.get('service-request-id'));
  });

  it('answers unknown routes with 404 not_found, with or without a key', async () => {
    await expectError(await t.call('GET', '/api/v1/nope'), 404, 'not_found');
    await expectError(
      await t.call('POST', '/api/v1/nope', { key: t.seed.keys.sk_test_write, body: {} }),
      404,
      'not_found',
    );
    await expectError(await t.call('GET', '/nothing-here'), 404, 'not_found');
  });

  it("answers the browser's /favicon.ico with 204 and no body, cacheable, not a 404", async () => {
    const res = await t.call('GET', '/favicon.ico');
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
  });

  it('answers other methods than POST on the stateless agent interface with 405 method_not_allowed', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await t.call(method, '/mcp', { key: t.seed.keys.sk_test_write });
      expect(res.headers.get('allow')).toBe('POST');
      await expectError(res, 405, 'method_not_allowed');
    }
  });

  it('accepts the current Service-Version and refuses another with 400 invalid_request', async () => {
    const ok = await t.call('GET', '/api/v1/me', {
      key: t.seed.keys.sk_test_read,
      headers: { 'service-version': '2026-10-01' },
    });
    expect(ok.status).toBe(200);
    const refused = await t.call('GET', '/api/v1/me', {
      key: t.seed.keys.sk_test_read,
      headers: { 'service-version': '2020-01-01' },
    });
    const body = await expectError(refused, 400, 'invalid_request');
    expect(body.error).toContain('2020-01-01');
    expect(refused.headers.get('service-request-id')).toBe(body.request_id);
    expect(refused.headers.get('service-version')).toBe('2026-10-01');
    // Only the API checks it: the public quote pages and the widget script do not.
    const page = await t.call('GET', '/llms.txt', { headers: { 'service-version': '2020-01-01' } });
    expect(page.status).toBe(200);
  });

  it('refuses U+0000 or a lone surrogate in a body field, or U+0000 in a query, with 400 naming where, and writes nothing', async () => {
    const key = t.seed.keys.sk_test_write;
    const clients = async () =>
      (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM clients'))[0]!.n;
    const before = await clients();
    const cases: [string, string, unknown, string][] = [
      ['POST', '/api/v1/clientes', { empresa: 'a\u0000b' }, 'empresa'],
      [
        'POST',
        '/api/v1/cotizaciones',
        {
          items: [{ descripcion: 'x', cantidad: 1, precio_unitario: 1 }],
          cliente: { empresa: 'ok', notas: '\u0000' },
        },
        'cliente.notas',
      ],
      [
        'POST',
        '/api/v1/cotizaciones',
        { items: [{ descripcion: 'x\u0000', cantidad: 1, precio_unitario: 1 }], cliente: { empresa: 'ok' } },
        'items[0].descripcion',
      ],
      ['POST', '/api/v1/tareas', { ['ti\u0000tulo']: 'x' }, 'ti\\u0000tulo'],
      // A lone surrogate: JSON.stringify writes it as the escape \ud800.
      [
        'POST',
        '/api/v1/clientes',
        { empresa: 'ok', fiscal: { country: 'MX', legal_name: 'a\ud800' } },
        'fiscal.legal_name',
      ],
      [
        'POST',
        '/api/v1/cotizaciones',
        { items: [{ descripcion: '\udc00x', cantidad: 1, precio_unitario: 1 }], cliente: { empresa: 'ok' } },
        'items[0].descripcion',
      ],
      ['GET', '/api/v1/cotizaciones?folio=a%00b', undefined, 'query'],
    ];
    for (const [method, path, body, field] of cases) {
      for (const headers of [{}, { 'Idempotency-Key': `nul-${Math.random()}` }] as Record<string, string>[]) {
        const res = await t.call(method, path, { key, body, headers });
        const error = await expectError(res, 400, 'invalid_request');
        expect(error.error).toBe(
          `${field}: must be text without the NUL character (U+0000) or unpaired surrogates`,
        );
      }
    }
    expect(await clients()).toBe(before);
    // Text read elsewhere (a seller's form, an agent's argument) reaches the database unchecked:
    // its refusal there is the caller's bad input too, not a 500.
    const refusal = await t.db.query('SELECT $1::text', ['a\0']).catch((error: unknown) => error);
    const silent = { debug() {}, info() {}, warn() {}, error() {} };
    expect(apiErrorFor(refusal, silent, 'req_x')).toMatchObject({ status: 400, code: 'invalid_request' });
  });

  it('never answers 500 and never leaks internals for garbage headers', async () => {
    for (const authorization of ['Bearer', 'Basic abc', `Bearer ${'x'.repeat(5000)}`, "Bearer ' OR 1=1 --"]) {
      const res = await t.call('GET', '/api/v1/me', { headers: { authorization } });
      expect(res.status).toBe(401);
      const text = await res.text();
      expect(text).not.toMatch(/SELECT|stack|at .*\.ts/i);
    }
  });
});
