/** Detail of `svc-quote-created`: the quote exists. */
export interface SvcQuoteCreatedDetail {
  id: string;
  folio: string;
  /** The client's page of the quote. */
  link_publico: string;
  /** The merchant reviews it before sending. */
  needs_approval: boolean;
}

declare global {
  interface HTMLElementEventMap {
    'svc-quote-created': CustomEvent<SvcQuoteCreatedDetail>;
  }
}
