import { formatMoney, termLabel } from '@svc/core';
import { html } from 'hono/html';
import { documentLocale, formatDay } from '../documents/document-locale.js';
import { shownLineAmount } from '../documents/line-amount.js';
import { type PaymentFields, planSchedule } from '../documents/payment-schedule.js';
import { LANGS, type Lang, MESSAGES, withColon } from '../i18n/messages.js';
import { QUOTE_PAGE_MESSAGES } from '../i18n/quote-page.js';
import { PRICES_INCLUDE_TAX } from '../i18n/tax-included.js';
import type { QuoteMessage } from '../repositories/quote-messages.js';
import type { QuoteItemRow, QuoteRow } from '../repositories/quotes.js';
import type { Org } from '../services/orgs.js';
import type { FieldErrors, PageField } from './public-quote.js';
import { brandHref } from './public-styles.js';

/** Everything the public quote page shows, read by the route. */
export interface QuotePageView {
  quote: QuoteRow;
  items: QuoteItemRow[];
  org: Org;
  lang: Lang;
  payments: PaymentFields;
  conversation: QuoteMessage[];
  /** The value of every form's CSRF field. */
  csrf: string;
  /** Today (UTC, `YYYY-MM-DD`): the earliest date a promise can name. */
  today: string;
  /** What the last form did (role=status), or why it was refused (role=alert). */
  notice?: string | undefined;
  error?: string | undefined;
  /** Why a form was refused, field by field: each message is shown and announced by its field. */
  fieldErrors?: FieldErrors | undefined;
  /** Whether the state line announces the decision just made (role=status), after its form. */
  announceDecision?: boolean | undefined;
  /** What the client typed, given back after a refusal so nothing is lost. */
  values?: Record<string, string> | undefined;
  /** The lines ticked in a refused approval, kept as the client left them (all, by default). */
  chosenLines?: string[] | undefined;
}

/**
 * The public quote page (design.md section 14): the quote, the client's decision on all or some
 * of its lines with an electronic acceptance, the payment plan and promises, the conversation with
 * counteroffers, and the PDF. Plain HTML forms, no script: it works without JavaScript under the
 * page's strict CSP, and every form carries the CSRF value.
 */
/** The decimal mark of a locale (`es-ES` `,`, `es-MX` `.`), as its numbers are typed. */
export const decimalMark = (locale: string): string => new Intl.NumberFormat(locale).format(1.5)[1] ?? '.';

