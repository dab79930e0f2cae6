import {
  computeTotals,
  convertPrice,
  type Discount,
  type QuoteLineRequest,
  type Totals,
  toMinor,
} from '@svc/core';
import type { Queryable } from '../db/database.js';
import { ApiError, invalidRequest } from '../errors.js';
import { isUuid } from '../ids.js';
import { type CouponRejection, type CouponRow, couponRejection } from '../repositories/coupons.js';
import { findProductsByIds, type ProductRow } from '../repositories/products.js';
import type { QuoteItemRow, QuoteRow } from '../repositories/quotes.js';
import { checkExemptionReason } from './fiscal/exemptions.js';
import { checkQuantity, checkSatKeys, checkTaxRate } from './fiscal/tax-catalog.js';
import { satUnitKey } from './fiscal/unit-keys.js';
import type { Org } from './orgs.js';

/** A line with everything known about it before totals. */
export interface ResolvedLine {
  descripcion: string;
  cantidad: number;
  unidad: string | null;
  precio_unitario: number;
  precio_negociado: number | null;
  costo_unitario: number | null;
  producto_id: string | null;
  sku: string | null;
  tax_rate: number | null;
  product_tax_rate: number | null;
  exemption_reason: string | null;
  clave_sat: string | null;
  clave_unidad_sat: string | null;
}

type Scope = { orgId: string; mode: string };

/** Who is pricing: publishable keys get catalog prices and none of the seller's levers. */
export interface PricingCaller {
  publishable: boolean;
}

/**
 * The price of a catalog product in `currency`: its list price, converted with the organization's
 * exchange rate when the product is priced in another currency. Without a rate the operation fails
 * closed with 503 `fx_unavailable`, never inventing one.
 */
export function catalogPrice(product: ProductRow, currency: string, org: Org): number {
  const price = convertPrice(product.precio_lista, product.moneda, currency, org.currency, fxRates(org));
  if (price === null) {
    throw new ApiError(
      503,
      'fx_unavailable',
      `No exchange rate from ${product.moneda} to ${currency} is available.`,
    );
  }
  return price;
}

/** The organization's exchange rates: what 1 unit of each currency is worth in its own. */
export const fxRates = (org: Org): Record<string, number> => org.widget.fx_rates ?? {};

/**
 * Units of `to` per unit of `from` by the organization's rates (six decimals, as a CFDI's
 * `TipoCambio` takes); 503 `fx_unavailable` when a rate is missing, never inventing one.
 */
export function exchangeRate(org: Org, from: string, to: string): number {
  const rates = fxRates(org);
  const fromInOrg = from === org.currency ? 1 : rates[from];
  const toInOrg = to === org.currency ? 1 : rates[to];
  const rate = fromInOrg && toInOrg ? Number((fromInOrg / toInOrg).toFixed(6)) : 0;
  // Below a millionth it cannot be written with six decimals: as good as none.
  if (!(rate > 0)) {
    throw new ApiError(503, 'fx_unavailable', `No exchange rate from ${from} to ${to} is available.`);
  }
  return rate;
}

/**
 * Resolves request lines against the catalog: unknown products are refused, catalog lines carry
 * their SKU, unit and tax rate, and for publishable keys the price must be the catalog's and
 * free-text lines must be allowed by the organization's widget settings.
 */
export async function resolveLines(
  db: Queryable,
  scope: Scope,
  org: Org,
  items: QuoteLineRequest[],
  currency: string,
  caller: PricingCaller,
): Promise<ResolvedLine[]> {
  const products = await findProductsByIds(db, scope, lineProductIds(items));
  return priceLines(products, org, items, currency, caller);
}

/** The catalog products the lines name, once each; 400 for an id that cannot be one. */
export function lineProductIds(items: QuoteLineRequest[]): string[] {
  const invalid = items.findIndex((item) => item.producto_id !== undefined && !isUuid(item.producto_id));
  if (invalid >= 0) throw invalidRequest(`items[${invalid}].producto_id: no such product in the catalog`);
  return [...new Set(items.map((item) => item.producto_id).filter((id): id is string => !!id))];
}

