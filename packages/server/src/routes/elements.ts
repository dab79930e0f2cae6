import { previewRequestSchema } from '@svc/core';
import { Hono } from 'hono';
import { acceptedCodings } from '../http/accept-encoding.js';
import { clientIp } from '../http/client-ip.js';
import { etagMatches } from '../http/etag.js';
import { readJson } from '../http/json-body.js';
import { parse } from '../http/parse.js';
import { onlyParams } from '../http/query.js';
import { endpoint, type PerIpAllowance } from '../middleware/endpoint.js';
import { apiHeaders } from '../middleware/request-context.js';
import { assertCouponAttemptsLeftInMemory, recordCouponFailureShared } from '../services/coupon-attempts.js';
import type { CachedConfig, ConfigRepresentation, ElementsConfigCache } from '../services/elements-config.js';
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
  /** Header names and values in turn, as Node's `res.writeHead` takes them (see {@link headerPairs}). */
  headers: string[];
  body: Uint8Array<ArrayBuffer> | null;
}

/** What the configuration's answer depends on in a request, besides the key and its origin. */
export interface ConfigConditions {
  ifNoneMatch: string | null | undefined;
  acceptEncoding: string | null | undefined;
}

/**
 * The answer to GET /elements/config: the representation the request's `Accept-Encoding` prefers
 * (brotli, gzip, or the JSON as is), 304 when `If-None-Match` names that representation's entity
 * tag, else its pre-encoded body. Its headers carry what every API response carries (the request
 * id `id`, the version, CORS for `corsOrigin`, an origin the key allows); they are built once per
 * cached configuration, representation and origin, so that a page view only fills in its id.
 */
export function configAnswer(
  config: CachedConfig,
  conditions: ConfigConditions,
  corsOrigin: string | null | undefined,
  id: string,
): ConfigAnswer {
  const chosen = representation(config, conditions.acceptEncoding);
  const headers = templatesOf(chosen, corsOrigin);
  const notModified = etagMatches(conditions.ifNoneMatch, chosen.etag);
  const template = notModified ? headers.notModified : headers.ok;
  const filled = template.slice();
  filled[headers.idAt] = id;
  return notModified
    ? { status: 304, headers: filled, body: null }
    : { status: 200, headers: filled, body: chosen.body };
}

/** The first representation the request accepts among those kept, or the JSON as is. */
function representation(
  config: CachedConfig,
  acceptEncoding: string | null | undefined,
): ConfigRepresentation {
  for (const coding of acceptedCodings(acceptEncoding)) {
    if (coding === null) return config;
    const encoded = config.encoded[coding];
    if (encoded) return encoded;
  }
  return config;
}

interface HeaderTemplates {
  ok: string[];
  notModified: string[];
  /** Where the request id goes in both. */
  idAt: number;
}

// Per representation (dropped with its cached configuration) and CORS origin. A key's origins
// are few, but a wildcard or a test key's localhost ports could name many: bounded, as memoize is.
const templates = new WeakMap<ConfigRepresentation, Map<string, HeaderTemplates>>();
const ORIGINS_PER_REPRESENTATION = 64;

function templatesOf(chosen: ConfigRepresentation, corsOrigin: string | null | undefined): HeaderTemplates {
  let byOrigin = templates.get(chosen);
  if (!byOrigin) {
    byOrigin = new Map();
    templates.set(chosen, byOrigin);
  }
  const origin = corsOrigin ?? '';
  let built = byOrigin.get(origin);
  if (!built) {
    const notModified = flat(apiHeaders(ID_SLOT, origin, cachingHeaders(chosen)));
    const ok = cachingHeaders(chosen);
    ok['Content-Type'] = 'application/json; charset=UTF-8';
    if (chosen.encoding) ok['Content-Encoding'] = chosen.encoding;
    // Bytes with their length given: Node sends them in one write together with the headers.
    ok['Content-Length'] = chosen.length;
    const okFlat = flat(apiHeaders(ID_SLOT, origin, ok));
    built = { ok: okFlat, notModified, idAt: okFlat.indexOf(ID_SLOT) };
    if (built.idAt !== notModified.indexOf(ID_SLOT)) throw new Error('request id out of place');
    if (byOrigin.size >= ORIGINS_PER_REPRESENTATION) byOrigin.clear();
    byOrigin.set(origin, built);
  }
  return built;
}

const ID_SLOT = '(request id)';

const cachingHeaders = (chosen: ConfigRepresentation): Record<string, string> => ({
  // The request id first, so that it has the same place in a 200 and a 304.
  'Service-Request-Id': ID_SLOT,
  ETag: chosen.etag,
  // Short and public: a page view re-validates within a minute, and the 304 costs nothing.
  'Cache-Control': 'public, max-age=60',
  Vary: 'Origin, Authorization, Accept-Encoding',
});

const flat = (headers: Record<string, string>): string[] => Object.entries(headers).flat();

/** A flat list of header names and values as the pairs a Fetch `Headers` takes. */
export function headerPairs(flatHeaders: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i < flatHeaders.length; i += 2) pairs.push([flatHeaders[i]!, flatHeaders[i + 1]!]);
  return pairs;
}

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
        // Its headers are complete (request id, version, CORS): middleware leaves them alone.
        c.set('headersComplete', true);
        const answer = configAnswer(
          config,
          { ifNoneMatch: c.req.header('if-none-match'), acceptEncoding: c.req.header('accept-encoding') },
          c.get('corsOrigin'),
          c.get('requestId'),
        );
        return new Response(answer.body, { status: answer.status, headers: headerPairs(answer.headers) });
      },
    )
    .post(
      '/elements/preview',
      endpoint(deps, {
        resource: 'elements',
        level: 'write',
        publishable: true,
        perIp: previewPerIp(memory),
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
export const previewPerIp = (memory: PreviewMemory): PerIpAllowance => ({
  ...PUBLISHABLE_LIMITS.preview,
  inMemory: memory.counters,
});

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
