import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';
import { clientIp } from '../http/client-ip.js';
import { MCP_CHANNEL_HEADER, MCP_CHANNEL_TOKEN } from '../mcp/channel.js';
import type { KeyWithOrg } from '../services/key-store.js';
import type { VisitorCounters } from '../services/visitor-counters.js';
import type { AppDeps, AppEnv } from '../types.js';
import { authenticate } from './authenticate.js';
import { type Access, authorize } from './authorize.js';
import { markCorsAllowed } from './cors.js';
import { runIdempotent } from './idempotency.js';
import { runIdempotentInBatch } from './idempotency-batched.js';
import { keyAllowsOrigin, OPAQUE_ORIGIN, requestOrigin } from './origin.js';
import { chargeQuota, refuseWhenQuotaUsed } from './quota.js';
import { type DeferredLimit, enforceRateLimit, KEY_RATE_LIMIT } from './rate-limit.js';

/** Options of {@link endpoint}: the access the operation requires, and how it handles retries. */
export interface EndpointOptions extends Access {
  /**
   * For the calls it is true of, the operation stores its own response in the statement that
   * writes, which other requests' writes may share (`runIdempotentInBatch`), instead of the
   * middleware holding a transaction around it. @defaultValue never
   */
  storesOwnResponse?: (auth: KeyWithOrg) => boolean;
  /** Publishable keys: requests allowed per client IP and window for this operation. */
  perIp?: PerIpAllowance;
}

/** An operation's allowance per client IP for publishable keys (see {@link countPerIp}). */
export interface PerIpAllowance {
  name: string;
  limit: number;
  windowMs: number;
  /**
   * On PostgreSQL, leaves the count to the operation's first statement (`c.get('deferredLimit')`,
   * see `FoldedCounter`), sparing a round trip. Requests refused before that statement (bad
   * input, 4xx) are then not counted. @defaultValue false
   */
  countedByOperation?: boolean;
  /**
   * Counts it in this process's memory (see `VisitorCounters`: shared with the other processes
   * within a flush on PostgreSQL) instead of by a statement. @defaultValue by a statement
   */
  inMemory?: VisitorCounters;
}

/** The counter of an operation's per-IP allowance for one organization's visitor. */
export const perIpBucket = (operation: string, orgId: string, ip: string) => `ip:${operation}:${orgId}:${ip}`;

/**
 * Counts a visitor's request against an operation's per-IP allowance (429 when over): in memory,
 * or by a statement, or, for an operation that counts it itself on PostgreSQL, not yet.
 * @returns the allowance left for the operation's statement to count, if it is.
 */
export async function countPerIp(
  deps: AppDeps,
  allowance: PerIpAllowance,
  orgId: string,
  ip: string,
): Promise<DeferredLimit | undefined> {
  const { name, limit, windowMs, countedByOperation, inMemory } = allowance;
  const bucket = perIpBucket(name, orgId, ip);
  if (inMemory) inMemory.enforce(bucket, limit, deps.now(), windowMs);
  else if (countedByOperation && deps.db.kind === 'postgres') return { bucket, limit, windowMs };
  else await enforceRateLimit(deps.db, bucket, limit, deps.now(), windowMs);
  return undefined;
}

/** How long a reservation left `in_progress` by an older version is honoured. */
export const idempotencyStaleSeconds = (deps: AppDeps): number => deps.idempotencyStaleSeconds ?? 60;

/**
 * The pipeline in front of every API operation, in this order: find the key (401), check what it
 * may do (403) and, for a publishable key, where from (403), count it against the per-minute rate
 * (429), then run the operation, through the idempotency store when it is a POST, PATCH or DELETE
 * with `Idempotency-Key`, counting it against the monthly quota unless it is a replay.
 */
export function endpoint(deps: AppDeps, options: EndpointOptions): MiddlewareHandler<AppEnv> {
  const staleSeconds = idempotencyStaleSeconds(deps);
  return async function endpointPipeline(c, next) {
    let auth = await authenticate(c, deps);
    if (c.req.header(MCP_CHANNEL_HEADER) === MCP_CHANNEL_TOKEN) {
      // A tool of the agent interface, running this operation with the caller's key.
      auth = { ...auth, channel: 'mcp' };
      c.set('auth', auth);
    }
    // What the key may do first: a publishable key outside its operations is refused for that
    // (403 insufficient_scope, as the spec says) wherever it is used from.
    authorize(auth, options);
    if (auth.key.kind === 'publishable') {
      // Then where from: a publishable key only works from its merchant's sites.
      const origin = requestOrigin(c);
      if (!keyAllowsOrigin(auth.key, origin)) {
        throw new ApiError(
          403,
          'origin_not_allowed',
          origin === OPAQUE_ORIGIN
            ? 'Publishable keys only work from a page on an allowed origin, not from an opaque origin (Origin: null: a sandboxed frame, a data: or file: page, a redirect across sites).'
            : origin
              ? `This publishable key cannot be used from ${origin}. Add the origin to the key's allowed origins.`
              : 'Publishable keys only work from a browser page on an allowed origin (no Origin or Referer was sent).',
        );
      }
      // CORS only for the operations publishable keys may call (GET /cotizaciones shares a path),
      // and only for a request that sent an Origin (one allowed by its Referer alone is not CORS).
      if (options.publishable && c.req.header('origin')) markCorsAllowed(c, origin!);
    }
    if (auth.key.kind !== 'publishable') {
      await enforceRateLimit(
        deps.db,
        `key:${auth.key.id}`,
        deps.config.keyRateLimit ?? KEY_RATE_LIMIT,
        deps.now(),
      );
    } else if (options.perIp) {
      const ip = clientIp(c, deps.config.trustProxy);
      const deferred = await countPerIp(deps, options.perIp, auth.key.org_id, ip);
      if (deferred) c.set('deferredLimit', deferred);
    }
    const idempotencyKey = c.req.header('idempotency-key');
    const mutating = c.req.method === 'POST' || c.req.method === 'PATCH' || c.req.method === 'DELETE';
    const charge = () => chargeQuota(deps.db, auth, deps.now());
    if (mutating && idempotencyKey !== undefined) {
      const run = options.storesOwnResponse?.(auth) ? runIdempotentInBatch : runIdempotent;
      const replay = await run(c, next, {
        db: deps.db,
        keyId: auth.key.id,
        idempotencyKey,
        staleSeconds,
        charge,
        refuseWhenQuotaUsed: () => refuseWhenQuotaUsed(deps.db, auth, deps.now()),
      });
      if (replay) c.res = replay;
      return;
    }
    await charge();
    await next();
  };
}
