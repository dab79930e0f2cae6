import type { QuoteItemRow } from '../repositories/quotes.js';

/**
 * A document's line as the API shows it: the same fields on quotes and invoices (design.md §11,
 * "same fields as quote lines"). The cost is the merchant's, so only a secret key sees it.
 */
export function lineView(item: QuoteItemRow, secret: boolean) {
  return {
    descripcion: item.descripcion,
    cantidad: item.cantidad,
    unidad: item.unidad,
    precio_unitario: item.precio_unitario,
    precio_negociado: item.precio_negociado,
    importe: item.importe,
    descuento: item.descuento,
    impuesto: item.impuesto,
    tax_rate: item.tax_rate,
    exemption_reason: item.exemption_reason,
    producto_id: item.producto_id,
    sku: item.sku,
    clave_sat: item.clave_sat,
    clave_unidad_sat: item.clave_unidad_sat,
    ...(secret ? { costo_unitario: item.costo_unitario } : {}),
  };
}
