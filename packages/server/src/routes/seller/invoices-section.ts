import { formatMoney } from '@svc/core';
import { type Context, Hono } from 'hono';
import { html } from 'hono/html';
import { ApiError } from '../../errors.js';
import { readForm, unreadableForm } from '../../http/form-body.js';
import { sameOrigin } from '../../http/same-origin.js';
import { INVOICE_MESSAGES } from '../../i18n/invoice-page.js';
import { isUuid } from '../../ids.js';
import {
  INVOICE_ACTIONS,
  type InvoiceAction,
  listInvoicePage,
  runInvoiceAction,
} from '../../services/invoices.js';
import type { KeyWithOrg } from '../../services/key-store.js';
import type { AppDeps, AppEnv } from '../../types.js';
import { labelOf } from './conversation-section.js';

/** The actions the seller page offers for an invoice in each state (pay has its own form). */
const ACTIONS_BY_STATE: Record<string, InvoiceAction[]> = {
  draft: ['finalize'],
  open: ['send', 'mark_uncollectible', 'void'],
  uncollectible: ['send', 'void'],
  paid: ['send'],
};

/** The seller page's words for an invoice's state and for its actions (the page is in Spanish). */
const INVOICE_STATE_LABEL: Record<string, string> = { draft: 'Borrador', ...INVOICE_MESSAGES.es.states };
const INVOICE_ACTION_LABEL: Record<string, string> = {
  finalize: 'Emitir',
  send: 'Enviar',
  pay: 'Registrar pago',
  credit_note: 'Nota de crédito',
  void: 'Anular',
  mark_uncollectible: 'Marcar incobrable',
};

/** The seller page's invoices: number, client, state, fiscal folio, balance, actions and links. */
export async function invoicesSection(deps: AppDeps, auth: KeyWithOrg) {
  const { data: invoices } = await listInvoicePage(deps, auth, { limit: 20 });
  return html`<h2 id="facturas">Facturas recientes</h2>
<table class="quotes invoices"><thead><tr><th>Número</th><th>Cliente</th><th>Estado</th><th>Folio fiscal</th><th>Saldo</th><th>Acciones</th><th>Documentos</th></tr></thead><tbody>
${invoices.map(
  (
    i,
  ) => html`<tr data-id="${i.id}"><td>${i.numero ?? 'borrador'}</td><td>${i.cliente}</td><td class="status-cell" data-status="${i.estado}">${labelOf(INVOICE_STATE_LABEL, i.estado)}${i.estado_fiscal === 'rejected' ? html` (rechazada: ${i.motivo_fiscal})` : ''}</td><td><small>${i.folio_fiscal ?? '—'}</small></td><td>${formatMoney(i.saldo, i.moneda, 'es-MX')}</td>
<td>${(ACTIONS_BY_STATE[i.estado] ?? []).map(
    (action) =>
      html`<form method="post" action="/demo/seller/facturas/${i.id}/${action}" class="inline"><button type="submit" aria-label="${labelOf(INVOICE_ACTION_LABEL, action)} ${i.numero ?? 'borrador'}">${labelOf(INVOICE_ACTION_LABEL, action)}</button></form>`,
  )}${
    i.estado === 'open' || i.estado === 'uncollectible'
      ? html`<form method="post" action="/demo/seller/facturas/${i.id}/pay" class="inline"><label>Monto <input name="monto" type="number" step="0.01" min="0.01" max="${i.saldo}" value="${i.saldo}" required></label><button type="submit" aria-label="${INVOICE_ACTION_LABEL.pay} ${i.numero ?? 'borrador'}">${INVOICE_ACTION_LABEL.pay}</button></form>`
      : ''
  }</td>
<td>${i.link_publico ? html`<a href="${i.link_publico}" target="_blank" rel="noopener">ver</a> · <a href="${i.link_publico}/pdf">PDF</a>${i.folio_fiscal ? html` · <a href="${i.link_publico}/cfdi.xml">XML</a>` : ''}` : '—'}</td></tr>`,
)}
</tbody></table>`;
}

/** The seller page's invoice buttons: each runs the action with the demo's secret test key. */
export function invoiceSellerRoutes(
  deps: AppDeps,
  seller: () => Promise<KeyWithOrg | undefined>,
  page: (c: Context<AppEnv>, notice: string) => Promise<Response>,
) {
  return new Hono<AppEnv>().post('/demo/seller/facturas/:id/:action', async (c) => {
    if (!sameOrigin(c)) return c.text('Cross-site form refused', 403);
    const auth = await seller();
    const id = c.req.param('id');
    const action = c.req.param('action') as InvoiceAction;
    if (!auth || !isUuid(id) || !INVOICE_ACTIONS.includes(action)) return c.notFound();
    const form = await readForm(c);
    if (!form) return unreadableForm(c);
    const monto = action === 'pay' ? Number(form.monto) : undefined;
    try {
      const invoice = await runInvoiceAction(deps, auth, id, {
        action,
        ...(monto !== undefined ? { monto, metodo: 'transferencia' as const } : {}),
      });
      return page(
        c,
        `${invoice.numero ?? 'Factura'}: ${labelOf(INVOICE_ACTION_LABEL, action)} → ${labelOf(INVOICE_STATE_LABEL, invoice.estado)}`,
      );
    } catch (error) {
      if (error instanceof ApiError) return page(c, error.message);
      throw error;
    }
  });
}
