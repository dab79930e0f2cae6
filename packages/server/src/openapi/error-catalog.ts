import type { ErrorCode } from '@svc/core';

/** What an error code means: its HTTP status and what to do about it. */
export interface ErrorDoc {
  status: number;
  text: string;
}

/**
 * Every error code the service answers (`ERROR_CODES` of @svc/core; the type makes this list
 * complete), with its status. The OpenAPI document groups each operation's codes by these
 * statuses, and `/docs/errors`, where every error body's `doc_url` points, shows this text.
 */
export const ERROR_DOCS: Record<ErrorCode, ErrorDoc> = {
  invalid_request: {
    status: 400,
    text: 'The request breaks a rule of the operation: the message names the field (or the query parameter) and what is wrong. Some cases add fields, for example `reason` for a coupon that does not apply or a stamping the tax authority refused (`fiscal_rejected`, with `motivo`). Also what Node cannot parse, with its own status: 431 for headers over 16 KiB, 408 for a request that never finished, 400 for one that is not HTTP. Fix the request; retrying it as it is will fail the same way.',
  },
  invalid_json: {
    status: 400,
    text: 'The body is not JSON, not UTF-8, or was sent without `Content-Type: application/json`.',
  },
  invalid_idempotency_key: {
    status: 400,
    text: 'The `Idempotency-Key` header is not 1 to 255 visible ASCII characters (no spaces).',
  },
  invalid_url: {
    status: 400,
    text: 'A webhook URL that is not `https://` to a public host: `http://`, credentials in the URL, `localhost`, private or internal addresses and hosts ending `.internal` or `.local` are refused.',
  },
  invalid_client: {
    status: 400,
    text: '`cliente_id` names no client of the directory in this organization and mode.',
  },
  missing_key: {
    status: 401,
    text: 'No `Authorization: Bearer <key>` header.',
  },
  invalid_key: {
    status: 401,
    text: 'The key is unknown, revoked or expired, or the request comes from an address outside its allowed IPs.',
  },
  plan_limit_reached: {
    status: 402,
    text: "The organization's plan has no room for another client, product or API key. The body adds `resource` (`clients`, `products` or `api_keys`), `limit` and `plan`. Nothing was written.",
  },
  insufficient_scope: {
    status: 403,
    text: "The key may not do this: a read key writing, a restricted key without the resource's permission (the message names it), a publishable key outside the widget's operations, another key on an operation for secret keys only, or a live key on a test helper.",
  },
  integration_limit_reached: {
    status: 403,
    text: 'The organization already has the 100 webhook endpoints that API keys may create.',
  },
  origin_not_allowed: {
    status: 403,
    text: "A publishable key called from a page whose origin (the `Origin` header, else the `Referer`'s) is not on the key's allowed origins. Nothing ran.",
  },
  not_found: {
    status: 404,
    text: 'The record does not exist in the organization and mode of the key (a test key never sees live records), or no route answers the path.',
  },
  method_not_allowed: {
    status: 405,
    text: 'The agent interface (`/mcp`) answers `POST` only: it keeps no session to read (`GET`) or close (`DELETE`).',
  },
  invalid_state: {
    status: 409,
    text: "The operation is not allowed in the record's current state (approving a draft, voiding an invoice that has payments: issue a credit note), a live key asked to reset test data, or a record it names changed meanwhile. Nothing was applied.",
  },
  idempotency_in_progress: {
    status: 409,
    text: 'A request with the same `Idempotency-Key` is still running. Retry after `Retry-After` seconds with the same key: you will get its answer.',
  },
  payload_too_large: {
    status: 413,
    text: 'The body is over 64 KiB.',
  },
  idempotency_key_reused: {
    status: 422,
    text: 'The `Idempotency-Key` was used in the last 24 hours with another body, method or route. Use a new key for a new request.',
  },
  rate_limited: {
    status: 429,
    text: 'Too many requests: 600 a minute per secret or restricted key, and allowances per client IP for publishable keys (AI drafts, failed coupon attempts). Wait `Retry-After` seconds.',
  },
  api_quota_exceeded: {
    status: 429,
    text: "The organization's monthly quota of live calls is used up (test keys do not count). `Retry-After` says how long until it renews, on the 1st of next month (UTC).",
  },
  internal_error: {
    status: 500,
    text: 'A fault of the service, logged with the `request_id`; the body reveals nothing else. Retry later, and quote the `request_id` when asking for support.',
  },
  fx_unavailable: {
    status: 503,
    text: 'The organization has no exchange rate for a currency the operation needs. The service never invents one: nothing changed. Set the rate, then retry.',
  },
  fiscal_unavailable: {
    status: 503,
    text: 'The fiscal stamping provider cannot be reached, or none is configured for live Mexican invoices (`FISCAL_PROVIDER`). Nothing changed; retry after `Retry-After` seconds.',
  },
  idempotency_unavailable: {
    status: 503,
    text: 'The `Idempotency-Key` could not be reserved, so the operation did not run. Retry with the same key.',
  },
  service_unavailable: {
    status: 503,
    text: 'The database is unreachable or busy. Nothing was committed; retry after `Retry-After` seconds.',
  },
};

/** Codes of the spec's error table that this service never answers, and why. */
export const NEVER_ANSWERED: Record<string, ErrorDoc> = {
  subscription_required: {
    status: 402,
    text: 'Never answered here: every operation is open on every plan; plans differ only in quotas and allowances (`plan_limit_reached`).',
  },
  tax_catalog_unavailable: {
    status: 503,
    text: 'Never answered here: the tax catalog lines are checked against is part of the service, never unreachable.',
  },
};
