import { quoteRequestSchema } from '@svc/core';
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { draftSchema } from '../routes/drafts.js';
import { actionSchema } from '../routes/quotes.js';
import { invoiceActionSchema, invoiceCreateSchema } from '../schemas/invoices.js';
import { taskCreateSchema, workflowInvokeSchema } from '../schemas/requests.js';
import { setupPlanSchema } from '../schemas/setup-plans.js';

/** How a tool reaches the REST operation it stands for. */
export interface ToolRoute {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

/** An agent tool: its name, what it does, its input as JSON Schema, and the REST call it makes. */
export interface Tool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Whether it changes anything (read-only tools are hinted as such to the client). */
  writes: boolean;
  route(args: Record<string, unknown>): ToolRoute;
}

const idSchema = v.object({ id: v.pipe(v.string(), v.description('the record id (UUID)')) });
const idempotency = v.object({
  idempotency_key: v.optional(
    v.pipe(v.string(), v.description('Idempotency-Key: a retry with the same key and arguments runs once')),
  ),
});

/** JSON Schema of the tool input: the REST body's valibot schema, with `id` and idempotency. */
function input(...schemas: v.GenericSchema[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const schema of schemas) {
    const json = toJsonSchema(schema, { errorMode: 'ignore' }) as {
      properties?: Record<string, unknown>;
      required?: string[];
    };
    Object.assign(properties, json.properties ?? {});
    required.push(...(json.required ?? []));
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

const queryOf = (args: Record<string, unknown>, names: string[]) =>
  Object.fromEntries(
    names.filter((name) => args[name] !== undefined).map((name) => [name, String(args[name])]),
  );
const without = (args: Record<string, unknown>, ...names: string[]) =>
  Object.fromEntries(Object.entries(args).filter(([name]) => !names.includes(name)));
// An unpaired surrogate cannot be percent-encoded: it becomes U+FFFD, an id nothing has (404).
// So does an id of dots only, which a URL resolves as a path step (`..` left the operation's route,
// even percent-encoded), not as an id.
const id = (args: Record<string, unknown>) => {
  const text = String(args.id ?? '').replace(/\p{Cs}/gu, '\ufffd');
  return encodeURIComponent(/^\.+$/.test(text) ? '\ufffd' : text);
};

const listQuotes = v.object({
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(200))),
  offset: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER))),
  cursor: v.optional(v.string()),
  status: v.optional(
    v.picklist(['draft', 'sent', 'viewed', 'approved', 'rejected', 'expired', 'paid', 'invoiced']),
  ),
  folio: v.optional(v.string()),
  cliente_id: v.optional(v.string()),
});
const listInvoices = v.object({
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(200))),
  cursor: v.optional(v.string()),
  estado: v.optional(v.picklist(['draft', 'open', 'paid', 'void', 'uncollectible'])),
  cliente_id: v.optional(v.string()),
});
const collections = v.object({
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(200))),
  offset: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER))),
  cliente_id: v.optional(v.string()),
  moneda: v.optional(v.string()),
});

/**
 * The tools of design.md section 15. Each is one REST operation, called through the app with the
 * caller's key, so scope, mode, limits, quota, idempotency and validation are the REST ones.
 */
export const TOOLS: Tool[] = [
  {
    name: 'list_quotes',
    description:
      'List quotes, newest first (filters: status, folio, cliente_id; paging: limit, offset or cursor).',
    inputSchema: input(listQuotes),
    writes: false,
    route: (args) => ({
      method: 'GET',
      path: '/cotizaciones',
      query: queryOf(args, ['limit', 'offset', 'cursor', 'status', 'folio', 'cliente_id']),
    }),
  },
  {
    name: 'get_quote',
    description: 'A quote with its lines, totals, payments and conversation.',
    inputSchema: input(idSchema),
    writes: false,
    route: (args) => ({ method: 'GET', path: `/cotizaciones/${id(args)}` }),
  },
  {
    name: 'create_quote',
    description: 'Create a quote (a draft unless send is true). Totals are computed by the service.',
    inputSchema: input(quoteRequestSchema, idempotency),
    writes: true,
    route: (args) => ({ method: 'POST', path: '/cotizaciones', body: without(args, 'idempotency_key') }),
  },
  {
    name: 'quote_action',
    description: 'Run an action on a quote: send, resend, approve, reject, mark_paid, pay, promise, invoice…',
    inputSchema: input(idSchema, actionSchema, idempotency),
    writes: true,
    route: (args) => ({
      method: 'POST',
      path: `/cotizaciones/${id(args)}`,
      body: without(args, 'id', 'idempotency_key'),
    }),
  },
  {
    name: 'draft_items',
    description: "Draft quote lines from a customer's words, priced from the catalog.",
    inputSchema: input(draftSchema, idempotency),
    writes: false,
    route: (args) => ({ method: 'POST', path: '/cotizaciones/ia', body: without(args, 'idempotency_key') }),
  },
  {
    name: 'list_invoices',
    description: 'List invoices, newest first (filters: estado, cliente_id; paging: limit and cursor).',
    inputSchema: input(listInvoices),
    writes: false,
    route: (args) => ({
      method: 'GET',
      path: '/facturas',
      query: queryOf(args, ['limit', 'cursor', 'estado', 'cliente_id']),
    }),
  },
  {
    name: 'create_invoice',
    description: 'Create a draft invoice; finalize it with invoice_action.',
    inputSchema: input(invoiceCreateSchema, idempotency),
    writes: true,
    route: (args) => ({ method: 'POST', path: '/facturas', body: without(args, 'idempotency_key') }),
  },
  {
    name: 'invoice_action',
    description: 'Run an action on an invoice: finalize, send, pay, credit_note, void, mark_uncollectible.',
    inputSchema: input(idSchema, invoiceActionSchema, idempotency),
    writes: true,
    route: (args) => ({
      method: 'POST',
      path: `/facturas/${id(args)}`,
      body: without(args, 'id', 'idempotency_key'),
    }),
  },
  {
    name: 'get_collections',
    description: 'Accounts receivable per currency, with aging buckets and clients by overdue balance.',
    inputSchema: input(collections),
    writes: false,
    route: (args) => ({
      method: 'GET',
      path: '/cobranza',
      query: queryOf(args, ['limit', 'offset', 'cliente_id', 'moneda']),
    }),
  },
  {
    name: 'create_task',
    description: 'Create a follow-up task, optionally about a quote or an invoice.',
    inputSchema: input(taskCreateSchema, idempotency),
    writes: true,
    route: (args) => ({ method: 'POST', path: '/tareas', body: without(args, 'idempotency_key') }),
  },
  {
    name: 'invoke_workflow',
    description: 'Run a workflow on up to 100 quotes or invoices; one result per record.',
    inputSchema: input(idSchema, workflowInvokeSchema, idempotency),
    writes: true,
    route: (args) => ({
      method: 'POST',
      path: `/workflows/${id(args)}/invoke`,
      body: without(args, 'id', 'idempotency_key'),
    }),
  },
  {
    name: 'propose_setup_plan',
    description:
      'Propose an account configuration (catalog, coupons, workflows, widget settings); a person approves it at the review_url.',
    inputSchema: input(setupPlanSchema, idempotency),
    writes: true,
    route: (args) => ({ method: 'POST', path: '/setup/plans', body: without(args, 'idempotency_key') }),
  },
  {
    name: 'get_setup_plan',
    description: 'The status of a setup plan: pending_review, applied, rejected, expired or conflict.',
    inputSchema: input(idSchema),
    writes: false,
    route: (args) => ({ method: 'GET', path: `/setup/plans/${id(args)}` }),
  },
];
