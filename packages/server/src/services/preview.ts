import type { PreviewRequest } from '@svc/core';
import { invalidRequest } from '../errors.js';
import type { CouponRejection } from '../repositories/coupons.js';
import { readQuoteInputs } from '../repositories/quote-inputs.js';
import type { AppDeps } from '../types.js';
import type { KeyWithOrg } from './key-store.js';
import { requestedDiscount } from './payments.js';
import type { PreviewCatalog } from './preview-catalog.js';
import { couponCheck, lineProductIds, priceLines, totalsFor } from './pricing.js';
import { refusePublishableFields } from './quotes.js';

/** The authoritative totals of a draft basket (POST /elements/preview). */
export interface Preview {
  subtotal: number;
  descuento: number;
  impuestos: number;
  total: number;
  moneda: string;
  items: {
    descripcion: string;
    cantidad: number;
    precio_unitario: number;
    producto_id: string | null;
    sku: string | null;
    tax_rate: number;
    importe: number;
    descuento: number;
    impuesto: number;
  }[];
  cupon: { code: string; valid: boolean; reason: CouponRejection | null } | null;
}

/**
 * Prices a draft basket exactly as quote creation would, and checks its coupon without using it.
 */
export async function previewQuote(
  deps: AppDeps,
  auth: KeyWithOrg,
  body: PreviewRequest,
  /** The catalog kept in memory: the products and an unlimited coupon come from it when it knows them. */
  catalog?: PreviewCatalog,
): Promise<Preview> {
  const { key, org } = auth;
  if (key.kind === 'publishable') refusePublishableFields(body, org);
  const scope = { orgId: org.id, mode: key.mode };
  const currency = body.base_currency ?? org.currency;
  if (!org.currencies.includes(currency)) {
    throw invalidRequest(
      `base_currency: ${currency} is not a currency of this business (${org.currencies.join(', ')})`,
    );
  }
  const request = { productIds: lineProductIds(body.items), couponCode: body.cupon };
  // From memory when it knows them; else products and coupon in one statement, as creation reads them.
  const inputs = (await catalog?.inputs(scope, request)) ?? (await readQuoteInputs(deps.db, scope, request));
  const lines = priceLines(inputs.products, org, body.items, currency, {
    publishable: key.kind === 'publishable',
  });
  const check = body.cupon === undefined ? null : couponCheck(inputs.coupon, currency, deps.now());
  // As creation: a coupon, when sent, is the discount; else the seller's own `descuento`.
  const discount = check
    ? check.ok
      ? { tipo: check.coupon.tipo, valor: check.coupon.valor }
      : null
    : requestedDiscount(body.descuento, currency);
  const totals = totalsFor(lines, {
    currency,
    ivaIncluido: body.iva_incluido ?? false,
    defaultTaxRate: org.default_tax_rate,
    discount,
  });
  return {
    subtotal: totals.subtotal,
    descuento: totals.descuento,
    impuestos: totals.impuestos,
    total: totals.total,
    moneda: currency,
    items: lines.map((line, i) => ({
      descripcion: line.descripcion,
      cantidad: line.cantidad,
      precio_unitario: line.precio_unitario,
      producto_id: line.producto_id,
      sku: line.sku,
      tax_rate: totals.lines[i]!.tax_rate,
      importe: totals.lines[i]!.base,
      descuento: totals.lines[i]!.discount,
      impuesto: totals.lines[i]!.tax,
    })),
    cupon:
      body.cupon === undefined
        ? null
        : {
            code: body.cupon.toUpperCase(),
            valid: check?.ok ?? false,
            reason: check && !check.ok ? check.reason : null,
          },
  };
}
