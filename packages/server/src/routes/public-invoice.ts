import { type Context, Hono } from 'hono';
import { html } from 'hono/html';
import { invoiceDocument, invoicePdfView, STATE_LABEL } from '../documents/invoice-document.js';
import { renderPdf } from '../documents/pdf-document.js';
import { INVOICE_MESSAGES } from '../i18n/invoice-page.js';
import { LANGS, type Lang, pickLang, withColon } from '../i18n/messages.js';
import { QUOTE_PAGE_MESSAGES } from '../i18n/quote-page.js';
import {
  findCreditNotes,
  findCreditNoteXml,
  findInvoiceByToken,
  findInvoiceItems,
  findInvoicePayments,
  findInvoiceXml,
  type InvoiceRow,
} from '../repositories/invoices.js';
import { findOrg } from '../services/orgs.js';
import type { AppDeps, AppEnv } from '../types.js';
import { PUBLIC_PAGE_HEADERS, TOKEN_RE } from './public-quote.js';
import { brandHref } from './public-styles.js';

/**
 * The public invoice pages (`/i/<token>`): what the client sees (no costs, no notes) with its
 * state, balance, payments and, in Mexico, the folio fiscal; its PDF and, once stamped, its CFDI.
 * The token is a credential: each URL answers for its own invoice only, and drafts have no page.
 */
