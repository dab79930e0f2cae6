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
  /** Whether it is sold in parts of its unit (hours, metres); else only whole units are drafted. */
  fraccionable?: boolean;
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
  /** Told of each phrase the drafter read as a request but drafted nothing for. */
  onSkip?: ((phrase: SkippedPhrase) => void) | undefined;
  /** Told when a line was drafted differently from how it was written (units → packs). */
  onNote?: ((note: DraftNote) => void) | undefined;
}

/**
 * Why a phrase was not drafted: nothing in the catalog fits it (`not_in_catalog`), it asks for
 * a part of the unit a product is sold by (`partial_period`: two weeks of a monthly service),
 * or its quantity cannot be a line (`invalid_quantity`: 0, negative, absurdly large).
 */
export type SkipReason = 'not_in_catalog' | 'partial_period' | 'invalid_quantity';

/** A phrase of the request that drafted nothing, as the customer wrote it. */
export interface SkippedPhrase {
  text: string;
  reason: SkipReason;
}

/** A line drafted in another unit than written: "250 tarjetas" → 3 packs of 100. */
export interface DraftNote {
  text: string;
  reason: 'units_to_packs';
  sku: string;
  cantidad: number;
}

/** Largest quantity a drafted line may have. */
export const MAX_QUANTITY = 1_000_000;

/**
 * Whether a quantity can be a line of `product`: a finite number above 0, at most
 * {@link MAX_QUANTITY}, and whole unless the product is sold in parts (1.5 docking stations is
 * not a line the service would accept, so it is not drafted).
 */
export function validQuantity(quantity: number, product?: Pick<CatalogProduct, 'fraccionable'>): boolean {
  if (!Number.isFinite(quantity) || quantity <= 0 || quantity > MAX_QUANTITY) return false;
  return product?.fraccionable !== false || Number.isInteger(quantity);
}

/** Turns a customer's plain words into catalog lines, one at a time as each is known. */
export interface Drafter {
  readonly name: string;
  draft(request: DraftRequest): AsyncIterable<DraftedItem>;
}
