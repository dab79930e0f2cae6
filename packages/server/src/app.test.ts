import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  it('never answers 500 and never leaks internals for garbage headers', async () => {
    for (const authorization of ['Bearer', 'Basic abc', `Bearer ${'x'.repeat(5000)}`, "Bearer ' OR 1=1 --"]) {
      const res = await t.call('GET', '/api/v1/me', { headers: { authorization } });
      expect(res.status).toBe(401);
      const text = await res.text();
      expect(text).not.toMatch(/SELECT|stack|at .*\.ts/i);
    }
  });
});
