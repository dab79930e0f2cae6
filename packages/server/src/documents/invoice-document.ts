import { formatMoney } from '@svc/core';
import { INVOICE_MESSAGES } from '../i18n/invoice-page.js';
import type { Lang } from '../i18n/messages.js';
import { PRICES_INCLUDE_TAX } from '../i18n/tax-included.js';
import type {
  CreditNoteRow,
  InvoiceItemRow,
  InvoicePaymentRow,
  InvoiceRow,
} from '../repositories/invoices.js';
import { balanceOf } from '../services/invoice-view.js';
import type { Org } from '../services/orgs.js';
import { documentLocale, formatDay } from './document-locale.js';
import { shownLineAmount } from './line-amount.js';
import type { PdfView } from './pdf-document.js';

/** An invoice's figures formatted once, for its public page and its PDF alike. */
export function invoiceDocument(
  invoice: InvoiceRow,
  parts: { items: InvoiceItemRow[]; payments: InvoicePaymentRow[]; notes: CreditNoteRow[] },
  org: Org,
  lang: Lang,
) {
  const m = INVOICE_MESSAGES[lang];
  // Formats follow the merchant's country: Spanish in Mexico writes $24,500.00, in Spain 24.500,00 €.
  const locale = documentLocale(lang, org.country);
  const money = (n: number) => formatMoney(n, invoice.moneda, locale);
  const number = (n: number) => new Intl.NumberFormat(locale).format(n);
  const date = (iso: string | null) => (iso ? formatDay(iso, locale) : '');
  const state = m.states[invoice.estado as keyof typeof m.states] ?? invoice.estado;
  const meta: [string, string][] = [
    [m.billedTo, invoice.cliente_nombre],
    [m.issued, date(invoice.emitida)],
    [m.due, date(invoice.vence)],
  ];
  if (invoice.folio_fiscal) meta.push([m.folioFiscal, invoice.folio_fiscal]);
  const totals: [string, string][] = [[m.subtotal, money(invoice.subtotal)]];
  if (invoice.descuento > 0) totals.push([m.discount, `−${money(invoice.descuento)}`]);
  totals.push([m.tax, money(invoice.impuestos)], [m.total, money(invoice.total)]);
  if (invoice.pagado > 0) totals.push([m.paid, `−${money(invoice.pagado)}`]);
  if (invoice.acreditado > 0) totals.push([m.credited, `−${money(invoice.acreditado)}`]);
  // A voided invoice owes nothing: its page and PDF say it is void, not that its total is due
  // (the API's saldo keeps the spec's formula, total − pagado − acreditado).
  const balance = invoice.estado === 'void' ? null : money(balanceOf(invoice));
  if (balance !== null) totals.push([m.balance, balance]);
  return {
    /** The balance due, or null for a voided invoice. */
    balance,
    m,
    lang,
    title: `${m.invoice} ${invoice.numero ?? ''}`.trim(),
    merchant: org.nombre,
    state,
    meta,
    lines: parts.items.map((item) => ({
      descripcion: item.descripcion,
      cantidad: `${number(item.cantidad)}${item.unidad ? ` ${item.unidad}` : ''}`,
      precio: money(item.precio_negociado ?? item.precio_unitario),
      importe: money(shownLineAmount(item, invoice.iva_incluido, invoice.moneda)),
    })),
    /** Said under the lines when prices were entered tax included. */
    taxNote: invoice.iva_incluido ? PRICES_INCLUDE_TAX[lang] : null,
    totals,
    payments: parts.payments.map((p) => ({
      fecha: date(p.fecha),
      monto: money(p.monto),
      metodo: m.methods[p.metodo] ?? p.metodo,
      referencia: p.referencia ?? '',
    })),
    notes: parts.notes.map((n) => ({
      numero: n.numero,
      fecha: date(n.created_at),
      monto: money(n.monto),
      motivo: n.motivo,
      folio_fiscal: n.folio_fiscal,
    })),
    sandbox: invoice.mode === 'test' && invoice.tipo === 'cfdi' && invoice.folio_fiscal !== null,
  };
}

export type InvoiceDocument = ReturnType<typeof invoiceDocument>;

/** The PDF view of an invoice: the same strings as its page. */
export function invoicePdfView(doc: InvoiceDocument, color: string | null): PdfView {
  const { m } = doc;
  const sections: PdfView['sections'] = [];
  if (doc.payments.length > 0) {
    sections.push({
      heading: m.payments,
      rows: doc.payments.map((p) => [p.fecha, p.monto, p.metodo, p.referencia].filter(Boolean).join(' · ')),
    });
  }
  if (doc.notes.length > 0) {
    sections.push({
      heading: m.creditNotes,
      rows: doc.notes.map((n) =>
        [n.numero, n.fecha, n.monto, n.motivo, n.folio_fiscal].filter(Boolean).join(' · '),
      ),
    });
  }
  return {
    title: doc.title,
    merchant: doc.merchant,
    color,
    meta: [...doc.meta, [STATE_LABEL[doc.lang], doc.state]],
    headers: { descripcion: m.description, cantidad: m.quantity, precio: m.unitPrice, importe: m.amount },
    lines: doc.lines,
    totals: doc.totals,
    sections,
    footer: [...(doc.taxNote ? [doc.taxNote] : []), ...(doc.sandbox ? [m.sandboxStamp] : [])],
    lang: doc.lang,
  };
}

/** The label of the state line, the one string the page shows as a badge instead. */
export const STATE_LABEL: Record<Lang, string> = {
  es: 'Estado',
  en: 'Status',
  pt: 'Situação',
  fr: 'Statut',
  de: 'Status',
};
