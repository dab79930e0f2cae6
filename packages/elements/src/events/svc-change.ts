/** A line as `svc-change` reports it: what would be sent to POST /cotizaciones. */
export interface SvcChangeItem {
  descripcion: string;
  cantidad: number;
  precio_unitario: number;
  producto_id?: string;
}

/** Detail of `svc-change`: the basket as it is now, and its total. */
export interface SvcChangeDetail {
  items: SvcChangeItem[];
  /** Grand total in major units (local until the server's preview confirms it). */
  total: number;
  moneda: string;
}

declare global {
  interface HTMLElementEventMap {
    'svc-change': CustomEvent<SvcChangeDetail>;
  }
}
