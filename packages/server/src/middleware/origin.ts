import type { Context } from 'hono';
import type { Database } from '../db/database.js';
import { memoize } from '../memo.js';
import type { ApiKeyRecord } from '../services/api-keys.js';

const origins = new WeakMap<Context, string | null>();

/**
 * The origin a browser request comes from: its `Origin` header, or, when there is none, the origin
 * of its `Referer`. Null when neither gives one (server-side callers, privacy settings).
 */
export function requestOrigin(c: Context): string | null {
  // CORS and the key's origin check both ask: parse the URL once per request.
  let origin = origins.get(c);
  if (origin === undefined) {
    origin = originOf(c.req.header('origin'), c.req.header('referer'));
    origins.set(c, origin);
  }
  return origin;
}

/**
 * The origin named by an `Origin` header, or, only when there is no such header, by the origin of
 * a `Referer`; null for neither. `Origin: null` (an opaque origin: a sandboxed frame, a `data:` or
 * `file:` page, a redirect across sites) is present and stays `'null'`, which no allowlist holds:
 * its Referer is not asked, and the request is refused (design.md section 4).
 */
export function originOf(
  header: string | null | undefined,
  referer: string | null | undefined,
): string | null {
  if (header) return header === 'null' ? OPAQUE_ORIGIN : normalize(header);
  return referer ? normalize(referer) : null;
}

/** What {@link originOf} gives for `Origin: null`. */
export const OPAQUE_ORIGIN = 'null';

// Origins seen recently, normalised: parsing a URL is the dearest step of a cached page view,
// and a site sends the same few origins again and again.
const normalize = memoize(parseOrigin, 1_000);

function parseOrigin(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}

const LOCAL_DEV = /^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?$/;

/**
 * Whether `origin` is on an allowlist: exact origins, or `https://*.shop.example`, which matches
 * any subdomain (at any depth) of shop.example over https but not shop.example itself. Test keys
 * also accept http://localhost and http://127.0.0.1 on any port.
 */
export function originAllowed(origin: string, allowlist: readonly string[], mode: 'test' | 'live'): boolean {
  if (mode === 'test' && LOCAL_DEV.test(origin)) return true;
  for (const entry of allowlist) {
    if (entry === origin) return true;
    if (entry.startsWith('https://*.')) {
      const suffix = entry.slice('https://*'.length); // ".shop.example" (with an optional :port)
      // A wildcard over one label (https://*.com, refused when stored since) matches nothing.
      const dot = suffix.indexOf('.', 1);
      const colon = suffix.indexOf(':');
      if (
        dot > 1 &&
        (colon < 0 || dot < colon) &&
        origin.startsWith('https://') &&
        origin.endsWith(suffix) &&
        origin.length > 'https://'.length + suffix.length
      ) {
        return true;
      }
    }
  }
  return false;
}

/** A key's origin check: its own allowlist and mode. */
export const keyAllowsOrigin = (key: ApiKeyRecord, origin: string | null): boolean =>
  origin !== null && originAllowed(origin, key.allowed_origins, key.mode);

/**
 * Whether some active publishable key allows `origin`: the question a CORS preflight asks, since
 * it carries no key. Answers are cached for a minute per origin.
 */
export class PreflightOrigins {
  readonly #db: Database;
  readonly #cache = new Map<string, { allowed: boolean; at: number }>();

  constructor(db: Database) {
    this.#db = db;
  }

  clear(): void {
    this.#cache.clear();
  }

  async allows(origin: string): Promise<boolean> {
    const hit = this.#cache.get(origin);
    if (hit && Date.now() - hit.at < 60_000) return hit.allowed;
    const rows = await this.#db.query<{ allowed_origins: string[]; mode: 'test' | 'live' }>(
      `SELECT allowed_origins, mode FROM api_keys WHERE kind = 'publishable' AND revoked_at IS NULL
         AND (expires_at IS NULL OR expires_at > now())
         AND ($1 = ANY(allowed_origins) OR mode = 'test' OR EXISTS (SELECT 1 FROM unnest(allowed_origins) o WHERE o LIKE 'https://*.%'))`,
      [origin],
    );
    const allowed = rows.some((row) => originAllowed(origin, row.allowed_origins, row.mode));
    if (this.#cache.size > 5_000) this.#cache.clear();
    this.#cache.set(origin, { allowed, at: Date.now() });
    return allowed;
  }
}
