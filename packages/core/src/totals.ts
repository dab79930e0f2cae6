import { currencyExponent, fromMinor, roundHalfAwayFromZero, toMinor } from './money.js';

/** One line of a basket as totals need it. */
export interface TotalsLineInput {
  cantidad: number;
  precio_unitario: number;
  /** Final unit price after a negotiated discount; wins over `precio_unitario`. */
  precio_negociado?: number | null;
  /** The line's own rate, 0 to 1. */
  tax_rate?: number | null;
  /** The catalog product's rate, used when the line has none. */
  product_tax_rate?: number | null;
}

/** A document discount: a percentage of the subtotal, or an amount in the document currency. */
export type Discount = { tipo: 'porcentaje' | 'monto'; valor: number };

/** Everything {@link computeTotals} needs. */
export interface TotalsInput {
  /** ISO 4217 document currency; decides the minor unit. */
  currency: string;
  lines: TotalsLineInput[];
  /** Entered prices already include tax. @defaultValue false */
  iva_incluido?: boolean;
  /** Rate of lines that have none of their own nor a product's. */
  default_tax_rate: number;
  discount?: Discount | null;
}

/** One computed line, in major units. */
export interface TotalsLine {
  tax_rate: number;
  unit_price: number;
  /** Line amount before discount and tax. */
  base: number;
  /** This line's share of the document discount. */
  discount: number;
  tax: number;
}

/** Totals of a document, in major units, with the same figures in minor units. */
export interface Totals {
  currency: string;
  subtotal: number;
  descuento: number;
  impuestos: number;
  total: number;
  lines: TotalsLine[];
  minor: { subtotal: number; descuento: number; impuestos: number; total: number };
}

/**
 * The totals of a quote, as design.md section 5 defines them, computed in integer minor units and
 * rounded half away from zero. The widget uses it for the live preview and the server as the
 * authority, so the two can never disagree.
 *
 * 1. price `p = precio_negociado ?? precio_unitario`; rate `r = tax_rate ?? product_tax_rate ?? default`
 * 2. base `b = round(cantidad × p)`, or `round(cantidad × p / (1 + r))` with `iva_incluido`
 * 3. subtotal = Σ b; discount D = round(subtotal × valor / 100) or min(valor, subtotal)
 * 4. D spread over lines in proportion to b by largest remainder (shares add up to D exactly)
 * 5. line tax `t = round((b − share) × r)`; total = subtotal − D + Σ t
 *
 * @example
 * computeTotals({ currency: 'MXN', default_tax_rate: 0.16, discount: { tipo: 'porcentaje', valor: 10 },
 *   lines: [{ cantidad: 2, precio_unitario: 1000 }] })
 * // → subtotal 2000, descuento 200, impuestos 288, total 2088
 */
export function computeTotals(input: TotalsInput): Totals {
  const { currency } = input;
  const scale = 10 ** currencyExponent(currency);
  const rates = input.lines.map((line) => line.tax_rate ?? line.product_tax_rate ?? input.default_tax_rate);
  const bases = input.lines.map((line, i) => {
    const price = line.precio_negociado ?? line.precio_unitario;
    // cantidad × price in minor units; toPrecision inside the rounding absorbs float noise.
    const gross = line.cantidad * price * scale;
    return roundHalfAwayFromZero(input.iva_incluido ? gross / (1 + rates[i]!) : gross);
  });
  const subtotal = bases.reduce((sum, b) => sum + b, 0);
  const discount = discountAmount(input.discount, subtotal, currency);
  const shares = spread(discount, bases, rates);
  const taxes = bases.map((b, i) => roundHalfAwayFromZero((b - shares[i]!) * rates[i]!));
  const impuestos = taxes.reduce((sum, t) => sum + t, 0);
  const total = subtotal - discount + impuestos;
  return {
    currency,
    subtotal: fromMinor(subtotal, currency),
    descuento: fromMinor(discount, currency),
    impuestos: fromMinor(impuestos, currency),
    total: fromMinor(total, currency),
    lines: input.lines.map((line, i) => ({
      tax_rate: rates[i]!,
      unit_price: line.precio_negociado ?? line.precio_unitario,
      base: fromMinor(bases[i]!, currency),
      discount: fromMinor(shares[i]!, currency),
      tax: fromMinor(taxes[i]!, currency),
    })),
    minor: { subtotal, descuento: discount, impuestos, total },
  };
}

function discountAmount(discount: Discount | null | undefined, subtotal: number, currency: string): number {
  if (!discount || subtotal <= 0) return 0;
  if (discount.tipo === 'porcentaje') {
    const pct = Math.min(Math.max(discount.valor, 0), 100);
    return Math.min(subtotal, roundHalfAwayFromZero((subtotal * pct) / 100));
  }
  return Math.min(Math.max(toMinor(discount.valor, currency), 0), subtotal);
}

/**
 * Spreads `amount` over `weights` in proportion, by largest remainder: each line gets the floor of
 * its exact share, and the units left go to the largest remainders. Ties go to the larger weight,
 * then the higher tax rate, then the earlier line: lines that differ get the same share wherever
 * they stand, so reordering lines never changes a total. BigInt keeps `amount × weight` exact.
 * Also a credit note's split over its invoice's tax rates (the server's CFDI).
 */
export function spread(amount: number, weights: number[], rates: number[]): number[] {
  const total = weights.reduce((sum, w) => sum + w, 0);
  if (amount === 0 || total === 0) return weights.map(() => 0);
  const bigAmount = BigInt(amount);
  const bigTotal = BigInt(total);
  const shares = weights.map((w) => (bigAmount * BigInt(w)) / bigTotal);
  const remainders = weights.map((w, i) => bigAmount * BigInt(w) - shares[i]! * bigTotal);
  let left = Number(bigAmount - shares.reduce((sum, s) => sum + s, 0n));
  const order = weights
    .map((_, i) => i)
    .sort((a, b) => {
      const byRemainder = remainders[b]! > remainders[a]! ? 1 : remainders[b]! < remainders[a]! ? -1 : 0;
      return byRemainder || weights[b]! - weights[a]! || rates[b]! - rates[a]! || a - b;
    });
  const result = shares.map(Number);
  for (const i of order) {
    if (left <= 0) break;
    result[i]!++;
    left--;
  }
  return result;
}
