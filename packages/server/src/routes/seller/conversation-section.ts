import { formatMoney } from '@svc/core';
import { type Context, Hono } from 'hono';
import { html } from 'hono/html';
import { ApiError } from '../../errors.js';
import { readForm, unreadableForm } from '../../http/form-body.js';
import { sameOrigin } from '../../http/same-origin.js';
import { isUuid } from '../../ids.js';
import type { KeyWithOrg } from '../../services/key-store.js';
import { runQuoteAction } from '../../services/quote-actions.js';
import { getQuoteDetail } from '../../services/quotes.js';
import type { AppDeps, AppEnv } from '../../types.js';

const HEADERS = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; form-action 'self'; frame-ancestors 'none'",
};

type QuoteDetail = Awaited<ReturnType<typeof getQuoteDetail>>;

/** The seller page's words for a quote's status (the page is in Spanish; codes stay in the API). */
export const QUOTE_STATUS_LABEL: Record<string, string> = {
  draft: 'Borrador',
  sent: 'Enviada',
  viewed: 'Vista por el cliente',
  approved: 'Aprobada',
  rejected: 'Rechazada',
  expired: 'Vencida',
  paid: 'Pagada',
  invoiced: 'Facturada',
};

/** The seller page's words for the quote actions it offers. */
export const QUOTE_ACTION_LABEL: Record<string, string> = {
  send: 'Enviar',
  resend: 'Reenviar',
  approve: 'Aprobar',
  reject: 'Rechazar',
  mark_paid: 'Marcar pagada',
  invoice: 'Facturar',
};

/** A status or action in words, or its code when the page has none for it. */
export const labelOf = (labels: Record<string, string>, code: string) => labels[code] ?? code;

/**
 * One quote as the seller follows it on the demo seller page (`/demo/seller/q/<id>`): its lines
 * (declined ones marked), the client's acceptance, and the conversation with counteroffers; the
 * seller answers through the quote action `comment`, as over the API. Every message is plain text,
 * escaped by the template.
 */
export function sellerConversationRoutes(deps: AppDeps, seller: () => Promise<KeyWithOrg | undefined>) {
  const page = (c: Context<AppEnv>, quote: QuoteDetail, notice = '', status: 200 | 400 | 409 = 200) => {
    const money = (n: number) => formatMoney(n, quote.moneda ?? 'MXN', 'es-MX');
    const lineName = (id: string | null) => quote.items.find((item) => item.id === id)?.descripcion ?? '—';
    return c.html(
      html`<!doctype html><html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${quote.folio} · Vendedor</title><link rel="stylesheet" href="/demo/demo.css"></head>
<body><header class="site"><a class="brand" href="/"><span aria-hidden="true">🌵</span> Estudio Nopal</a><nav><a href="/demo/seller">Vendedor</a><a href="/docs/api">API</a></nav></header>
<main><h1>${quote.folio} · ${quote.cliente} · ${labelOf(QUOTE_STATUS_LABEL, quote.status)}</h1>
${notice ? html`<p class="status" role="status">${notice}</p>` : ''}
<table class="quotes"><thead><tr><th>Línea</th><th>Cantidad</th><th>Precio</th><th>Importe</th></tr></thead><tbody>
${quote.items.map(
  (item) =>
    html`<tr><td>${item.descripcion}${item.declinada ? ' (no aprobada)' : ''}</td><td>${item.cantidad}</td><td>${money(item.precio_unitario)}</td><td>${item.declinada ? '—' : money(item.importe)}</td></tr>`,
)}</tbody></table>
<p>Total: <strong>${money(quote.total)}</strong>${
        quote.aceptacion
          ? html` · aceptada por ${quote.aceptacion.nombre} (${quote.aceptacion.email}) el ${quote.aceptacion.fecha} desde ${quote.aceptacion.ip ?? '—'}`
          : ''
      }${quote.motivo_rechazo ? html` · rechazada: ${quote.motivo_rechazo}` : ''}</p>
<h2>Conversación</h2>
${
  quote.conversacion.length
    ? html`<ol class="conversation" id="conversation">${quote.conversacion.map(
        (m) =>
          html`<li class="${m.autor}"><strong>${m.autor === 'vendedor' ? 'Tú' : quote.cliente}</strong> · ${m.created_at.slice(0, 16).replace('T', ' ')} UTC${m.item_id ? html` · sobre ${lineName(m.item_id)}` : ''}${
            m.propuesta
              ? html` · <strong>contraoferta</strong>: ${Object.entries(m.propuesta)
                  .map(([name, value]) => `${name} ${value}`)
                  .join(', ')}`
              : ''
          }<p class="text">${m.mensaje}</p></li>`,
      )}</ol>`
    : html`<p>Sin mensajes.</p>`
}
<form method="post" action="/demo/seller/q/${quote.id}/comment" class="stack">
<label for="item_id">Sobre</label><select id="item_id" name="item_id"><option value="">Toda la cotización</option>${quote.items.map(
        (item) => html`<option value="${item.id}">${item.descripcion}</option>`,
      )}</select>
<label for="mensaje">Respuesta</label><textarea id="mensaje" name="mensaje" required maxlength="2000"></textarea>
<button type="submit">Responder</button></form>
<p>Para aceptar una contraoferta, reenvía la cotización con las líneas nuevas (acción <code>resend</code>).</p>
</main></body></html>`,
      status,
      HEADERS,
    );
  };

  const load = async (c: Context<AppEnv>) => {
    const auth = await seller();
    const id = c.req.param('id');
    if (!auth || !id || !isUuid(id)) return undefined;
    try {
      return { auth, quote: await getQuoteDetail(deps, auth, id) };
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return undefined;
      throw error;
    }
  };

  return new Hono<AppEnv>()
    .get('/demo/seller/q/:id', async (c) => {
      const found = await load(c);
      return found ? page(c, found.quote) : c.notFound();
    })
    .post('/demo/seller/q/:id/comment', async (c) => {
      const found = await load(c);
      if (!found) return c.notFound();
      if (!sameOrigin(c)) return c.text('Cross-site form refused', 403);
      const form = await readForm(c);
      if (!form) return unreadableForm(c);
      const mensaje = typeof form.mensaje === 'string' ? form.mensaje : '';
      const itemId = typeof form.item_id === 'string' && form.item_id ? form.item_id : undefined;
      try {
        await runQuoteAction(deps, found.auth, found.quote.id, {
          action: 'comment',
          mensaje,
          ...(itemId ? { item_id: itemId } : {}),
        });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return page(c, found.quote, error.message, error.status === 409 ? 409 : 400);
      }
      return c.redirect(`/demo/seller/q/${found.quote.id}#conversation`, 303);
    });
}
