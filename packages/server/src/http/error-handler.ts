import { docUrl } from '@svc/core';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { isConnectionError } from '../db/database.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../logger.js';
import { StoredMeanwhile } from '../middleware/idempotency-batched.js';
import type { AppEnv } from '../types.js';
import { unstorableText } from './json-body.js';

/** PostgreSQL's `lock_not_available`: a lock wait ran past `lock_timeout`. */
const LOCK_NOT_AVAILABLE = '55P03';
/** PostgreSQL's `foreign_key_violation`: a row named by the write was deleted meanwhile. */
const FOREIGN_KEY_VIOLATION = '23503';

/**
 * The origin of `doc_url` in error bodies: the service's own `PUBLIC_URL`, where `/docs/errors`
 * lists every code. Set by `createApp` (a process serves one `PUBLIC_URL`); here, not per request,
 * because the fast paths answer before a request has a context.
 */
let docsOrigin = 'http://127.0.0.1:8787';

/** Points `doc_url` at `/docs/errors` of `publicUrl` (see {@link errorDocUrl}). */
export function setErrorDocsOrigin(publicUrl: string): void {
  docsOrigin = publicUrl;
}

/** `doc_url` of an error body: the code's entry on this service's `/docs/errors` page. */
export const errorDocUrl = (code: string): string => docUrl(code, docsOrigin);

/** The flat error body of every 4xx and 5xx response. */
export function errorResponse(c: Context<AppEnv>, error: ApiError): Response {
  return c.json(errorBody(error, c.get('requestId')), error.status as 400, error.headers);
}

/** The flat error body, as {@link errorResponse} sends it (the preview's fast path sends it too). */
export const errorBody = (error: ApiError, request_id: string) => ({
  error: error.message,
  code: error.code,
  ...error.extra,
  request_id,
  doc_url: errorDocUrl(error.code),
});

/**
 * The one place that turns a thrown error into HTTP. Expected failures are {@link ApiError}s; a
 * lost database answers 503 so clients retry; anything else is a bug, logged in full and answered
 * with a generic 500 that reveals nothing.
 */
export function createErrorHandler(logger: Logger) {
  return function onError(error: Error, c: Context<AppEnv>): Response {
    return errorResponse(c, apiErrorFor(error, logger, c.get('requestId')));
  };
}

/** PostgreSQL's codes for text it cannot store: U+0000 in `text` (22021) or in `jsonb` (22P05). */
const TEXT_NOT_STORABLE = new Set(['22021', '22P05']);

/**
 * What {@link createErrorHandler} answers for a thrown error, logged as it logs it: the same
 * decision for the paths that answer before Hono builds a context (the preview's fast path).
 */
export function apiErrorFor(error: unknown, logger: Logger, requestId: string): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof HTTPException) {
    const status = error.status;
    const code = status === 413 ? 'payload_too_large' : status === 404 ? 'not_found' : 'invalid_request';
    return new ApiError(status, code, error.message || 'Bad request.');
  }
  if (error instanceof StoredMeanwhile) {
    // Not a failure: the idempotency middleware replays the response stored meanwhile, and this
    // answer is never sent.
    return new ApiError(
      409,
      'idempotency_in_progress',
      'A duplicate of this request was answered meanwhile.',
    );
  }
  if (TEXT_NOT_STORABLE.has((error as { code?: string } | null)?.code ?? '')) {
    // U+0000 from an input not checked where it was read (a form field, an agent's argument):
    // PostgreSQL refuses it before anything is written, and it is the caller's input.
    return unstorableText('text');
  }
  if ((error as { code?: string } | null)?.code === FOREIGN_KEY_VIOLATION) {
    // A client or product the request names was deleted between its reading and its writing
    // (a DELETE of one that no document named yet): the write rolled back whole.
    return new ApiError(
      409,
      'invalid_state',
      'A client or product this request names was deleted meanwhile. Nothing was written.',
    );
  }
  if ((error as { code?: string } | null)?.code === LOCK_NOT_AVAILABLE) {
    // A lock wait ran past the transaction's lock_timeout (an idempotent request bounds its
    // waits): nothing committed, and the same request may simply be retried.
    logger.warn('lock wait timed out', { request_id: requestId, error: String(error) });
    return new ApiError(
      503,
      'service_unavailable',
      'The service is busy. Retry shortly.',
      {},
      { 'Retry-After': '1' },
    );
  }
  if (isConnectionError(error)) {
    logger.warn('database unavailable', { request_id: requestId, error: String(error) });
    return new ApiError(
      503,
      'service_unavailable',
      'The service is temporarily unavailable. Retry shortly.',
      {},
      { 'Retry-After': '1' },
    );
  }
  logger.error('unhandled error', {
    request_id: requestId,
    error: String(error),
    stack: (error as Error | null)?.stack,
  });
  return new ApiError(500, 'internal_error', 'Something went wrong on our side. Retry later.');
}
