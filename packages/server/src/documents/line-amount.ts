import { fromMinor, roundHalfAwayFromZero, toMinor } from '@svc/core';

/**
 * The amount a document shows for a line, in the terms its prices were entered in: before tax
 * (`importe`, the line's base), or, for prices entered tax included, its quantity times that
 * price, tax included, so that the line reads "2 × 121,00 € = 242,00 €" and not "= 200,00 €".
 */
export function shownLineAmount(
  item: { cantidad: number; precio_unitario: number; precio_negociado: number | null; importe: number },
  ivaIncluido: boolean,
  currency: string,
): number {
  if (!ivaIncluido) return item.importe;
  const price = toMinor(item.precio_negociado ?? item.precio_unitario, currency);
  return fromMinor(roundHalfAwayFromZero(item.cantidad * price), currency);
}
