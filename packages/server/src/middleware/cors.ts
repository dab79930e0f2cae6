import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../types.js';
import { type PreflightOrigins, requestOrigin } from './origin.js';

export const CORS_ALLOW_METHODS = 'GET, POST';
// design.md section 4's list. The widget's Accept-Language (one of five locales) is a header every
// origin may send without asking, so it is not listed.
export const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key, Service-Version';
export const CORS_EXPOSE_HEADERS = 'Service-Request-Id, Service-Version, Idempotent-Replayed, Retry-After';

/** Adds the CORS headers that let `origin` read the response. */
export function allowOrigin(response: Response, origin: string): Response {
  try {
    response.headers.set('Access-Control-Allow-Origin', origin);
    response.headers.append('Vary', 'Origin');
    response.headers.set('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
    return response;
  } catch {
    return allowOrigin(new Response(response.body, response), origin);
  }
}

/**
 * CORS for the operations a publishable key may call, and only for them. A preflight carries no
 * key, so it is answered 204 with CORS headers when some active publishable key allows the
 * origin, and with none otherwise. On the actual request, the headers are added when the key
 * presented allows the origin (see `endpoint()`); a request without a valid key gets them when
 * some key allows the origin, so the widget can read "invalid key" and explain it.
 */
export function publishableCors(preflight: PreflightOrigins): MiddlewareHandler<AppEnv> {
  return async function publishableCorsMiddleware(c, next) {
    const origin = requestOrigin(c);
    if (c.req.method === 'OPTIONS') {
      const headers = new Headers({ Vary: 'Origin' });
      if (origin && c.req.header('origin') && (await preflight.allows(origin))) {
        headers.set('Access-Control-Allow-Origin', origin);
        headers.set('Access-Control-Allow-Methods', CORS_ALLOW_METHODS);
        headers.set('Access-Control-Allow-Headers', CORS_ALLOW_HEADERS);
        // design.md section 4 lists them on the preflight too (browsers read them on the response).
        headers.set('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
        headers.set('Access-Control-Max-Age', '600');
      }
      return new Response(null, { status: 204, headers });
    }
    await next();
    if (!origin || !c.req.header('origin') || c.get('headersComplete')) return;
    if (c.get('corsOrigin') === origin || (!c.get('auth') && (await preflight.allows(origin)))) {
      const allowed = allowOrigin(c.res, origin);
      if (allowed !== c.res) c.res = allowed;
    }
  };
}

/** Marks the response of a publishable-key request as readable by its (allowed) origin. */
export const markCorsAllowed = (c: Context<AppEnv>, origin: string) => c.set('corsOrigin', origin);
