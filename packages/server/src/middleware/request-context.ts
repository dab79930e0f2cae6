import type { MiddlewareHandler } from 'hono';
import { API_VERSION } from '../config.js';
import { ApiError } from '../errors.js';
import { requestId } from '../ids.js';
import type { AppEnv } from '../types.js';

/**
 * Gives every request an id and every response `Service-Request-Id` and `Service-Version`.
 * A `Service-Version` request header other than the one version there is fails 400.
 */
export function requestContext(): MiddlewareHandler<AppEnv> {
  return async function requestContextMiddleware(c, next) {
    const id = requestId();
    c.set('requestId', id);
    await next();
    // Assigning c.res makes Hono copy the response: only do it when the headers are immutable.
    const stamped = stampResponse(c.res, id);
    if (stamped !== c.res) c.res = stamped;
  };
}

/** 400 `invalid_request` for a `Service-Version` header naming another version. */
export function versionCheck(): MiddlewareHandler<AppEnv> {
  return async function versionCheckMiddleware(c, next) {
    const requested = c.req.header('service-version');
    if (requested !== undefined && requested.trim() !== API_VERSION) {
      throw new ApiError(
        400,
        'invalid_request',
        `Service-Version "${requested}" is not supported; use ${API_VERSION}.`,
      );
    }
    await next();
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
