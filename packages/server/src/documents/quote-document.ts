import { formatMoney, termLabel } from '@svc/core';
import { type Lang, MESSAGES, withColon } from '../i18n/messages.js';
import { QUOTE_PAGE_MESSAGES } from '../i18n/quote-page.js';
import { PRICES_INCLUDE_TAX } from '../i18n/tax-included.js';
import type { QuoteItemRow, QuoteRow } from '../repositories/quotes.js';
import type { Org } from '../services/orgs.js';
import { documentLocale, formatDay } from './document-locale.js';
import { shownLineAmount } from './line-amount.js';
import { type PaymentFields, planSchedule } from './payment-schedule.js';
import type { PdfView } from './pdf-document.js';

/**
 * The PDF of a quote: the figures and wording of its public page, the lines a client declined
 * marked as such, its payment plan with pay-by dates, what was paid and what is owed, and, once
 * approved on the page, the electronic acceptance (who, when, from where).
 */
export function quotePdfView(
  quote: QuoteRow,
  items: QuoteItemRow[],
  org: Org,
  lang: Lang,
  payments: PaymentFields,
): PdfView {
  const m = MESSAGES[lang];
  const p = QUOTE_PAGE_MESSAGES[lang];
  const locale = documentLocale(lang, org.country);
  const money = (n: number) => formatMoney(n, quote.moneda, locale);
  const number = (n: number) => new Intl.NumberFormat(locale).format(n);
  const meta: [string, string][] = [];
  if (quote.vigencia) {
    meta.push([m.validUntil, formatDay(quote.vigencia, locale)]);
  }
  if (quote.terminos_codigo) meta.push([m.terms, termLabel(quote.terminos_codigo as never, lang)]);
  const totals: [string, string][] = [[m.subtotal, money(quote.subtotal)]];
  if (quote.descuento > 0)
    totals.push([`${m.discount}${quote.cupon ? ` (${quote.cupon})` : ''}`, `−${money(quote.descuento)}`]);
  totals.push([m.tax, money(quote.impuestos)], [m.total, money(quote.total)]);
  const accepted = quote.aceptacion;
  const acceptance = accepted
    ? `${p.acceptedBy(
        accepted.nombre,
        accepted.email,
        `${new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(accepted.fecha))} UTC`,
      )}${accepted.ip ? ` IP ${accepted.ip}` : ''}`
    : null;
  const day = (iso: string) =>
    new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(
      new Date(`${iso}T00:00:00Z`),
    );
  // The page's payment plan, paid amount, balance and payments; none for a rejected quote.
  const sections: PdfView['sections'] = [];
  if (quote.status !== 'rejected') {
    const schedule = planSchedule(payments, lang, day);
    sections.push({
      heading: p.plan,
      rows: [
        schedule.heading,
        ...schedule.steps.map((step) => `${step.name} · ${step.payBy} · ${money(step.monto)}`),
        `${withColon(lang, p.paid)} ${money(payments.pagado)} · ${withColon(lang, p.balance)} ${money(payments.saldo)}`,
      ],
    });
    if (payments.pagos.length > 0) {
      sections.push({
        heading: p.payments,
        rows: payments.pagos.map((pay) => `${day(pay.fecha)} · ${money(pay.monto)}`),
      });
    }
  }
  if (acceptance) sections.push({ heading: p.decide, rows: [acceptance] });
  return {
    title: `${m.quote} ${quote.folio}`,
    merchant: `${org.nombre} · ${quote.cliente_nombre}`,
    color: org.brand_color,
    meta,
    headers: { descripcion: m.description, cantidad: m.quantity, precio: m.unitPrice, importe: m.amount },
    lines: items.map((item) => ({
      descripcion: item.declinada ? `${item.descripcion} (${p.declined})` : item.descripcion,
      cantidad: `${number(item.cantidad)}${item.unidad ? ` ${item.unidad}` : ''}`,
      precio: money(item.precio_negociado ?? item.precio_unitario),
      importe: item.declinada ? '—' : money(shownLineAmount(item, quote.iva_incluido, quote.moneda)),
    })),
    totals,
    sections,
    footer: [
      ...(quote.iva_incluido ? [PRICES_INCLUDE_TAX[lang]] : []),
      ...(org.widget.terms_text ? [org.widget.terms_text] : []),
    ],
    lang,
  };
}
