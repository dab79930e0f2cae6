import { formatMoney } from '@svc/core';
import { type Context, Hono } from 'hono';
import { html } from 'hono/html';
import { ApiError } from '../../errors.js';
import { sameOrigin } from '../../http/same-origin.js';
import { isUuid } from '../../ids.js';
import type { CurrencyReceivables } from '../../repositories/collections.js';
import { getCollections } from '../../services/collections.js';
import type { KeyWithOrg } from '../../services/key-store.js';
import { listQuotePage } from '../../services/quotes.js';
import { completeTaskAction, listTaskPage } from '../../services/tasks.js';
import { invokeWorkflow, listWorkflowPage } from '../../services/workflows.js';
import type { AppDeps, AppEnv } from '../../types.js';

const BUCKETS = [
  ['al_corriente', 'Al corriente', '#2f855a'],
  ['d1_30', '1–30 días', '#d69e2e'],
  ['d31_60', '31–60 días', '#dd6b20'],
  ['d61_90', '61–90 días', '#c53030'],
  ['mas_90', '+90 días', '#742a2a'],
] as const;

/**
 * The aging buckets of one currency as a horizontal bar chart drawn on the server (SVG, no
 * script, no inline style: the page's CSP allows neither).
 */
export function agingChart(m: CurrencyReceivables) {
  const max = Math.max(...BUCKETS.map(([key]) => m.antiguedad[key]), 1);
  const row = 26;
  return html`<svg class="aging" role="img" aria-label="Antigüedad de saldos en ${m.moneda}" width="520" height="${BUCKETS.length * row + 4}" viewBox="0 0 520 ${BUCKETS.length * row + 4}">
${BUCKETS.map(([key, label, color], i) => {
  const amount = m.antiguedad[key];
  const width = Math.round((amount / max) * 260);
  const y = i * row + 2;
  return html`<g><text x="0" y="${y + 16}" font-size="13" fill="currentColor">${label}</text><rect x="100" y="${y + 3}" width="${width}" height="18" rx="3" fill="${color}"></rect><text x="${108 + width}" y="${y + 16}" font-size="13" fill="currentColor">${formatMoney(amount, m.moneda, 'es-MX')}</text></g>`;
})}
</svg>`;
}

/**
 * The seller page's collections section (`/demo/seller`): receivables per currency with their
 * aging chart, the pending tasks with a button to complete each, and a button per workflow.
 */
export async function collectionsSection(deps: AppDeps, auth: KeyWithOrg) {
  const [collections, tasks, workflows] = await Promise.all([
    getCollections(deps, auth, { limit: 10, offset: 0 }),
    listTaskPage(deps, auth, { limit: 20, offset: 0, done: false }),
    listWorkflowPage(deps, auth),
  ]);
  const { monedas, clientes } = collections.data;
  return html`<section id="cobranza"><h2>Cobranza</h2>
${monedas.length === 0 ? html`<p>Nada por cobrar.</p>` : ''}
${monedas.map(
  (m) =>
    html`<h3>${m.moneda}: ${formatMoney(m.por_cobrar, m.moneda, 'es-MX')} por cobrar, ${formatMoney(m.vencido, m.moneda, 'es-MX')} vencido</h3>${agingChart(m)}`,
)}
${
  clientes.length > 0
    ? html`<table class="quotes" id="receivables"><thead><tr><th>Cliente</th><th>Saldo</th><th>Vencido</th><th>Documentos</th><th>Vence desde</th><th>Promesa</th></tr></thead><tbody>
${clientes.map(
  (c) =>
    html`<tr><td>${c.cliente}</td><td>${formatMoney(c.saldo, c.moneda, 'es-MX')}</td><td>${formatMoney(c.vencido, c.moneda, 'es-MX')}</td><td>${c.documentos}</td><td>${c.vencimiento_mas_antiguo ?? '—'}</td><td>${c.promesa_pendiente ? 'sí' : '—'}</td></tr>`,
)}</tbody></table>`
    : ''
}
<h2>Tareas</h2>
${tasks.data.length === 0 ? html`<p>Sin tareas pendientes.</p>` : ''}
<ul class="tasks" id="tasks">${tasks.data.map(
    (task) =>
      html`<li>${task.titulo}${task.due_date ? html` · vence ${task.due_date}` : ''} <form method="post" action="/demo/seller/tareas/${task.id}/complete" class="inline"><button type="submit">Hecha</button></form></li>`,
  )}</ul>
<h2>Flujos</h2>
<p id="workflows">${workflows.data.map(
    (w) =>
      html`<form method="post" action="/demo/seller/workflows/${w.id}" class="inline"><button type="submit"${w.activo ? '' : ' disabled'}>${w.nombre}</button></form> `,
  )}</p></section>`;
}

/**
 * The section's form handlers: complete a task, run a workflow (a quote workflow on the latest
 * sent and viewed quotes; an invoice workflow on the open invoices, once invoices exist). Each
 * answers with a redirect back to the page.
 */
export function collectionsSectionRoutes(deps: AppDeps, seller: () => Promise<KeyWithOrg | undefined>) {
  const back = (c: Context<AppEnv>) => c.redirect('/demo/seller#cobranza', 303);
  return new Hono<AppEnv>()
    .post('/demo/seller/tareas/:id/complete', async (c) => {
      const auth = await seller();
      const id = c.req.param('id');
      if (!auth || !isUuid(id)) return c.notFound();
      if (!sameOrigin(c)) return c.text('Cross-site form refused', 403);
      try {
        await completeTaskAction(deps, auth, id);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
      }
      return back(c);
    })
    .post('/demo/seller/workflows/:id', async (c) => {
      const auth = await seller();
      const id = c.req.param('id');
      if (!auth || !isUuid(id)) return c.notFound();
      if (!sameOrigin(c)) return c.text('Cross-site form refused', 403);
      const { data: workflows } = await listWorkflowPage(deps, auth);
      const workflow = workflows.find((w) => w.id === id);
      if (!workflow) return c.notFound();
      const ids: string[] = [];
      if (workflow.objeto === 'cotizacion') {
        for (const status of workflow.estados ?? ['sent', 'viewed']) {
          const page = await listQuotePage(deps, auth, { limit: 50, offset: 0, status });
          ids.push(...page.data.map((q) => q.id));
        }
      }
      try {
        if (ids.length > 0) await invokeWorkflow(deps, auth, id, ids.slice(0, 100));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
      }
      return back(c);
    });
}
