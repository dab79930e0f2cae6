import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../testing/harness.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

describe('GET /me', () => {
  it('returns the organization, scope and mode of the key', async () => {
    const cases = [
      [t.seed.keys.sk_test_write, 'write', 'test'],
      [t.seed.keys.sk_test_read, 'read', 'test'],
      [t.seed.keys.sk_live_write, 'write', 'live'],
    ] as const;
    for (const [key, scope, mode] of cases) {
      const res = await t.call('GET', '/api/v1/me', { key });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const { data } = (await res.json()) as { data: Record<string, unknown> };
      expect(data).toMatchObject({
        org: { id: t.seed.org.id, nombre: 'Estudio Nopal', plan: 'developer' },
        scope,
        mode,
      });
      expect(JSON.stringify(data)).not.toContain(key);
    }
  });
});
