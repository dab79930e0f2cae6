/** Detail of `svc-error`: something failed; `error` is the message shown, in the form's language. */
export interface SvcErrorDetail {
  /** The service's error code (`invalid_key`, `rate_limited`…), or `network`. */
  code: string;
  error: string;
}

declare global {
  interface HTMLElementEventMap {
    'svc-error': CustomEvent<SvcErrorDetail>;
  }
}
