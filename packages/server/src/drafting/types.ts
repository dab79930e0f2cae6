/** A catalog product as the drafters see it (public fields and the aliases used for matching). */
export interface CatalogProduct {
  id: string;
  sku: string;
  nombre: string;
  unidad: string;
  precio_lista: number;
  moneda: string;
  tax_rate: number | null;
  aliases: string[];
}

/** One drafted line: always a catalog product, always priced from the catalog. */
export interface DraftedItem {
  descripcion: string;
  cantidad: number;
  unidad: string;
  precio_unitario: number;
  producto_id: string;
  sku: string;
  tax_rate: number | null;
  /** How sure the drafter is, 0 to 1. */
  confidence: number;
}

/** What to draft from. */
export interface DraftRequest {
  prompt: string;
  locale?: string | undefined;
  catalog: CatalogProduct[];
  /** Drafting stops when it is aborted (the client went away). */
  signal?: AbortSignal | undefined;
}

/** Turns a customer's plain words into catalog lines, one at a time as each is known. */
export interface Drafter {
  readonly name: string;
  draft(request: DraftRequest): AsyncIterable<DraftedItem>;
}
