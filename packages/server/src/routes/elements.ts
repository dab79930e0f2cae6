import { previewRequestSchema } from '@svc/core';
import { Hono } from 'hono';
import { clientIp } from '../http/client-ip.js';
import { readJson } from '../http/json-body.js';
import { parse } from '../http/parse.js';
import { onlyParams } from '../http/query.js';
import { endpoint } from '../middleware/endpoint.js';
import { completeHeaders } from '../middleware/request-context.js';
import { assertCouponAttemptsLeftInMemory, recordCouponFailureShared } from '../services/coupon-attempts.js';
import type { CachedConfig, ElementsConfigCache } from '../services/elements-config.js';
import type { KeyWithOrg } from '../services/key-store.js';
import { PUBLISHABLE_LIMITS } from '../services/limits.js';
import { type Preview, previewQuote } from '../services/preview.js';
import type { PreviewCatalog } from '../services/preview-catalog.js';
import type { VisitorCounters } from '../services/visitor-counters.js';
import type { AppDeps, AppEnv } from '../types.js';

/** Where the widget's configuration is served; {@link configFastPath} answers it before routing. */
export const CONFIG_PATH = '/api/v1/elements/config';

/** The answer to GET /elements/config, before it becomes a Fetch or a Node response. */
export interface ConfigAnswer {
  status: 200 | 304;
  headers: Record<string, string>;
  body: Uint8Array<ArrayBuffer> | null;
}

/**
 * The answer to GET /elements/config: 304 when `If-None-Match` names the current entity tag, else
 * the pre-encoded body. `complete` adds what every API response carries (request id, version,
 * CORS), as one plain header object the server writes without building a `Headers`.
 */
export function configAnswer(
  config: CachedConfig,
  ifNoneMatch: string | null | undefined,
  complete: (headers: Record<string, string>) => Record<string, string>,
): ConfigAnswer {
  // One fresh literal per response (`complete` adds to it): no spread on the page-view hot path.
  if (ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === config.etag)) {
    return { status: 304, headers: complete(cachingHeaders(config)), body: null };
  }
  const headers = cachingHeaders(config);
  headers['Content-Type'] = 'application/json; charset=UTF-8';
  // Bytes with their length given: Node sends them in one write together with the headers.
  headers['Content-Length'] = config.length;
  return { status: 200, headers: complete(headers), body: config.body };
}

const cachingHeaders = (config: CachedConfig): Record<string, string> => ({
  ETag: config.etag,
  // Short and public: a page view re-validates within a minute, and the 304 costs nothing.
  'Cache-Control': 'public, max-age=60',
  Vary: 'Origin, Authorization',
});

/**
 * What the basket preview keeps in this process's memory: the visitors' allowances and the
 * catalog it prices with. Shared by the route and its fast path.
 */
export interface PreviewMemory {
  counters: VisitorCounters;
  catalog: PreviewCatalog;
}

/** The widget's configuration and basket preview (`/elements/…`). */
export function elementsRoutes(deps: AppDeps, configs: ElementsConfigCache, memory: PreviewMemory) {
  return new Hono<AppEnv>()
    .get(
      '/elements/config',
      endpoint(deps, { resource: 'elements', level: 'read', publishable: true }),
      async (c) => {
        onlyParams(c.req.query(), []);
        const config = await configs.get(c.get('auth'));
        const answer = configAnswer(config, c.req.header('if-none-match'), (headers) =>
          completeHeaders(c, headers),
        );
        return new Response(answer.body, { status: answer.status, headers: answer.headers });
      },
    )
    .post(
      '/elements/preview',
      endpoint(deps, {
        resource: 'elements',
        level: 'write',
        publishable: true,
        perIp: { ...PREVIEW_PER_IP, inMemory: memory.counters },
        // It writes nothing, so there is nothing to replay.
        skipIdempotency: true,
      }),
      async (c) =>
        c.json({
          data: await previewForVisitor(deps, memory, {
            auth: c.get('auth'),
            json: await readJson(c),
            ip: clientIp(c, deps.config.trustProxy),
          }),
        }),
    );
}

/** Where the basket preview is served; {@link previewFastPath} answers it before routing when it can. */
export const PREVIEW_PATH = '/api/v1/elements/preview';

/** The per-IP allowance of the preview, counted in memory (see {@link PreviewMemory}). */
export const PREVIEW_PER_IP = PUBLISHABLE_LIMITS.preview;

/**
 * The preview's operation once the pipeline has let the request through and counted the visitor's
 * allowance: validates the parsed body, checks the visitor's failed coupons, prices the basket
 * (from memory when memory knows the catalog, see {@link PreviewMemory}) and counts a failed
 * coupon. Shared by the route and its fast path, so that both answer alike.
 */
export async function previewForVisitor(
  deps: AppDeps,
  memory: PreviewMemory,
  request: { auth: KeyWithOrg; json: unknown; ip: string },
): Promise<Preview> {
  const { auth, ip } = request;
  const body = parse(previewRequestSchema, request.json);
  const limited = auth.key.kind === 'publishable' && body.cupon !== undefined;
  if (limited) assertCouponAttemptsLeftInMemory(memory.counters, auth.org.id, ip, deps.now());
  const data = await previewQuote(deps, auth, body, memory.catalog);
  if (limited && data.cupon && !data.cupon.valid)
    await recordCouponFailureShared(memory.counters, deps.db, auth.org.id, ip, deps.now());
  return data;
}
