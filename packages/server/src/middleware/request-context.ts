import type { Context, MiddlewareHandler } from 'hono';
import { API_VERSION } from '../config.js';
import { ApiError } from '../errors.js';
import { errorResponse } from '../http/error-handler.js';
import { requestId } from '../ids.js';
import type { AppEnv } from '../types.js';
import { CORS_EXPOSE_HEADERS } from './cors.js';

/**
 * Gives every request an id and every response `Service-Request-Id` and `Service-Version`. Under
 * `/api/`, a `Service-Version` request header other than the one version there is answers 400
 * `invalid_request` (checked here rather than in a middleware of its own: one layer less on every
 * request).
 */
export function requestContext(): MiddlewareHandler<AppEnv> {
  return async function requestContextMiddleware(c, next) {
    const id = requestId();
    c.set('requestId', id);
    const requested = c.req.path.startsWith('/api/') ? c.req.header('service-version') : undefined;
    if (requested !== undefined && requested.trim() !== API_VERSION) {
      c.res = errorResponse(
        c,
        new ApiError(
          400,
          'invalid_request',
          `Service-Version "${requested}" is not supported; use ${API_VERSION}.`,
        ),
      );
    } else {
      await next();
    }
    if (c.get('headersComplete')) return;
    // Assigning c.res makes Hono copy the response: only do it when the headers are immutable.
    const stamped = stampResponse(c.res, id);
    if (stamped !== c.res) c.res = stamped;
  };
}

/**
 * The headers of a response as every middleware would leave them (request id, version, CORS for
 * an allowed origin), as one plain object: the server writes it without building a `Headers`.
 * Marks the response so that middleware leaves it alone. A response that depends on the origin
 * names `Origin` in the `Vary` it passes, whether or not CORS applies.
 */
export function completeHeaders(c: Context<AppEnv>, headers: Record<string, string>): Record<string, string> {
  c.set('headersComplete', true);
  const origin = c.get('corsOrigin');
  return {
    ...headers,
    'Service-Request-Id': c.get('requestId'),
    'Service-Version': API_VERSION,
    ...(origin
      ? { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': CORS_EXPOSE_HEADERS }
      : {}),
  };
}

/** Stamps the request id and version on a finished response (errors and replays included). */
export function stampResponse(response: Response, id: string): Response {
  try {
    response.headers.set('Service-Request-Id', id);
    response.headers.set('Service-Version', API_VERSION);
    return response;
  } catch {
    // Some responses have immutable headers (redirects, fetched bodies): copy them once.
    return stampResponse(new Response(response.body, response), id);
  }
}
