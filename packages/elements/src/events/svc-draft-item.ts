/** Detail of `svc-draft-item`: one drafted line, as the service streamed it. */
export interface SvcDraftItemDetail {
  descripcion: string;
  cantidad: number;
  unidad: string;
  precio_unitario: number;
  producto_id: string;
  sku: string;
  tax_rate: number | null;
  /** How sure the drafter is of the match, 0 to 1. */
  confidence: number;
}

declare global {
  interface HTMLElementEventMap {
    'svc-draft-item': CustomEvent<SvcDraftItemDetail>;
  }
}
