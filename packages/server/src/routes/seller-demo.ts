import { existsSync, readFileSync } from 'node:fs';
import { formatMoney } from '@svc/core';
import { type Context, Hono } from 'hono';
import { html } from 'hono/html';
import { ApiError } from '../errors.js';
import { sameOrigin } from '../http/same-origin.js';
import { isUuid } from '../ids.js';
import { listEvents } from '../repositories/events.js';
import type { KeyWithOrg } from '../services/key-store.js';
import { QUOTE_ACTIONS, runQuoteAction } from '../services/quote-actions.js';
import { listQuotePage } from '../services/quotes.js';
import type { AppDeps, AppEnv } from '../types.js';
import { collectionsSection, collectionsSectionRoutes } from './seller/collections-section.js';
import {
  labelOf,
  QUOTE_ACTION_LABEL,
  QUOTE_STATUS_LABEL,
  sellerConversationRoutes,
} from './seller/conversation-section.js';
import { invoiceSellerRoutes, invoicesSection } from './seller/invoices-section.js';

const ACTIONS_BY_STATUS: Record<string, string[]> = {
  draft: ['send'],
  sent: ['approve', 'reject', 'resend'],
  viewed: ['approve', 'reject', 'resend'],
  approved: ['mark_paid', 'invoice'],
  paid: ['invoice'],
  expired: ['resend'],
};

/**
 * The seller's demo page (`/demo/seller`): the sandbox's latest quotes with their status and
 * events, buttons for the actions and links to the public pages. It works server-side with the
 * secret test key `svc-server seed` wrote (see `demoKeysFileOf`); the key never reaches the browser.
 */
export function sellerDemoRoutes(deps: AppDeps) {
  const seller = async (): Promise<KeyWithOrg | undefined> => {
    const file = deps.config.demoKeysFile;
    if (!file || !existsSync(file)) return undefined;
    const { keys } = JSON.parse(readFileSync(file, 'utf8')) as { keys: { sk_test_write: string } };
    return (await deps.keys.find(keys.sk_test_write)) ?? undefined;
  };
  const headers = {
    'Cache-Control': 'no-store',
    'Content-Security-Policy':
      "default-src 'self'; script-src 'self'; style-src 'self'; form-action 'self'; frame-ancestors 'none'",
  };
  const page = async (c: Context<AppEnv>, notice = '') => {
    const auth = await seller();
    if (!auth)
      return c.html(
        '<p>The seller demo needs the demo keys: run svc-server seed (or npm start), then serve.</p>',
        404,
      );
    const { data: quotes } = await listQuotePage(deps, auth, { limit: 20, offset: 0 });
    const events = await listEvents(deps.db, { orgId: auth.org.id, mode: 'test', limit: 30 });
    return c.html(
      html`<!doctype html><html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Vendedor · Estudio Nopal</title><link rel="stylesheet" href="/demo/demo.css"></head>
<body><header class="site"><a class="brand" href="/"><span aria-hidden="true">🌵</span> Estudio Nopal</a><nav><a href="/">Tienda</a><a href="/demo/spa/">SPA</a><a href="/docs/api">API</a></nav></header>
<main><h1>Cotizaciones recientes (modo de prueba)</h1>
${notice ? html`<p class="status" role="status">${notice}</p>` : ''}
<table class="quotes" id="quotes"><thead><tr><th>Folio</th><th>Cliente</th><th>Estado</th><th>Total</th><th>Acciones</th><th>Enlace</th><th>Conversación</th></tr></thead><tbody>
${quotes.map(
  (
    q,
  ) => html`<tr data-id="${q.id}"><td>${q.folio}</td><td>${q.cliente}</td><td class="status-cell" data-status="${q.status}">${labelOf(QUOTE_STATUS_LABEL, q.status)}</td><td>${formatMoney(q.total, q.moneda, 'es-MX')}</td>
<td>${(ACTIONS_BY_STATUS[q.status] ?? []).map(
    (action) =>
      html`<form method="post" action="/demo/seller/${q.id}/${action}" class="inline"><button type="submit" aria-label="${labelOf(QUOTE_ACTION_LABEL, action)} ${q.folio}">${labelOf(QUOTE_ACTION_LABEL, action)}</button></form>`,
  )}</td><td>${q.status === 'draft' ? '—' : html`<a href="${q.link_publico}" target="_blank" rel="noopener">ver</a>`}</td><td><a href="/demo/seller/q/${q.id}">mensajes</a></td></tr>`,
)}
</tbody></table>
${await invoicesSection(deps, auth)}
${await collectionsSection(deps, auth)}
<h2 id="eventos">Eventos</h2><ul class="events" tabindex="0" aria-labelledby="eventos">${events.records.map((e) => html`<li>${e.created_at} · <strong>${e.type}</strong> · ${String(e.data.folio ?? e.data.empresa ?? e.object_id)} · ${e.actor}</li>`)}</ul>
</main></body></html>`,
      200,
      headers,
    );
  };
  return new Hono<AppEnv>()
    .route('/', collectionsSectionRoutes(deps, seller))
    .route('/', sellerConversationRoutes(deps, seller))
    .get('/demo/seller', (c) => page(c))
    .route('/', invoiceSellerRoutes(deps, seller, page))
    .post('/demo/seller/:id/:action', async (c) => {
      if (!sameOrigin(c)) return c.text('Cross-site form refused', 403);
      const auth = await seller();
      const id = c.req.param('id');
      const action = c.req.param('action') as (typeof QUOTE_ACTIONS)[number];
      if (!auth || !isUuid(id) || !QUOTE_ACTIONS.includes(action)) return c.notFound();
      try {
        const quote = await runQuoteAction(deps, auth, id, { action });
        return page(
          c,
          `${quote.folio}: ${labelOf(QUOTE_ACTION_LABEL, action)} → ${labelOf(QUOTE_STATUS_LABEL, quote.status)}`,
        );
      } catch (error) {
        if (error instanceof ApiError) return page(c, error.message);
        throw error;
      }
    });
}
