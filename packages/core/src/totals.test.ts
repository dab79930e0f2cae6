import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toMinor } from './money.js';
import { computeTotals, type TotalsInput } from './totals.js';

const line = fc.record({
  cantidad: fc.oneof(
    fc.integer({ min: 1, max: 500 }),
    fc.double({ min: 0.01, max: 100, noNaN: true }).map((x) => Math.round(x * 100) / 100),
  ),
  precio_unitario: fc.integer({ min: 0, max: 5_000_000 }).map((c) => c / 100),
  tax_rate: fc.constantFrom(0, 0.08, 0.16, 0.21, null),
});
const discount = fc.oneof(
  fc.constant(null),
  fc.record({ tipo: fc.constant('porcentaje' as const), valor: fc.integer({ min: 0, max: 100 }) }),
  fc.record({
    tipo: fc.constant('monto' as const),
    valor: fc.integer({ min: 0, max: 10_000_000 }).map((c) => c / 100),
  }),
);
const input = fc.record({
  currency: fc.constantFrom('MXN', 'USD', 'EUR', 'JPY', 'CLP', 'KWD'),
  lines: fc.array(line, { minLength: 1, maxLength: 12 }),
  iva_incluido: fc.boolean(),
  default_tax_rate: fc.constantFrom(0, 0.16),
  discount,
}) as fc.Arbitrary<TotalsInput>;

describe('computeTotals', () => {
  it('matches the worked example of design.md', () => {
    const totals = computeTotals({
      currency: 'MXN',
      default_tax_rate: 0.16,
      discount: { tipo: 'porcentaje', valor: 10 },
      lines: [{ cantidad: 2, precio_unitario: 1000 }],
    });
    expect(totals).toMatchObject({ subtotal: 2000, descuento: 200, impuestos: 288, total: 2088 });
  });

  it('multiplies decimal prices exactly and rounds half away from zero', () => {
    expect(
      computeTotals({
        currency: 'MXN',
        default_tax_rate: 0,
        lines: [{ cantidad: 3, precio_unitario: 19.99 }],
      }).subtotal,
    ).toBe(59.97);
    expect(
      computeTotals({
        currency: 'MXN',
        default_tax_rate: 0,
        lines: [{ cantidad: 1, precio_unitario: 1.005 }],
      }).subtotal,
    ).toBe(1.01);
    expect(
      computeTotals({
        currency: 'MXN',
        default_tax_rate: 0,
        lines: [{ cantidad: 0.5, precio_unitario: 0.05 }],
      }).subtotal,
    ).toBe(0.03);
  });

  it('uses the negotiated price, the line rate, then the product rate, then the default', () => {
    const totals = computeTotals({
      currency: 'MXN',
      default_tax_rate: 0.16,
      lines: [
        { cantidad: 1, precio_unitario: 100, precio_negociado: 80 },
        { cantidad: 1, precio_unitario: 100, tax_rate: 0 },
        { cantidad: 1, precio_unitario: 100, product_tax_rate: 0.08 },
      ],
    });
    expect(totals.lines.map((l) => [l.base, l.tax_rate, l.tax])).toEqual([
      [80, 0.16, 12.8],
      [100, 0, 0],
      [100, 0.08, 8],
    ]);
  });

  it('takes tax out of prices that include it', () => {
    const totals = computeTotals({
      currency: 'MXN',
      default_tax_rate: 0.16,
      iva_incluido: true,
      lines: [{ cantidad: 1, precio_unitario: 116 }],
    });
    expect(totals).toMatchObject({ subtotal: 100, impuestos: 16, total: 116 });
  });

  it('caps an amount discount at the subtotal and works in currencies without decimals', () => {
    const jpy = computeTotals({
      currency: 'JPY',
      default_tax_rate: 0.1,
      discount: { tipo: 'monto', valor: 99999 },
      lines: [{ cantidad: 3, precio_unitario: 333 }],
    });
    expect(jpy).toMatchObject({ subtotal: 999, descuento: 999, impuestos: 0, total: 0 });
  });

  it('spreads the discount so the shares always add up to it, never above a line', () => {
    fc.assert(
      fc.property(input, (i) => {
        const t = computeTotals(i);
        expect(t.lines.reduce((s, l) => s + toMinor(l.discount, i.currency), 0)).toBe(t.minor.descuento);
        for (const l of t.lines)
          expect(toMinor(l.discount, i.currency)).toBeLessThanOrEqual(toMinor(l.base, i.currency));
      }),
      { numRuns: 500 },
    );
  });

  it('never gives a negative subtotal, tax or total, and total = subtotal − discount + tax', () => {
    fc.assert(
      fc.property(input, (i) => {
        const t = computeTotals(i);
        expect(t.minor.subtotal).toBeGreaterThanOrEqual(0);
        expect(t.minor.impuestos).toBeGreaterThanOrEqual(0);
        expect(t.minor.total).toBeGreaterThanOrEqual(0);
        expect(t.minor.descuento).toBeLessThanOrEqual(t.minor.subtotal);
        expect(t.minor.total).toBe(t.minor.subtotal - t.minor.descuento + t.minor.impuestos);
      }),
      { numRuns: 500 },
    );
  });

  it('gives zero tax and zero total with a 100 % discount', () => {
    fc.assert(
      fc.property(input, (i) => {
        const t = computeTotals({ ...i, discount: { tipo: 'porcentaje', valor: 100 } });
        expect(t.minor.impuestos).toBe(0);
        expect(t.minor.total).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('does not depend on the order of the lines', () => {
    fc.assert(
      fc.property(input, fc.infiniteStream(fc.nat()), (i, seeds) => {
        const shuffled = [...i.lines];
        for (let k = shuffled.length - 1; k > 0; k--) {
          const j = seeds.next().value % (k + 1);
          [shuffled[k], shuffled[j]] = [shuffled[j]!, shuffled[k]!];
        }
        const a = computeTotals(i).minor;
        const b = computeTotals({ ...i, lines: shuffled }).minor;
        expect(b).toEqual(a);
      }),
      { numRuns: 500 },
    );
  });
});