/** {@link resolveLines} with the products already read. */
export function priceLines(
  products: Map<string, ProductRow>,
  org: Org,
  items: QuoteLineRequest[],
  currency: string,
  caller: PricingCaller,
): ResolvedLine[] {
  const mexican = org.country === 'MX';
  return items.map((item, index) => {
    const field = (name: string) => `items[${index}].${name}`;
    checkTaxRate(org.country, item.tax_rate, field('tax_rate'));
    checkQuantity(org.country, item.cantidad, field('cantidad'));
    checkSatKeys(org.country, item, field);
    checkExemptionReason(org.country, item.exemption_reason, field('exemption_reason'));
    if (!item.producto_id) {
      if (caller.publishable && !org.widget.custom_items) {
        throw invalidRequest(
          `items[${index}]: free-text lines are not accepted here; choose products from the catalog`,
        );
      }
      if (caller.publishable && item.tax_rate !== undefined && item.tax_rate !== org.default_tax_rate) {
        throw invalidRequest(`${field('tax_rate')}: cannot be set from the widget`);
      }
      return {
        descripcion: item.descripcion,
        cantidad: item.cantidad,
        unidad: null,
        precio_unitario: item.precio_unitario,
        precio_negociado: item.precio_negociado ?? null,
        costo_unitario: item.costo_unitario ?? null,
        producto_id: null,
        sku: null,
        tax_rate: item.tax_rate ?? null,
        product_tax_rate: null,
        exemption_reason: item.exemption_reason ?? null,
        clave_sat: mexican ? (item.clave_sat ?? '01010101') : null,
        clave_unidad_sat: mexican ? (item.clave_unidad_sat ?? 'H87') : null,
      };
    }
    const product = products.get(item.producto_id);
    if (!product?.activo) throw invalidRequest(`${field('producto_id')}: no such product in the catalog`);
    // A publishable key's line is priced from the catalog: a price sent differently is refused, and
    // one that rounds to it (999.995 for 1000.00) is still stored as the catalog's.
    let price = item.precio_unitario;
    if (caller.publishable) {
      price = catalogPrice(product, currency, org);
      if (toMinor(item.precio_unitario, currency) !== toMinor(price, currency)) {
        throw invalidRequest(`${field('precio_unitario')}: must be the catalog price ${price} ${currency}`);
      }
      if (item.tax_rate !== undefined && item.tax_rate !== (product.tax_rate ?? org.default_tax_rate)) {
        throw invalidRequest(`${field('tax_rate')}: cannot be set from the widget`);
      }
      if (!product.fraccionable && !Number.isInteger(item.cantidad)) {
        throw invalidRequest(`${field('cantidad')}: ${product.nombre} is sold in whole units`);
      }
    }
    return {
      descripcion: item.descripcion,
      cantidad: item.cantidad,
      unidad: product.unidad,
      precio_unitario: price,
      precio_negociado: item.precio_negociado ?? null,
      costo_unitario: item.costo_unitario ?? product.costo ?? null,
      producto_id: product.id,
      sku: product.sku,
      tax_rate: item.tax_rate ?? null,
      product_tax_rate: product.tax_rate,
      exemption_reason: item.exemption_reason ?? null,
      clave_sat: mexican ? (item.clave_sat ?? product.clave_sat ?? '01010101') : null,
      clave_unidad_sat: mexican
        ? (item.clave_unidad_sat ?? product.clave_unidad_sat ?? satUnitKey(product.unidad) ?? 'H87')
        : null,
    };
  });
}

/** A coupon that can be applied, or why it cannot. */
export type CouponCheck = { ok: true; coupon: CouponRow } | { ok: false; reason: CouponRejection };

/** Whether a coupon read by its code can be applied now in `currency` (checked, not used). */
export function couponCheck(coupon: CouponRow | undefined, currency: string, now: Date): CouponCheck {
  const reason = couponRejection(coupon, currency, now);
  return reason ? { ok: false, reason } : { ok: true, coupon: coupon! };
}

const COUPON_MESSAGES: Record<CouponRejection, string> = {
  not_found: 'no coupon with this code exists',
  expired: 'the coupon has expired',
  inactive: 'the coupon is not active',
  exhausted: 'the coupon has no uses left',
  currency_mismatch: 'the coupon is for another currency',
};

/** 400 `invalid_request` with `reason` for a coupon that cannot be applied. */
export const couponError = (code: string, reason: CouponRejection) =>
  new ApiError(400, 'invalid_request', `cupon: ${COUPON_MESSAGES[reason]} (${code})`, { reason });

/** Totals of resolved lines with the organization's defaults. */
export function totalsFor(
  lines: ResolvedLine[],
  options: { currency: string; ivaIncluido: boolean; defaultTaxRate: number; discount: Discount | null },
): Totals {
  return computeTotals({
    currency: options.currency,
    iva_incluido: options.ivaIncluido,
    default_tax_rate: options.defaultTaxRate,
    discount: options.discount,
    lines: lines.map((line) => ({
      cantidad: line.cantidad,
      precio_unitario: line.precio_unitario,
      precio_negociado: line.precio_negociado,
      tax_rate: line.tax_rate,
      product_tax_rate: line.product_tax_rate,
    })),
  });
}

/**
 * The stored lines: each resolved line with its computed amounts. A line taxed at 0 without an
 * `exemption_reason` takes `exemption`, the one derived from the client (`derivedExemption`).
 */
export function itemRows(lines: ResolvedLine[], totals: Totals, exemption: string | null): QuoteItemRow[] {
  return lines.map((line, position) => {
    const computed = totals.lines[position]!;
    return {
      position,
      descripcion: line.descripcion,
      cantidad: line.cantidad,
      unidad: line.unidad,
      precio_unitario: line.precio_unitario,
      precio_negociado: line.precio_negociado,
      costo_unitario: line.costo_unitario,
      producto_id: line.producto_id,
      sku: line.sku,
      tax_rate: computed.tax_rate,
      exemption_reason: exemptionOf(line, computed.tax_rate, exemption, position),
      clave_sat: line.clave_sat,
      clave_unidad_sat: line.clave_unidad_sat,
      importe: computed.base,
      descuento: computed.discount,
      impuesto: computed.tax,
    };
  });
}

/** The discount a quote's totals are computed with: its coupon's, else the one it was given. */
export async function quoteDiscount(tx: Queryable, quote: QuoteRow): Promise<Discount | null> {
  if (!quote.coupon_id) return quote.descuento_solicitado;
  const [coupon] = await tx.query<{ tipo: Discount['tipo']; valor: number }>(
    'SELECT tipo, valor FROM coupons WHERE id = $1',
    [quote.coupon_id],
  );
  return coupon ?? null;
}

/**
 * A line's `exemption_reason`: its own, only on a line taxed at 0 (its rate may be its product's
 * or the organization's, known only now: 400 otherwise), else the one derived from the client.
 */
function exemptionOf(
  line: ResolvedLine,
  rate: number,
  derived: string | null,
  position: number,
): string | null {
  if (line.exemption_reason === null) return rate === 0 ? derived : null;
  if (rate === 0) return line.exemption_reason;
  throw invalidRequest(
    `items[${position}].exemption_reason: only allowed on a line with tax_rate 0; this one is taxed at ${rate}`,
  );
}
