import { fromMinor, toMinor } from '@svc/core';
import type {
  CreditNoteRow,
  InvoiceItemRow,
  InvoicePaymentRow,
  InvoiceRow,
} from '../repositories/invoices.js';
import { lineView } from './line-view.js';

/** The absolute public link of an invoice; a draft has none. */
export const invoiceLink = (
  publicUrl: string,
  invoice: Pick<InvoiceRow, 'token' | 'estado'>,
): string | null => (invoice.estado === 'draft' ? null : `${publicUrl}/i/${invoice.token}`);

/** What is left to collect: total − pagado − acreditado, exact in minor units. */
export function balanceOf(invoice: Pick<InvoiceRow, 'total' | 'pagado' | 'acreditado' | 'moneda'>): number {
  const minor = (value: number) => toMinor(value, invoice.moneda);
  return fromMinor(minor(invoice.total) - minor(invoice.pagado) - minor(invoice.acreditado), invoice.moneda);
}

/** An invoice as GET /facturas lists it (the detail without lines, payments and credit notes). */
export function invoiceListItem(invoice: InvoiceRow, publicUrl: string) {
  return {
    id: invoice.id,
    object: 'invoice' as const,
    numero: invoice.numero,
    folio_fiscal: invoice.folio_fiscal,
    estado: invoice.estado,
    estado_fiscal: invoice.estado_fiscal,
    motivo_fiscal: invoice.motivo_fiscal,
    pais: invoice.pais,
    tipo: invoice.tipo,
    moneda: invoice.moneda,
    moneda_fiscal: invoice.moneda_fiscal,
    tipo_cambio: invoice.tipo_cambio,
    subtotal: invoice.subtotal,
    descuento: invoice.descuento,
    impuestos: invoice.impuestos,
    total: invoice.total,
    pagado: invoice.pagado,
    acreditado: invoice.acreditado,
    saldo: balanceOf(invoice),
    emitida: invoice.emitida,
    vence: invoice.vence,
    metodo_pago: invoice.metodo_pago,
    cliente: invoice.cliente_nombre,
    cliente_id: invoice.cliente_id,
    cotizacion_id: invoice.cotizacion_id,
    link_publico: invoiceLink(publicUrl, invoice),
    created_at: invoice.created_at,
  };
}

/** GET /facturas/{id}: the list item with lines, payments and credit notes; notes for secret keys. */
export function invoiceDetail(
  invoice: InvoiceRow,
  parts: { items: InvoiceItemRow[]; payments: InvoicePaymentRow[]; notes: CreditNoteRow[] },
  publicUrl: string,
  secret: boolean,
) {
  return {
    ...invoiceListItem(invoice, publicUrl),
    ...(secret ? { notas: invoice.notas } : {}),
    items: parts.items.map((item) => lineView(item, secret)),
    pagos: parts.payments.map(({ id, monto, fecha, metodo, referencia }) => ({
      id,
      monto,
      fecha,
      metodo,
      referencia,
    })),
    notas_credito: parts.notes.map(({ id, numero, monto, motivo, folio_fiscal, created_at }) => ({
      id,
      numero,
      monto,
      motivo,
      folio_fiscal,
      created_at,
    })),
  };
}

/**
 * The data of the standalone invoice family of events: exactly the spec's fields. `link_publico`
 * is added to deliveries and never stored in the history.
 */
export function invoiceEventData(invoice: InvoiceRow) {
  return {
    id: invoice.id,
    object: 'invoice',
    numero: invoice.numero,
    folio_fiscal: invoice.folio_fiscal,
    estado: invoice.estado,
    estado_fiscal: invoice.estado_fiscal,
    pais: invoice.pais,
    tipo: invoice.tipo,
    moneda: invoice.moneda,
    total: invoice.total,
    pagado: invoice.pagado,
    saldo: balanceOf(invoice),
    vence: invoice.vence,
    cliente: invoice.cliente_nombre,
    cotizacion_id: invoice.cotizacion_id,
  };
}
