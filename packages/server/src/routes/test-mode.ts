import { Hono } from 'hono';
import { invalidState } from '../errors.js';
import { readNoFields } from '../http/parse.js';
import { endpoint } from '../middleware/endpoint.js';
import { resetTestData } from '../services/test-data.js';
import type { AppDeps, AppEnv } from '../types.js';

/**
 * `POST /api/test-mode/reset`: a test key wipes its organization's sandbox data. With a live key
 * the call is not a sandbox call and fails 409 `invalid_state`, touching nothing.
 */
export function testModeRoutes(deps: AppDeps) {
  return new Hono<AppEnv>().post(
    '/reset',
    endpoint(deps, { resource: 'test_mode', level: 'write' }),
    async (c) => {
      await readNoFields(c);
      const { key, org } = c.get('auth');
      if (key.mode !== 'test') {
        throw invalidState(
          'Only test keys can reset data: this key works on live data, which is never reset.',
        );
      }
      const deleted = await resetTestData(deps.db, org.id);
      return c.json({ data: { reset: true, mode: 'test', deleted } });
    },
  );
}