export function quotePage(view: QuotePageView) {
  const { quote, items, org, lang, payments, conversation, csrf, values = {} } = view;
  const m = MESSAGES[lang];
  const p = QUOTE_PAGE_MESSAGES[lang];
  // Formats follow the merchant's country: Spanish in Mexico writes $24,500.00, in Spain 24.500,00 €.
  const locale = documentLocale(lang, org.country);
  const money = (n: number) => formatMoney(n, quote.moneda, locale);
  const number = (n: number) => new Intl.NumberFormat(locale).format(n);
  const day = (iso: string) => formatDay(iso, locale);
  const moment = (iso: string) =>
    `${new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(iso))} UTC`;
  const open = quote.status === 'sent' || quote.status === 'viewed';
  const negotiable = open || quote.status === 'expired';
  const declined = items.some((item) => item.declinada);
  const action = (name: string) => `/q/${quote.token}/${name}?lang=${lang}`;
  const csrfField = html`<input type="hidden" name="csrf" value="${csrf}">`;
  const fieldErrors = view.fieldErrors ?? {};
  /** A field's error state: `aria-invalid` and `aria-describedby` naming its message, if any. */
  const invalid = (field: PageField) =>
    fieldErrors[field] ? html` aria-invalid="true" aria-describedby="${field}-error"` : '';
  /** A field's error message, shown next to it. */
  const errorOf = (field: PageField) =>
    fieldErrors[field] ? html`<p class="field-error" id="${field}-error">${fieldErrors[field]}</p>` : '';
  const ticked = (id: string | undefined) =>
    !view.chosenLines || id === undefined || view.chosenLines.includes(id);
  const lineName = (id: string | null) => items.find((item) => item.id === id)?.descripcion;
  const statusText: Partial<Record<QuoteRow['status'], string>> = {
    approved: declined ? p.partiallyApproved : m.approved,
    rejected: m.rejected,
    expired: m.expired,
    paid: m.paid,
    invoiced: m.decided,
  };

  const lines = html`<table class="lines"><caption class="sr-only">${m.quote} ${quote.folio}</caption><thead><tr><th scope="col">${m.description}</th><th scope="col" class="n">${m.quantity}</th><th scope="col" class="n">${m.unitPrice}</th><th scope="col" class="n">${m.amount}</th></tr></thead>
<tbody>${items.map((item) => {
    const price = money(item.precio_negociado ?? item.precio_unitario);
    return html`<tr class="line${item.declinada ? ' declined' : ''}"><td class="d">${item.descripcion}${item.declinada ? html`<span class="tag">${p.declined}</span>` : ''}</td><td class="n q">${number(item.cantidad)}${item.unidad ? ` ${item.unidad}` : ''}<span class="each"> × ${price}</span></td><td class="n p">${price}</td><td class="n">${item.declinada ? '—' : money(shownLineAmount(item, quote.iva_incluido, quote.moneda))}</td></tr>`;
  })}</tbody></table>
${quote.iva_incluido ? html`<p class="hint">${PRICES_INCLUDE_TAX[lang]}</p>` : ''}
<table class="totals"><tbody>
<tr><td>${m.subtotal}</td><td class="n">${money(quote.subtotal)}</td></tr>
${quote.descuento > 0 ? html`<tr><td>${m.discount}${quote.cupon ? ` (${quote.cupon})` : ''}</td><td class="n">−${money(quote.descuento)}</td></tr>` : ''}
<tr><td>${m.tax}</td><td class="n">${money(quote.impuestos)}</td></tr>
<tr class="total"><td>${m.total}</td><td class="n">${money(quote.total)}</td></tr>
</tbody></table>`;

  const decision = open
    ? html`<section class="card" aria-labelledby="decide"><h2 id="decide">${p.decide}</h2>
<form method="post" action="${action('approve')}" class="stack">${csrfField}
<fieldset id="lineas"${fieldErrors.lineas ? html` aria-describedby="lineas-error"` : ''}><legend>${p.linesToApprove}</legend><input type="hidden" name="eleccion" value="lineas"><p class="hint">${p.linesHint}</p>${errorOf('lineas')}
${items.map(
  (item) =>
    html`<label class="check"><input type="checkbox" name="lineas" value="${item.id}"${ticked(item.id) ? ' checked' : ''}${fieldErrors.lineas ? html` aria-invalid="true"` : ''}><span>${item.descripcion} · ${number(item.cantidad)} × ${money(item.precio_negociado ?? item.precio_unitario)}</span></label>`,
)}</fieldset>
<div class="field"><label for="nombre">${p.signerName}</label>${errorOf('nombre')}<input type="text" id="nombre" name="nombre" required maxlength="200" autocomplete="name"${invalid('nombre')} value="${values.nombre ?? ''}"></div>
<div class="field"><label for="email">${p.signerEmail}</label>${errorOf('email')}<input type="email" id="email" name="email" required maxlength="254" autocomplete="email"${invalid('email')} value="${values.email ?? ''}"></div>
<p class="hint">${p.acceptanceNote}</p>
<div class="actions"><button class="primary" type="submit">${p.approveSelected}</button></div>
</form>
<h3>${p.rejectTitle}</h3>
<form method="post" action="${action('reject')}" class="stack">${csrfField}
<div class="field"><label for="motivo">${p.rejectReason}</label>${errorOf('motivo')}<textarea id="motivo" name="motivo" maxlength="2000"${invalid('motivo')}>${values.motivo ?? ''}</textarea></div>
<div class="actions"><button class="secondary" type="submit">${m.reject}</button></div>
</form></section>`
    : html`<p class="status"${view.announceDecision ? html` role="status"` : ''}>${statusText[quote.status] ?? m.decided}</p>${
        quote.aceptacion
          ? html`<p class="accepted">${p.acceptedBy(quote.aceptacion.nombre, quote.aceptacion.email, moment(quote.aceptacion.fecha))}</p>`
          : ''
      }${
        quote.status === 'rejected' && quote.motivo_rechazo
          ? html`<p class="accepted">${withColon(lang, p.rejectedBecause)} ${quote.motivo_rechazo}</p>`
          : ''
      }`;

  const canPromise = quote.status === 'approved' && payments.saldo > 0;
  const schedule = planSchedule(payments, lang, day);
  const plan = html`<section class="card" aria-labelledby="plan"><h2 id="plan">${p.plan}</h2>
<p>${schedule.heading}</p>
<table class="stack"><thead><tr><th scope="col">${m.description}</th><th scope="col">${p.payBy}</th><th scope="col" class="n">${m.amount}</th></tr></thead><tbody>
${schedule.steps.map(
  (step) =>
    html`<tr><td>${step.name}</td><td data-label="${withColon(lang, p.payBy)}">${step.payBy}</td><td class="n">${money(step.monto)}</td></tr>`,
)}</tbody></table>
<dl class="meta"><div><dt>${p.paid}</dt><dd>${money(payments.pagado)}</dd></div><div><dt>${p.balance}</dt><dd>${money(payments.saldo)}</dd></div></dl>
${
  payments.pagos.length
    ? html`<h3>${p.payments}</h3><ul>${payments.pagos.map((pay) => html`<li>${day(pay.fecha)} · ${money(pay.monto)}</li>`)}</ul>`
    : ''
}
${
  payments.promesas.length
    ? html`<h3>${p.promises}</h3><ul>${payments.promesas.map((promise) => html`<li>${day(promise.fecha_promesa)} · ${money(promise.monto)} · ${p.promiseState[promise.estado]}</li>`)}</ul>`
    : ''
}
${
  canPromise
    ? html`<h3>${p.promiseTitle}</h3><form method="post" action="${action('promise')}" class="stack">${csrfField}
<div class="field"><label for="fecha_promesa">${p.promiseDate}</label>${errorOf('fecha_promesa')}<input type="date" id="fecha_promesa" name="fecha_promesa" required min="${view.today}"${invalid('fecha_promesa')} value="${values.fecha_promesa ?? ''}"></div>
<div class="field"><label for="monto">${p.promiseAmount} (${quote.moneda})</label>${errorOf('monto')}<input type="text" inputmode="decimal" autocomplete="off" id="monto" name="monto" required${invalid('monto')} value="${values.monto ?? String(payments.saldo).replace('.', decimalMark(locale))}"></div>
<div class="actions"><button class="secondary" type="submit">${p.promiseSubmit}</button></div></form>`
    : ''
}
</section>`;

  const chosenLine = values.item_id ?? '';
  const chosenKind = values.tipo_propuesta ?? '';
  const talk = html`<section class="card" aria-labelledby="talk"><h2 id="talk">${p.conversation}</h2>
${
  conversation.length
    ? html`<ol class="messages">${conversation.map(
        (message) =>
          html`<li class="${message.autor}"><span class="who">${message.autor === 'vendedor' ? `${p.seller} · ${org.nombre}` : p.client}</span> <span class="when">${moment(message.created_at)}</span>${
            message.item_id
              ? html`<div class="when">${withColon(lang, p.about)} ${lineName(message.item_id) ?? p.earlierLine}</div>`
              : ''
          }${
            message.propuesta
              ? html`<div><strong>${withColon(lang, p.counteroffer)}</strong> ${Object.entries(
                  message.propuesta,
                ).map(
                  ([name, value]) =>
                    `${name === 'cantidad' ? m.quantity : name === 'total' ? m.total : m.unitPrice} ${name === 'cantidad' ? number(value) : money(value)}`,
                )}</div>`
              : ''
          }<p class="text">${message.mensaje}</p></li>`,
      )}</ol>`
    : html`<p class="hint">${p.noMessages}</p>`
}
<form method="post" action="${action('comment')}" class="stack">${csrfField}
<div class="field"><label for="item_id">${p.about}</label>${errorOf('item_id')}<select id="item_id" name="item_id"${invalid('item_id')}><option value="">${p.wholeQuote}</option>${items.map(
    (item) =>
      html`<option value="${item.id}"${item.id === chosenLine ? ' selected' : ''}>${item.descripcion}</option>`,
  )}</select></div>
<div class="field"><label for="mensaje">${p.message}</label>${errorOf('mensaje')}<textarea id="mensaje" name="mensaje" required maxlength="2000"${invalid('mensaje')}>${values.mensaje ?? ''}</textarea></div>
${
  negotiable
    ? html`<fieldset><legend>${p.counteroffer}</legend>
<div class="field"><label for="tipo_propuesta">${p.counterKind}</label>${errorOf('tipo_propuesta')}<select id="tipo_propuesta" name="tipo_propuesta"${invalid('tipo_propuesta')}>${(
        [
          ['', p.noCounter],
          ['precio_unitario', p.counterPrice],
          ['cantidad', p.counterQuantity],
          ['total', p.counterTotal],
        ] as const
      ).map(
        ([value, label]) =>
          html`<option value="${value}"${value === chosenKind ? ' selected' : ''}>${label}</option>`,
      )}</select></div>
<div class="field"><label for="valor">${p.counterValue}</label>${errorOf('valor')}<input type="text" inputmode="decimal" autocomplete="off" id="valor" name="valor"${invalid('valor')} value="${values.valor ?? ''}"></div></fieldset>`
    : ''
}
<div class="actions"><button class="primary" type="submit">${p.send}</button></div>
</form></section>`;

  return html`<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${m.quote} ${quote.folio} · ${org.nombre}</title>
<link rel="stylesheet" href="/q/assets/quote.css"><link rel="stylesheet" href="${brandHref(org.brand_color)}"></head>
<body><main>
<header><h1>${m.quote} ${quote.folio}</h1><span class="merchant">${m.from} ${org.nombre}</span></header>
<nav class="langs" aria-label="${p.language}">${LANGS.map(
    (l) =>
      html`<a href="?lang=${l}" lang="${l}" hreflang="${l}"${l === lang ? html` aria-current="page"` : ''}>${l.toUpperCase()}</a>`,
  )}</nav>
${view.notice ? html`<p class="status" role="status">${view.notice}</p>` : ''}
${view.error ? html`<p class="alert" role="alert">${view.error}</p>` : ''}${
  Object.keys(fieldErrors).length > 0
    ? html`<div class="alert" role="alert"><p>${p.errors.summary}</p><ul>${Object.entries(fieldErrors).map(
        ([field, message]) => html`<li><a href="#${field}">${message}</a></li>`,
      )}</ul></div>`
    : ''
}
<div class="meta"><span>${quote.cliente_nombre}</span>${quote.vigencia ? html`<span>${withColon(lang, m.validUntil)} ${day(quote.vigencia)}</span>` : ''}${
    quote.terminos_codigo
      ? html`<span>${withColon(lang, m.terms)} ${termLabel(quote.terminos_codigo as never, lang)}</span>`
      : ''
  }</div>
<section class="card" aria-label="${m.quote} ${quote.folio}">${lines}
${org.widget.terms_text ? html`<p class="terms">${org.widget.terms_text}</p>` : ''}
${open ? '' : decision}
<p class="actions"><a class="button secondary" href="/q/${quote.token}/pdf?lang=${lang}">${m.downloadPdf}</a></p>
</section>
${open ? decision : ''}
${quote.status === 'rejected' ? '' : plan}
${talk}
</main></body></html>`;
}

/**
 * A draft's link (404: drafts are not shown): the widget gives the visitor this link with the
 * folio, before the merchant has reviewed and sent the quote, so it says so instead of "not found".
 */
export const quotePreparingPage = (lang: Lang, folio: string) =>
  html`<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${MESSAGES[lang].preparing(folio)}</title><link rel="stylesheet" href="/q/assets/quote.css"></head><body><main><section class="card"><h1>${MESSAGES[lang].preparing(folio)}</h1><p>${MESSAGES[lang].preparingText}</p></section></main></body></html>`;

/** The page for an unknown token. */
export const quoteNotFoundPage = (lang: Lang = 'es') =>
  html`<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${MESSAGES[lang].notFound}</title><link rel="stylesheet" href="/q/assets/quote.css"></head><body><main><section class="card"><h1>${MESSAGES[lang].notFound}</h1><p>${MESSAGES[lang].notFoundText}</p></section></main></body></html>`;
