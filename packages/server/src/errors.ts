import type { ErrorCode } from '@svc/core';

/** Extra fields an error body may carry beside `error` and `code` (`reason`, `limit`, `plan`…). */
export type ErrorExtra = Record<string, string | number | boolean | null>;

/**
 * The only thing routes, middleware and services throw for an expected failure. The app's error
 * handler turns it into the flat body `{ error, code, request_id, doc_url, ...extra }`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extra: ErrorExtra = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** 400 `invalid_request` with a message that names what is wrong. */
export const invalidRequest = (message: string, extra?: ErrorExtra) =>
  new ApiError(400, 'invalid_request', message, extra);

/** 404 `not_found` for a resource that does not exist in the key's organization and mode. */
export const notFound = (what = 'Resource') => new ApiError(404, 'not_found', `${what} not found.`);

/** 409 `invalid_state`: the operation is not allowed in the current status; nothing was applied. */
export const invalidState = (message: string) => new ApiError(409, 'invalid_state', message);
