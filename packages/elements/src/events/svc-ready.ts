/** Detail of `svc-ready`: the configuration loaded and the form is on screen. */
export interface SvcReadyDetail {
  /** The language in use. */
  locale: string;
  /** The document currency. */
  currency: string;
}

declare global {
  interface HTMLElementEventMap {
    'svc-ready': CustomEvent<SvcReadyDetail>;
  }
}
