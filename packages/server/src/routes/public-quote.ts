import { formatMoney, termLabel } from '@svc/core';
import { Hono } from 'hono';
import { html } from 'hono/html';
import { renderPdf } from '../documents/pdf-document.js';
import { quotePdfView } from '../documents/quote-document.js';
import { type Lang, MESSAGES, pickLang } from '../i18n/messages.js';
import { findQuoteItems, type QuoteRow } from '../repositories/quotes.js';
import { findOrg } from '../services/orgs.js';
import { clientMove, findPublicQuote } from '../services/quote-actions.js';
import type { AppDeps, AppEnv } from '../types.js';

/** What a public link's token looks like; anything else is a 404 without a query. */
export const TOKEN_RE = /^[0-9A-Za-z]{20,80}$/;

// Strict CSP: the page has no script at all, and its one stylesheet is served by us.
const CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' https: data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const STYLES = `*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f4f5f7}
main{max-width:760px;margin:0 auto;padding:24px 16px}header{display:flex;justify-content:space-between;gap:12px;flex-wrap:wrap;align-items:baseline}
h1{font-size:1.4rem;margin:0}.merchant{color:#5b6470}.card{background:#fff;border-radius:12px;padding:20px;margin-top:16px;box-shadow:0 1px 3px #0002}
table{width:100%;border-collapse:collapse}th,td{padding:8px 4px;text-align:left;border-bottom:1px solid #e5e7eb;vertical-align:top}
td.n,th.n{text-align:right;white-space:nowrap}.totals td{border:0;padding:4px}.totals tr.total td{font-weight:700;font-size:1.15rem;border-top:2px solid #1b1f24}
.meta{display:flex;gap:4px 24px;flex-wrap:wrap;color:#5b6470;margin-top:8px}.each{display:none}.actions{display:flex;gap:12px;margin-top:20px;flex-wrap:wrap}
button{font:inherit;padding:12px 20px;border-radius:8px;border:1px solid #1f7a4d;cursor:pointer;min-height:44px}
button.primary{background:#1f7a4d;color:#fff}button.secondary{background:#fff;color:#1f7a4d}
.status{padding:12px;border-radius:8px;background:#eef6f1;margin-top:16px}a.button{display:inline-block;padding:12px 20px;border-radius:8px;background:#1f7a4d;color:#fff;text-decoration:none;min-height:44px}a.button.secondary{background:#fff;color:#1f7a4d;border:1px solid #1f7a4d}h2{font-size:1.1rem;margin:0 0 8px}dl.meta{margin:8px 0 0}dl.meta div{display:flex;gap:6px}dl.meta dt{font-weight:600}dl.meta dd{margin:0}.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.terms{white-space:pre-line;color:#5b6470;font-size:.9rem}
@media (max-width:560px){thead{display:none}tr.line{display:grid;grid-template-columns:1fr auto;gap:2px 8px;padding:10px 0;border-bottom:1px solid #e5e7eb}
tr.line td{border:0;padding:0}tr.line td.d{grid-column:1/3;font-weight:600}tr.line td.q{text-align:left;color:#5b6470}tr.line td.p{display:none}.each{display:inline}}`;

/** Headers of every public page: strict CSP, never cached, no referrer (the URL is a credential). */
export const PUBLIC_PAGE_HEADERS = {
  'Content-Security-Policy': CSP,
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

/** The public quote page `/q/<token>`: what the client sees, with approve and reject. */
export function publicQuoteRoutes(deps: AppDeps) {
  const page = async (quote: QuoteRow) => {
    const org = (await findOrg(deps.db, { id: quote.org_id }))!;
    const items = await findQuoteItems(deps.db, quote.id);
    const lang = (
      (quote.language ?? quote.draft_language) in MESSAGES ? (quote.language ?? quote.draft_language) : 'es'
    ) as Lang;
    const m = MESSAGES[lang];
    // Formats follow the merchant's country: Spanish in Mexico writes $24,500.00, in Spain 24.500,00 €.
    const locale = `${lang}-${org.country}`;
    const money = (n: number) => formatMoney(n, quote.moneda, locale);
    const number = (n: number) => new Intl.NumberFormat(locale).format(n);
    const date = quote.vigencia
      ? new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(
          new Date(`${quote.vigencia}T00:00:00Z`),
        )
      : '';
    const status: Partial<Record<QuoteRow['status'], string>> = {
      approved: m.approved,
      rejected: m.rejected,
      expired: m.expired,
      paid: m.paid,
      invoiced: m.decided,
    };
    const open = quote.status === 'sent' || quote.status === 'viewed';
    return html`<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${m.quote} ${quote.folio} · ${org.nombre}</title>
<link rel="stylesheet" href="/q/assets/quote.css"></head>
<body><main>
<header><h1>${m.quote} ${quote.folio}</h1><span class="merchant">${m.from} ${org.nombre}</span></header>
<div class="meta"><span>${quote.cliente_nombre}</span>${date ? html`<span>${m.validUntil}: ${date}</span>` : ''}${
      quote.terminos_codigo
        ? html`<span>${m.terms}: ${termLabel(quote.terminos_codigo as never, lang)}</span>`
        : ''
    }</div>
<section class="card"><table><thead><tr><th>${m.description}</th><th class="n">${m.quantity}</th><th class="n">${m.unitPrice}</th><th class="n">${m.amount}</th></tr></thead>
<tbody>${items.map(
      (item) =>
        html`<tr class="line"><td class="d">${item.descripcion}</td><td class="n q">${number(item.cantidad)}${item.unidad ? ` ${item.unidad}` : ''}<span class="each"> × ${money(item.precio_negociado ?? item.precio_unitario)}</span></td><td class="n p">${money(item.precio_negociado ?? item.precio_unitario)}</td><td class="n">${money(item.importe)}</td></tr>`,
    )}</tbody></table>
<table class="totals"><tbody>
<tr><td>${m.subtotal}</td><td class="n">${money(quote.subtotal)}</td></tr>
${quote.descuento > 0 ? html`<tr><td>${m.discount}${quote.cupon ? ` (${quote.cupon})` : ''}</td><td class="n">−${money(quote.descuento)}</td></tr>` : ''}
<tr><td>${m.tax}</td><td class="n">${money(quote.impuestos)}</td></tr>
<tr class="total"><td>${m.total}</td><td class="n">${money(quote.total)}</td></tr>
</tbody></table>
${org.widget.terms_text ? html`<p class="terms">${org.widget.terms_text}</p>` : ''}
${
  open
    ? html`<form method="post" class="actions"><button class="primary" formaction="/q/${quote.token}/approve">${m.approve}</button><button class="secondary" formaction="/q/${quote.token}/reject">${m.reject}</button></form>`
    : html`<p class="status" role="status">${status[quote.status] ?? m.decided}</p>`
}
<p class="actions"><a class="button secondary" href="/q/${quote.token}/pdf">${m.downloadPdf}</a></p>
</section></main></body></html>`;
  };

  const notFoundPage = (lang: Lang = 'es') =>
    html`<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${MESSAGES[lang].notFound}</title><link rel="stylesheet" href="/q/assets/quote.css"></head><body><main><section class="card"><h1>${MESSAGES[lang].notFound}</h1><p>${MESSAGES[lang].notFoundText}</p></section></main></body></html>`;

  const headers = PUBLIC_PAGE_HEADERS;

  return new Hono<AppEnv>()
    .get('/q/assets/quote.css', (c) =>
      c.body(STYLES, 200, {
        'Content-Type': 'text/css; charset=utf-8',
        'Cache-Control': 'public, max-age=3600',
      }),
    )
    .get('/q/:token', async (c) => {
      const token = c.req.param('token');
      let quote = TOKEN_RE.test(token) ? await findPublicQuote(deps.db, token) : undefined;
      if (!quote) return c.html(notFoundPage(), 404, headers);
      if (quote.status === 'sent') quote = (await clientMove(deps.db, token, 'open')) ?? quote;
      return c.html(await page(quote), 200, headers);
    })
    .get('/q/:token/pdf', async (c) => {
      const token = c.req.param('token');
      const quote = TOKEN_RE.test(token) ? await findPublicQuote(deps.db, token) : undefined;
      if (!quote) return c.html(notFoundPage(), 404, headers);
      const org = (await findOrg(deps.db, { id: quote.org_id }))!;
      const items = await findQuoteItems(deps.db, quote.id);
      const lang = pickLang(quote.language ?? quote.draft_language) ?? 'es';
      const pdf = await renderPdf(quotePdfView(quote, items, org, lang));
      return c.body(new Uint8Array(pdf), 200, {
        ...headers,
        'Content-Type': 'application/pdf',
        'Content-Disposition': `inline; filename="${quote.folio}.pdf"`,
      });
    })
    .post('/q/:token/:move{approve|reject}', async (c) => {
      const token = c.req.param('token');
      const move = c.req.param('move') as 'approve' | 'reject';
      const quote = TOKEN_RE.test(token) ? await clientMove(deps.db, token, move) : undefined;
      if (!quote) return c.html(notFoundPage(), 404, headers);
      // Post/redirect/get: a reload does not post again.
      return c.redirect(`/q/${token}`, 303);
    });
}
