/** Detail of `svc-quote-created`. */
export interface QuoteCreatedDetail {
  id: string;
  folio: string;
  link_publico: string;
  needs_approval: boolean;
  total: number;
  moneda: string;
}

/** Detail of `svc-error`. */
export interface SvcErrorDetail {
  code: string;
  error: string;
}

/** Detail of `svc-change`: the basket and client as they are now. */
export interface ChangeDetail {
  items: { descripcion: string; cantidad: number; precio_unitario: number; producto_id?: string }[];
  total: number;
  moneda: string;
}

/** Every event the widget fires: all bubble and cross the shadow boundary. */
export interface SvcEventMap {
  'svc-ready': CustomEvent<{ locale: string; currency: string }>;
  'svc-change': CustomEvent<ChangeDetail>;
  'svc-draft-item': CustomEvent<{ sku: string; cantidad: number; descripcion: string }>;
  'svc-quote-created': CustomEvent<QuoteCreatedDetail>;
  'svc-error': CustomEvent<SvcErrorDetail>;
}

declare global {
  interface HTMLElementEventMap extends SvcEventMap {}
}

/** Creates one of the widget's events: bubbling and composed, so the page can listen anywhere. */
export const svcEvent = <K extends keyof SvcEventMap>(name: K, detail: SvcEventMap[K]['detail']) =>
  new CustomEvent(name, { detail, bubbles: true, composed: true });
