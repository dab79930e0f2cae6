/**
 * Every error `code` the service answers with, as a list so that tests can go through all of
 * them (the widget's messages, for one). The spec's 402 `subscription_required` and 503
 * `tax_catalog_unavailable` are not here: every operation is open to every plan, and tax rates
 * come from the line, its product or the organization, never from a catalog that could be down.
 */
export const ERROR_CODES = [
  'invalid_request',
  'invalid_json',
  'invalid_idempotency_key',
  'invalid_url',
  'invalid_client',
  'missing_key',
  'invalid_key',
  'plan_limit_reached',
  'insufficient_scope',
  'integration_limit_reached',
  'origin_not_allowed',
  'not_found',
  'method_not_allowed',
  'invalid_state',
  'idempotency_in_progress',
  'idempotency_key_reused',
  'payload_too_large',
  'rate_limited',
  'api_quota_exceeded',
  'internal_error',
  'fx_unavailable',
  'fiscal_unavailable',
  'idempotency_unavailable',
  'service_unavailable',
] as const;

/** An error `code` of the service (see {@link ERROR_CODES}). */
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Where an error code is documented: its entry on the `/docs/errors` page the service itself
 * serves, at `origin` (its `PUBLIC_URL`).
 */
export const docUrl = (code: ErrorCode | string, origin: string): string => `${origin}/docs/errors#${code}`;
