import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import type { AppEnv } from '../types.js';
import { createErrorHandler } from './error-handler.js';

/** An app whose one route throws `error`, answered by the service's error handler. */
function appThrowing(error: Error) {
  const app = new Hono<AppEnv>();
  app.onError(createErrorHandler(createLogger('silent')));
  app.get('/', () => {
    throw error;
  });
  return app;
}

describe('the error handler', () => {
  it('answers a lock wait past lock_timeout with a retryable 503, not a 500', async () => {
    const timedOut = Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' });
    const res = await appThrowing(timedOut).request('/');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(((await res.json()) as { code: string }).code).toBe('service_unavailable');
  });

  it('answers a row deleted between reading and writing (a foreign key violation) with 409, not a 500', async () => {
    const gone = Object.assign(
      new Error('insert or update on table "quotes" violates foreign key constraint'),
      {
        code: '23503',
      },
    );
    const res = await appThrowing(gone).request('/');
    expect(res.status).toBe(409);
    const body = (await res.json()) as { code: string; error: string };
    expect(body.code).toBe('invalid_state');
    expect(body.error).not.toContain('quotes');
  });

  it('answers any other unexpected error with a 500 that reveals nothing', async () => {
    const res = await appThrowing(new Error('secret detail')).request('/');
    expect(res.status).toBe(500);
    const body = (await res.json()) as { code: string; error: string };
    expect(body.code).toBe('internal_error');
    expect(body.error).not.toContain('secret');
  });
});
