/**
 * Every text the widget shows, in one language. Templates take `{name}` values; `{line|lines}`
 * holds a singular and a plural form, chosen by `{n}` with the language's plural rules (see
 * {@link format}). Strings rather than functions keep five languages small in the script bundle.
 */
export interface Messages {
  loading: string;
  retry: string;
  /** The error messages (see {@link ErrorMessageKey}), wholly in the locale: the server's own text is English. */
  errors: Record<ErrorMessageKey, string>;
  pickerLabel: string;
  pickerPlaceholder: string;
  noMatches: string;
  addCustom: string;
  customDescription: string;
  customPrice: string;
  add: string;
  linesTitle: string;
  empty: string;
  quantity: string;
  remove: string;
  draftLabel: string;
  draftPlaceholder: string;
  draftButton: string;
  stop: string;
  /** `{n}` lines so far. */
  drafting: string;
  drafted: string;
  /** `{q}` × `{name}`. */
  draftAdded: string;
  draftNothing: string;
  draftFailed: string;
  draftStopped: string;
  /** Before the phrases a draft skipped: "no encontré: impresora". */
  notFound: string;
  coupon: string;
  apply: string;
  couponChecking: string;
  /** `{code}`, `{amount}`. */
  couponApplied: string;
  /** A coupon applied to an empty basket: kept, and checked once there are lines. */
  couponLater: string;
  /** By the service's coupon `reason`. */
  couponReasons: Record<string, string>;
  subtotal: string;
  discount: string;
  tax: string;
  total: string;
  clientTitle: string;
  fields: Record<string, string>;
  fiscalToggle: string;
  required: string;
  invalidEmail: string;
  /** `{example}`. */
  invalidFormat: string;
  /** A number outside what the field takes, or not a number: `{min}`, `{max}`. */
  numberRange: string;
  /** The same for whole units only. */
  wholeRange: string;
  needLines: string;
  submit: string;
  submitting: string;
  /** `{n}` seconds. */
  retrying: string;
  successTitle: string;
  /** `{folio}`, `{total}`. */
  successText: string;
  viewQuote: string;
  newQuote: string;
  awaitingApproval: string;
}

/**
 * The error messages each language has: one per service error code the widget explains in its own
 * words, plus `network` (the service could not be reached). Other codes share one of these.
 */
export type ErrorMessageKey =
  | 'invalid_key'
  | 'origin_not_allowed'
  | 'rate_limited'
  | 'invalid_request'
  | 'payload_too_large'
  | 'idempotency_in_progress'
  | 'idempotency_key_reused'
  | 'service_unavailable'
  | 'internal_error'
  | 'network';
