import type { MiddlewareHandler } from 'hono';
import { API_VERSION } from '../config.js';
import { ApiError } from '../errors.js';
import { errorResponse } from '../http/error-handler.js';
import { unstorableText } from '../http/json-body.js';
import { requestId } from '../ids.js';
import type { AppEnv } from '../types.js';
import { CORS_EXPOSE_HEADERS } from './cors.js';

/** Whether the query string holds U+0000 (`%00`), which no text column can store. */
const hasNulInQuery = (url: string): boolean => {
  const query = url.indexOf('?');
  return query !== -1 && url.includes('%00', query);
};

/**
 * Gives every request an id and every response `Service-Request-Id` and `Service-Version`. Under
 * `/api/`, a `Service-Version` request header other than the one version there is answers 400
 * `invalid_request` (checked here rather than in a middleware of its own: one layer less on every
 * request), and so does a query string holding U+0000.
 */
export function requestContext(): MiddlewareHandler<AppEnv> {
  return async function requestContextMiddleware(c, next) {
    const id = requestId();
    c.set('requestId', id);
    const api = c.req.path.startsWith('/api/');
    const requested = api ? c.req.header('service-version') : undefined;
    if (api && hasNulInQuery(c.req.url)) {
      c.res = errorResponse(c, unstorableText('query'));
    } else if (requested !== undefined && requested.trim() !== API_VERSION) {
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
 * Adds to `headers` what every API response carries: the request id, the version, and CORS when
 * `corsOrigin` (an origin the key allows) may read it. Assigned rather than spread: this runs on
 * every cached page view.
 */
export function apiHeaders(
  requestId: string,
  corsOrigin: string | null | undefined,
  headers: Record<string, string>,
): Record<string, string> {
  headers['Service-Request-Id'] = requestId;
  headers['Service-Version'] = API_VERSION;
  if (corsOrigin) {
    headers['Access-Control-Allow-Origin'] = corsOrigin;
    headers['Access-Control-Expose-Headers'] = CORS_EXPOSE_HEADERS;
  }
  return headers;
}

/**
 * Stamps the request id and version on a finished response (errors and replays included). A
 * replayed error already names the request its body came from, and keeps it.
 */
export function stampResponse(response: Response, id: string): Response {
  try {
    if (!response.headers.has('Service-Request-Id')) response.headers.set('Service-Request-Id', id);
    response.headers.set('Service-Version', API_VERSION);
    return response;
  } catch {
    // Some responses have immutable headers (redirects, fetched bodies): copy them once.
    return stampResponse(new Response(response.body, response), id);
  }
}
