import { previewRequestSchema } from '@svc/core';
import { Hono } from 'hono';
import { clientIp } from '../http/client-ip.js';
import { readJson } from '../http/json-body.js';
import { onlyParams } from '../http/query.js';
import { endpoint } from '../middleware/endpoint.js';
import { completeHeaders } from '../middleware/request-context.js';
import { assertCouponAttemptsLeft, recordCouponFailure } from '../services/coupon-attempts.js';
import type { ElementsConfigCache } from '../services/elements-config.js';
import { previewQuote } from '../services/preview.js';
import type { AppDeps, AppEnv } from '../types.js';
import { parse } from './quotes.js';

/** Per-IP allowances of publishable keys (README, "Limits"). */
export const PUBLISHABLE_LIMITS = {
  preview: { name: 'preview', limit: 120, windowMs: 60_000 },
  draft: { name: 'draft', limit: 20, windowMs: 60_000 },
  create: { name: 'create', limit: 30, windowMs: 60_000 },
} as const;

/** The widget's configuration and basket preview (`/elements/…`). */
export function elementsRoutes(deps: AppDeps, configs: ElementsConfigCache) {
  return new Hono<AppEnv>()
    .get(
      '/elements/config',
      endpoint(deps, { resource: 'elements', level: 'read', publishable: true }),
      async (c) => {
        onlyParams(c.req.query(), []);
        const config = await configs.get(c.get('auth'));
        const headers = {
          ETag: config.etag,
          // Short and public: a page view re-validates within a minute, and the 304 costs nothing.
          'Cache-Control': 'public, max-age=60',
          Vary: 'Origin, Authorization',
        };
        const match = c.req.header('if-none-match');
        if (match?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === config.etag)) {
          return new Response(null, { status: 304, headers: completeHeaders(c, headers) });
        }
        // The page-view hot path: bytes encoded once, headers as one plain object.
        return new Response(config.body, {
          status: 200,
          headers: completeHeaders(c, { ...headers, 'Content-Type': 'application/json; charset=UTF-8' }),
        });
      },
    )
    .post(
      '/elements/preview',
      endpoint(deps, {
        resource: 'elements',
        level: 'write',
        publishable: true,
        perIp: PUBLISHABLE_LIMITS.preview,
        // It writes nothing, so there is nothing to replay.
        skipIdempotency: true,
      }),
      async (c) => {
        const auth = c.get('auth');
        const body = parse(previewRequestSchema, await readJson(c));
        const ip = clientIp(c, deps.config.trustProxy);
        const limited = auth.key.kind === 'publishable' && body.cupon !== undefined;
        if (limited) await assertCouponAttemptsLeft(deps.db, auth.org.id, ip, deps.now());
        const data = await previewQuote(deps, auth, body);
        if (limited && data.cupon && !data.cupon.valid)
          await recordCouponFailure(deps.db, auth.org.id, ip, deps.now());
        return c.json({ data });
      },
    );
}
