import { formatMoney, termLabel } from '@svc/core';
import { type Lang, MESSAGES } from '../i18n/messages.js';
import type { QuoteItemRow, QuoteRow } from '../repositories/quotes.js';
import type { Org } from '../services/orgs.js';
import type { PdfView } from './pdf-document.js';

/** The PDF of a quote: the figures and wording of its public page. */
export function quotePdfView(quote: QuoteRow, items: QuoteItemRow[], org: Org, lang: Lang): PdfView {
  const m = MESSAGES[lang];
  const locale = `${lang}-${org.country}`;
  const money = (n: number) => formatMoney(n, quote.moneda, locale);
  const number = (n: number) => new Intl.NumberFormat(locale).format(n);
  const meta: [string, string][] = [];
  if (quote.vigencia) {
    const date = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(
      new Date(`${quote.vigencia}T00:00:00Z`),
    );
    meta.push([m.validUntil, date]);
  }
  if (quote.terminos_codigo) meta.push([m.terms, termLabel(quote.terminos_codigo as never, lang)]);
  const totals: [string, string][] = [[m.subtotal, money(quote.subtotal)]];
  if (quote.descuento > 0)
    totals.push([`${m.discount}${quote.cupon ? ` (${quote.cupon})` : ''}`, `−${money(quote.descuento)}`]);
  totals.push([m.tax, money(quote.impuestos)], [m.total, money(quote.total)]);
  return {
    title: `${m.quote} ${quote.folio}`,
    merchant: `${org.nombre} · ${quote.cliente_nombre}`,
    color: org.brand_color,
    meta,
    headers: { descripcion: m.description, cantidad: m.quantity, precio: m.unitPrice, importe: m.amount },
    lines: items.map((item) => ({
      descripcion: item.descripcion,
      cantidad: `${number(item.cantidad)}${item.unidad ? ` ${item.unidad}` : ''}`,
      precio: money(item.precio_negociado ?? item.precio_unitario),
      importe: money(item.importe),
    })),
    totals,
    sections: [],
    footer: org.widget.terms_text ? [org.widget.terms_text] : [],
    lang,
  };
}
