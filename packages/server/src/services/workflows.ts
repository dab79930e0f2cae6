import { formatMoney } from '@svc/core';
import type { Queryable } from '../db/database.js';
import { documentLocale } from '../documents/document-locale.js';
import { ApiError, invalidState, notFound } from '../errors.js';
import { offsetMeta } from '../http/query.js';
import { REMINDER } from '../i18n/collections.js';
import type { Lang } from '../i18n/messages.js';
import { authorize } from '../middleware/authorize.js';
import { findClientById } from '../repositories/clients.js';
import { findInvoice, type InvoiceRow } from '../repositories/invoices.js';
import { findQuote, type QuoteRow } from '../repositories/quotes.js';
import { findWorkflow, listWorkflows, type WorkflowRow } from '../repositories/workflows.js';
import type { WorkflowStep } from '../schemas/requests.js';
import type { AppDeps } from '../types.js';
import { balanceOf as invoiceBalance, invoiceLink } from './invoice-view.js';
import { markUncollectibleInTx } from './invoices.js';
import type { KeyWithOrg } from './key-store.js';
import type { Org } from './orgs.js';
import { balanceOf, isoDay } from './payments.js';
import { addQuoteMessage, MAX_MESSAGE_LENGTH } from './quote-conversation.js';
import { type QueuedEmail, queueEmail, sendQueuedEmail } from './quote-email.js';
import { addDays, sendQuoteInTx } from './quote-sending.js';
import { publicLink } from './quote-view.js';
import { apiActor } from './quotes.js';
import { createTaskInTx } from './tasks.js';

/** A workflow as the API returns it. */
export function workflowView(workflow: WorkflowRow) {
  return {
    id: workflow.id,
    object: 'workflow' as const,
    nombre: workflow.nombre,
    objeto: workflow.objeto,
    pasos: workflow.pasos,
    estados: workflow.estados,
    activo: workflow.activo,
  };
}

/**
 * GET /workflows, paged with `limit` and `offset` like every list. An organization has a handful
 * of workflows, so the page is cut from all of them, which also gives the total.
 */
export async function listWorkflowPage(
  deps: AppDeps,
  auth: KeyWithOrg,
  page: { limit: number; offset: number } = { limit: 200, offset: 0 },
) {
  const rows = await listWorkflows(deps.db, { orgId: auth.org.id, mode: auth.key.mode });
  return {
    data: rows.slice(page.offset, page.offset + page.limit).map(workflowView),
    meta: offsetMeta(page, rows.length),
  };
}

/** The outcome of a workflow on one record. */
export type WorkflowResult =
  | { id: string; ok: true }
  | { id: string; ok: false; code: string; error: string };

/** What a step needs to know about the run. */
interface RunContext {
  deps: AppDeps;
  org: Org;
  mode: 'test' | 'live';
  actor: string;
  now: Date;
  emails: QueuedEmail[];
}

/**
 * Runs a workflow's steps on each record (design.md section 13), each record in its own
 * transaction: a record that is missing, of the wrong kind or in the wrong state fails alone and
 * keeps nothing of its steps. 404 for an unknown workflow, 409 for an inactive one. E-mails go out
 * after their record's commit.
 */
export async function invokeWorkflow(deps: AppDeps, auth: KeyWithOrg, id: string, ids: string[]) {
  const workflow = await findWorkflow(deps.db, { orgId: auth.org.id, mode: auth.key.mode }, id);
  if (!workflow) throw notFound('Workflow');
  if (!workflow.activo) throw invalidState(`Workflow ${workflow.nombre} is not active. Nothing was run.`);
  // Its steps change quotes or invoices (and add tasks): a restricted key needs to be allowed
  // those changes itself, not only to run workflows.
  authorize(auth, {
    resource: workflow.objeto === 'cotizacion' ? 'cotizaciones' : 'facturas',
    level: 'write',
  });
  if (workflow.pasos.some((paso) => paso.tipo === 'create_task'))
    authorize(auth, { resource: 'tareas', level: 'write' });
  const resultados: WorkflowResult[] = [];
  for (const recordId of ids) {
    const context: RunContext = {
      deps,
      org: auth.org,
      mode: auth.key.mode,
      actor: apiActor(auth),
      now: deps.now(),
      emails: [],
    };
    try {
      await deps.db.transaction((tx) =>
        workflow.objeto === 'cotizacion'
          ? runOnQuote(tx, workflow, recordId, context)
          : runOnInvoice(tx, workflow, recordId, context),
      );
      resultados.push({ id: recordId, ok: true });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      resultados.push({ id: recordId, ok: false, code: error.code, error: error.message });
      continue;
    }
    if (deps.mailer) for (const email of context.emails) await sendQueuedEmail(deps.db, deps.mailer, email);
  }
  return { workflow_id: workflow.id, resultados };
}