export function publicInvoiceRoutes(deps: AppDeps) {
  const load = async (token: string) => {
    const invoice = TOKEN_RE.test(token) ? await findInvoiceByToken(deps.db, token) : undefined;
    if (!invoice) return undefined;
    const [org, items, payments, notes] = await Promise.all([
      findOrg(deps.db, { id: invoice.org_id }, invoice.mode),
      findInvoiceItems(deps.db, invoice.id),
      findInvoicePayments(deps.db, invoice.id),
      findCreditNotes(deps.db, invoice.id),
    ]);
    return { invoice, org: org!, items, payments, notes };
  };
  const langOf = (invoice: InvoiceRow, query: string | undefined): Lang =>
    pickLang(query) ?? pickLang(invoice.language) ?? 'es';

  const notFoundPage = (lang: Lang) => {
    const m = INVOICE_MESSAGES[lang];
    return html`<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${m.notFound}</title><link rel="stylesheet" href="/q/assets/quote.css"></head><body><main><section class="card"><h1>${m.notFound}</h1><p>${m.notFoundText}</p></section></main></body></html>`;
  };
  /** 404 in the language asked for, else the invoice's when it exists (a file it does not have). */
  const notFound = (c: Context<AppEnv>, invoice?: InvoiceRow) => {
    const query = c.req.query('lang');
    const lang = invoice ? langOf(invoice, query) : (pickLang(query) ?? 'es');
    return c.html(notFoundPage(lang), 404, PUBLIC_PAGE_HEADERS);
  };

  return (
    new Hono<AppEnv>()
      .get('/i/:token', async (c) => {
        const found = await load(c.req.param('token'));
        if (!found) return notFound(c);
        const { invoice, org } = found;
        const doc = invoiceDocument(invoice, found, org, langOf(invoice, c.req.query('lang')));
        const { m } = doc;
        const base = `/i/${invoice.token}`;
        return c.html(
          html`<!doctype html>
<html lang="${doc.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${doc.title} · ${org.nombre}</title>
<link rel="stylesheet" href="/q/assets/quote.css"><link rel="stylesheet" href="${brandHref(org.brand_color)}"></head>
<body><main>
<header><h1>${doc.title}</h1><span class="merchant">${m.from} ${org.nombre}</span></header>
<nav class="langs" aria-label="${QUOTE_PAGE_MESSAGES[doc.lang].language}">${LANGS.map(
            (l) =>
              html`<a href="?lang=${l}" lang="${l}" hreflang="${l}"${l === doc.lang ? html` aria-current="page"` : ''}>${l.toUpperCase()}</a>`,
          )}</nav>
<p class="status" role="status"><strong>${withColon(doc.lang, STATE_LABEL[doc.lang])}</strong> ${doc.state}${doc.balance === null ? '' : html` · <strong>${withColon(doc.lang, m.balance)}</strong> ${doc.balance}`}</p>
<dl class="meta">${doc.meta.map(([label, value]) => html`<div><dt>${label}</dt><dd>${value}</dd></div>`)}</dl>
<section class="card"><table class="lines"><caption class="sr-only">${doc.title}</caption><thead><tr><th scope="col">${m.description}</th><th scope="col" class="n">${m.quantity}</th><th scope="col" class="n">${m.unitPrice}</th><th scope="col" class="n">${m.amount}</th></tr></thead>
<tbody>${doc.lines.map(
            (line) =>
              html`<tr class="line"><td class="d">${line.descripcion}</td><td class="n q">${line.cantidad}<span class="each"> × ${line.precio}</span></td><td class="n p">${line.precio}</td><td class="n">${line.importe}</td></tr>`,
          )}</tbody></table>
${doc.taxNote ? html`<p class="hint">${doc.taxNote}</p>` : ''}
<table class="totals"><tbody>${doc.totals.map(
            ([label, value], index) =>
              html`<tr${index === doc.totals.length - 1 ? html` class="total"` : ''}><td>${label}</td><td class="n">${value}</td></tr>`,
          )}</tbody></table></section>
${
  doc.payments.length > 0
    ? html`<section class="card"><h2>${m.payments}</h2><table class="stack"><thead><tr><th scope="col">${m.date}</th><th scope="col">${m.method}</th><th scope="col">${m.reference}</th><th scope="col" class="n">${m.amount}</th></tr></thead><tbody>${doc.payments.map(
        (p) =>
          html`<tr><td>${p.fecha}</td><td data-label="${withColon(doc.lang, m.method)}">${p.metodo}</td><td data-label="${withColon(doc.lang, m.reference)}">${p.referencia}</td><td class="n">${p.monto}</td></tr>`,
      )}</tbody></table></section>`
    : ''
}
${
  doc.notes.length > 0
    ? html`<section class="card"><h2>${m.creditNotes}</h2><table class="stack"><thead><tr><th scope="col">${m.creditNote}</th><th scope="col">${m.reason}</th><th scope="col" class="n">${m.amount}</th></tr></thead><tbody>${doc.notes.map(
        (n) =>
          html`<tr><td>${n.numero}<br><small>${n.folio_fiscal ?? ''}</small>${
            n.folio_fiscal && invoice.tipo === 'cfdi'
              ? html`<br><a href="${base}/nc/${n.numero}.xml">${m.downloadXml}</a>`
              : ''
          }</td><td data-label="${withColon(doc.lang, m.reason)}">${n.motivo}</td><td class="n">${n.monto}</td></tr>`,
      )}</tbody></table></section>`
    : ''
}
<p class="actions"><a class="button" href="${base}/pdf?lang=${doc.lang}">${m.downloadPdf}</a>${
            invoice.folio_fiscal && invoice.tipo === 'cfdi'
              ? html`<a class="button secondary" href="${base}/cfdi.xml">${m.downloadXml}</a>`
              : ''
          }</p>
${doc.sandbox ? html`<p class="terms">${m.sandboxStamp}</p>` : ''}
</main></body></html>`,
          200,
          PUBLIC_PAGE_HEADERS,
        );
      })
      .get('/i/:token/pdf', async (c) => {
        const found = await load(c.req.param('token'));
        if (!found) return notFound(c);
        const doc = invoiceDocument(
          found.invoice,
          found,
          found.org,
          langOf(found.invoice, c.req.query('lang')),
        );
        const pdf = await renderPdf(invoicePdfView(doc, found.org.brand_color));
        return c.body(new Uint8Array(pdf), 200, {
          ...PUBLIC_PAGE_HEADERS,
          'Content-Type': 'application/pdf',
          'Content-Disposition': `inline; filename="${found.invoice.numero ?? 'factura'}.pdf"`,
        });
      })
      .get('/i/:token/cfdi.xml', async (c) => {
        const token = c.req.param('token');
        const invoice = TOKEN_RE.test(token) ? await findInvoiceByToken(deps.db, token) : undefined;
        const xml = invoice?.folio_fiscal ? await findInvoiceXml(deps.db, invoice.id) : null;
        if (!invoice || !xml) return notFound(c, invoice);
        return c.body(xml, 200, {
          ...PUBLIC_PAGE_HEADERS,
          'Content-Type': 'application/xml; charset=utf-8',
          'Content-Disposition': `attachment; filename="${invoice.numero}-${invoice.folio_fiscal}.xml"`,
        });
      })
      // A stamped credit note's CFDI (type E, related to the invoice), as the invoice's own.
      .get('/i/:token/nc/:file', async (c) => {
        const token = c.req.param('token');
        const numero = /^(NC-\d{6,})\.xml$/.exec(c.req.param('file'))?.[1];
        const invoice = numero && TOKEN_RE.test(token) ? await findInvoiceByToken(deps.db, token) : undefined;
        const note = invoice ? await findCreditNoteXml(deps.db, invoice.id, numero!) : null;
        if (!note) return notFound(c, invoice);
        return c.body(note.xml, 200, {
          ...PUBLIC_PAGE_HEADERS,
          'Content-Type': 'application/xml; charset=utf-8',
          'Content-Disposition': `attachment; filename="${numero}-${note.folio_fiscal}.xml"`,
        });
      })
  );
}