const wrongState = (what: string, status: string, step: string, allowed: readonly string[]) =>
  invalidState(
    `${step}: the ${what} is ${status}; allowed from: ${allowed.join(', ')}. Nothing was changed.`,
  );

/**
 * `{folio}`, `{numero}` and `{cliente}` of a step's text replaced by the record's, in one pass:
 * a client named `$&` or `{folio}` is written as named (a replacement string would read `$`
 * patterns, and a second pass would fill a placeholder the name brought).
 */
const fill = (text: string, values: { folio: string; numero: string; cliente: string }) =>
  text.replace(/\{(folio|numero|cliente)\}/g, (_, name: keyof typeof values) => values[name]);

/**
 * A filled text kept within what its record takes (code points): a task title 200, a comment
 * 2,000. A long client name in it is cut, ending in "…", rather than failing the record.
 */
const clip = (text: string, max: number) => {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
};
const TASK_TITLE_MAX = 200;

async function runOnQuote(tx: Queryable, workflow: WorkflowRow, id: string, context: RunContext) {
  const scope = { orgId: context.org.id, mode: context.mode };
  let quote = await findQuote(tx, scope, id, true);
  if (!quote) throw notFound('Quote');
  if (workflow.estados && !workflow.estados.includes(quote.status)) {
    throw wrongState('quote', quote.status, workflow.nombre, workflow.estados);
  }
  for (const step of workflow.pasos) quote = await runQuoteStep(tx, step, quote, context);
}

/** A `create_task` step: a task due in `dias` days on the record, its title filled in. */
async function createStepTask(
  tx: Queryable,
  step: Extract<WorkflowStep, { tipo: 'create_task' }>,
  names: Parameters<typeof fill>[1],
  record: { cotizacion_id: string } | { factura_id: string },
  context: RunContext,
) {
  await createTaskInTx(
    tx,
    { orgId: context.org.id, mode: context.mode },
    {
      titulo: clip(fill(step.titulo, names), TASK_TITLE_MAX),
      due_date: addDays(context.now, step.dias),
      ...record,
    },
    context.actor,
  );
}

const REMINDABLE_QUOTE = ['sent', 'viewed', 'approved'] as const;
const RESENDABLE = ['sent', 'viewed', 'expired'] as const;

async function runQuoteStep(
  tx: Queryable,
  step: WorkflowStep,
  quote: QuoteRow,
  context: RunContext,
): Promise<QuoteRow> {
  const scope = { orgId: context.org.id, mode: context.mode };
  const names = { folio: quote.folio, numero: quote.folio, cliente: quote.cliente_nombre };
  switch (step.tipo) {
    case 'create_task':
      await createStepTask(tx, step, names, { cotizacion_id: quote.id }, context);
      return quote;
    case 'send_reminder': {
      if (!(REMINDABLE_QUOTE as readonly string[]).includes(quote.status))
        throw wrongState('quote', quote.status, step.tipo, REMINDABLE_QUOTE);
      const client = await findClientById(tx, scope, quote.cliente_id);
      const balance = quote.status === 'approved' ? balanceOf(quote) : quote.total;
      await queueReminder(tx, context, {
        quoteId: quote.id,
        lang: (quote.language ?? quote.draft_language) as Lang,
        to: client?.email ?? null,
        client: quote.cliente_nombre,
        document: quote.folio,
        balance: formatMoney(
          balance,
          quote.moneda,
          documentLocale(quote.language ?? quote.draft_language, context.org.country),
        ),
        link: publicLink(context.deps.config.publicUrl, quote.token),
      });
      return quote;
    }
    case 'resend': {
      if (!(RESENDABLE as readonly string[]).includes(quote.status))
        throw wrongState('quote', quote.status, step.tipo, RESENDABLE);
      const client = await findClientById(tx, scope, quote.cliente_id);
      const sent = await sendQuoteInTx(tx, context.deps, {
        quote,
        org: context.org,
        actor: context.actor,
        clientEmail: client?.email ?? null,
        now: context.now,
        type: 'quote.updated',
      });
      if (sent.email.queued) context.emails.push(sent.email.queued);
      return sent.quote;
    }
    case 'add_comment':
      await addQuoteMessage(
        tx,
        quote,
        { autor: 'vendedor', mensaje: clip(fill(step.mensaje, names), MAX_MESSAGE_LENGTH) },
        context.actor,
      );
      return quote;
    default:
      throw invalidState(`${step.tipo}: not a step of quote workflows. Nothing was changed.`);
  }
}

/** Writes a payment reminder to the client into the e-mail outbox (sent after commit, live only). */
async function queueReminder(
  tx: Queryable,
  context: RunContext,
  reminder: {
    quoteId: string | null;
    lang: Lang;
    to: string | null;
    client: string;
    document: string;
    balance: string;
    link: string;
  },
) {
  const m = REMINDER[reminder.lang] ?? REMINDER.es;
  const subject = m.subject(reminder.document, context.org.nombre);
  const text = m.body(
    reminder.client,
    context.org.nombre,
    reminder.document,
    reminder.balance,
    reminder.link,
  );
  const { queued } = await queueEmail(tx, {
    orgId: context.org.id,
    mode: context.mode,
    quoteId: reminder.quoteId,
    to: reminder.to,
    subject,
    text,
    smtp: !!context.deps.mailer,
  });
  if (queued) context.emails.push(queued);
}

async function runOnInvoice(tx: Queryable, workflow: WorkflowRow, id: string, context: RunContext) {
  let invoice = await findInvoice(tx, { orgId: context.org.id, mode: context.mode }, id, true);
  if (!invoice) throw notFound('Invoice');
  if (workflow.estados && !workflow.estados.includes(invoice.estado)) {
    throw wrongState('invoice', invoice.estado, workflow.nombre, workflow.estados);
  }
  for (const step of workflow.pasos) invoice = await runInvoiceStep(tx, step, invoice, context);
}

const REMINDABLE_INVOICE = ['open', 'uncollectible'] as const;

async function runInvoiceStep(
  tx: Queryable,
  step: WorkflowStep,
  invoice: InvoiceRow,
  context: RunContext,
): Promise<InvoiceRow> {
  const scope = { orgId: context.org.id, mode: context.mode };
  const numero = invoice.numero ?? '';
  const names = { folio: numero, numero, cliente: invoice.cliente_nombre };
  switch (step.tipo) {
    case 'create_task':
      await createStepTask(tx, step, names, { factura_id: invoice.id }, context);
      return invoice;
    case 'send_reminder': {
      if (!(REMINDABLE_INVOICE as readonly string[]).includes(invoice.estado))
        throw wrongState('invoice', invoice.estado, step.tipo, REMINDABLE_INVOICE);
      const client = await findClientById(tx, scope, invoice.cliente_id);
      await queueReminder(tx, context, {
        quoteId: null,
        lang: invoice.language as Lang,
        to: client?.email ?? null,
        client: invoice.cliente_nombre,
        document: numero,
        // As its page writes it: the invoice's language in the merchant's country.
        balance: formatMoney(
          invoiceBalance(invoice),
          invoice.moneda,
          documentLocale(invoice.language, context.org.country),
        ),
        link: invoiceLink(context.deps.config.publicUrl, invoice)!,
      });
      return invoice;
    }
    case 'mark_uncollectible': {
      if (invoice.estado !== 'open') throw wrongState('invoice', invoice.estado, step.tipo, ['open']);
      const overdue = daysBetween(invoice.vence, isoDay(context.now));
      if (overdue < step.dias_vencida) {
        throw invalidState(
          overdue < 0
            ? `${step.tipo}: invoice ${numero} is not due until ${invoice.vence}. Nothing was changed.`
            : `${step.tipo}: invoice ${numero} is ${overdue} days overdue, less than ${step.dias_vencida}. Nothing was changed.`,
        );
      }
      return markUncollectibleInTx(tx, invoice, context.actor);
    }
    default:
      throw invalidState(`${step.tipo}: not a step of invoice workflows. Nothing was changed.`);
  }
}

/** Whole days from `from` to `to` (both `YYYY-MM-DD`); negative when `to` is earlier. */
const daysBetween = (from: string | null, to: string) =>
  from ? Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) : 0;
