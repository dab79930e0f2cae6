import { type ErrorCode, previewRequestSchema, quoteRequestSchema } from '@svc/core';
import * as v from 'valibot';
import { INVOICE_STATES } from '../repositories/invoices.js';
import { clientCreateSchema } from '../routes/directory.js';
import { draftSchema } from '../routes/drafts.js';
import { actionSchema } from '../routes/quotes.js';
import {
  reactivateSchema,
  rotateSchema,
  webhookCreateSchema,
  webhookTestSchema,
} from '../routes/webhooks.js';
import {
  fiscalHelperSchema,
  invoiceActionSchema,
  invoiceCreateSchema,
  invoiceHelperSchema,
} from '../schemas/invoices.js';
import {
  clientPatchSchema,
  productCreateSchema,
  productPatchSchema,
  taskActionSchema,
  taskCreateSchema,
  testHelperSchema,
  workflowInvokeSchema,
} from '../schemas/requests.js';
import { setupPlanSchema } from '../schemas/setup-plans.js';
import {
  Client,
  Collections,
  CollectionsMeta,
  CursorMeta,
  Deleted,
  Drafts,
  ElementsConfig,
  Email,
  Event,
  EventDelivery,
  FiscalOverride,
  Invoice,
  InvoiceDetail,
  ListenMeta,
  ListenSession,
  Me,
  PageMeta,
  Preview,
  Product,
  QuoteCreated,
  QuoteDetail,
  QuoteListItem,
  SetupPlan,
  Task,
  TestModeReset,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookReactivated,
  WebhookRetry,
  WebhookTestFired,
  Workflow,
  WorkflowRun,
} from './responses.js';

/** A query parameter of an operation. */
export interface QueryParam {
  name: string;
  type: 'string' | 'integer';
  description: string;
  minimum?: number;
  maximum?: number;
  enum?: readonly string[];
}

/** One API operation as the documentation describes it. */
export interface Operation {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** Path in OpenAPI form, relative to `/api/v1` unless it starts with `/api/`. */
  path: string;
  summary: string;
  tag: string;
  scope: 'read' | 'write';
  publishable?: boolean;
  testOnly?: boolean;
  /** Only secret keys may call it, whatever a restricted key's permissions. */
  secretOnly?: boolean;
  /** The very schema the route validates its body with. */
  body?: v.GenericSchema;
  /** A body the route accepts, where the one made from the schema would not do. */
  example?: unknown;
  query?: QueryParam[];
  stream?: boolean;
  /** The schema of `data` in a successful answer (see `responses.ts`); none for a stream. */
  data?: v.GenericSchema;
  /** The schema of `meta`, for a list that pages. */
  meta?: v.GenericSchema;
  /**
   * The error codes particular to this operation. Those of every operation (400, 401, 403, 429,
   * 503 `service_unavailable`), of every write (`Idempotency-Key`, 413), of a path naming a record
   * (404) and of publishable keys (`origin_not_allowed`) are added by the document.
   */
  failures?: ErrorCode[];
  /** An example of a successful answer, shown by the reference page. */
  response?: unknown;
}

const limit = (max: number): QueryParam => ({
  name: 'limit',
  type: 'integer',
  minimum: 1,
  maximum: max,
  description: `results per page (1–${max})`,
});
const offset: QueryParam = {
  name: 'offset',
  type: 'integer',
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description: 'results to skip',
};
const cursor: QueryParam = {
  name: 'cursor',
  type: 'string',
  description: 'meta.next_cursor of the previous page',
};

/**
 * Every operation of the API. The OpenAPI document and /llms.txt are generated from this list and
 * from the schemas the routes validate with; a test checks it against the app's routes both ways.
 */
export const OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/me',
    summary: 'Organization, scope and mode of the key',
    tag: 'Account',
    scope: 'read',
    data: Me,
    response: {
      data: {
        org: { id: '6d1f3c2a-8b4e-4f7a-9c1d-2e5b7a9f0c3d', nombre: 'Estudio Nopal', plan: 'developer' },
        scope: 'write',
        mode: 'test',
        key: {
          id: '0b7e9a41-5c2d-4e8f-a3b6-1d9c7e5f2a08',
          kind: 'secret',
          display: 'sk_test_…k1A9',
          api_version: '2026-10-01',
        },
      },
    },
  },
  {
    method: 'get',
    path: '/cotizaciones',
    summary: 'List quotes, newest first',
    tag: 'Quotes',
    scope: 'read',
    data: v.array(QuoteListItem),
    meta: PageMeta,
    query: [
      limit(200),
      offset,
      cursor,
      {
        name: 'status',
        type: 'string',
        description: 'quote status',
        enum: ['draft', 'sent', 'viewed', 'approved', 'rejected', 'expired', 'paid', 'invoiced'],
      },
      { name: 'folio', type: 'string', description: 'the human-readable folio' },
      { name: 'cliente_id', type: 'string', description: 'id of a client of the directory' },
    ],
  },
  {
    method: 'post',
    path: '/cotizaciones',
    summary: 'Create a quote',
    tag: 'Quotes',
    scope: 'write',
    data: QuoteCreated,
    // invalid_state: a client or product it names was deleted meanwhile (nothing written).
    failures: ['invalid_client', 'plan_limit_reached', 'invalid_state', 'fx_unavailable'],
    publishable: true,
    body: quoteRequestSchema,
    response: {
      data: {
        id: '417a1f59-a3f4-4624-86d5-21bd62ae96c3',
        token: 'LUP86UqkRdAhXpG8d404iW6LjVYdFULRpt2jBdSu',
        folio: 'COT-000001',
        link_publico: 'https://quotes.example/q/LUP86UqkRdAhXpG8d404iW6LjVYdFULRpt2jBdSu',
        needs_approval: false,
        motivo: null,
        status: 'draft',
        total: 2088,
        moneda: 'MXN',
      },
    },
  },
  {
    method: 'get',
    path: '/cotizaciones/{id}',
    summary: 'Quote detail',
    tag: 'Quotes',
    scope: 'read',
    data: QuoteDetail,
  },
  {
    method: 'post',
    path: '/cotizaciones/{id}',
    summary:
      "Run an action: send, resend, approve, reject, mark_paid, approve_discount, reject_discount, pay (monto, payment_method?, fecha?, referencia?), promise (fecha_promesa, monto), comment (mensaje 1-2000, item_id?: the seller's message in the quote conversation), invoice (approved or paid quote → finalized invoice)",
    tag: 'Quotes',
    scope: 'write',
    data: QuoteDetail,
    failures: ['invalid_state', 'fx_unavailable', 'fiscal_unavailable'],
    body: actionSchema,
  },
  {
    method: 'delete',
    path: '/cotizaciones/{id}',
    summary: 'Delete a draft that was never sent',
    tag: 'Quotes',
    scope: 'write',
    data: Deleted,
    failures: ['invalid_state'],
  },
  {
    method: 'post',
    path: '/cotizaciones/ia',
    summary: 'Suggest quote lines from plain words (JSON)',
    tag: 'Quotes',
    scope: 'write',
    data: Drafts,
    body: draftSchema,
  },
  {
    method: 'post',
    path: '/test_helpers/cotizaciones/{id}',
    summary: 'Simulate the opening or expiry of a quote, or break its pending promises (test keys)',
    tag: 'Test helpers',
    scope: 'write',
    data: QuoteDetail,
    failures: ['invalid_state'],
    testOnly: true,
    body: testHelperSchema,
  },
  {
    method: 'get',
    path: '/facturas',
    summary: 'List invoices, newest first (cursor pages)',
    tag: 'Invoices',
    scope: 'read',
    data: v.array(Invoice),
    meta: CursorMeta,
    query: [
      limit(200),
      cursor,
      { name: 'estado', type: 'string', description: 'invoice state', enum: INVOICE_STATES },
      { name: 'cliente_id', type: 'string', description: 'id of a client of the directory' },
    ],
  },
  {
    method: 'post',
    path: '/facturas',
    summary: 'Create a draft invoice',
    tag: 'Invoices',
    scope: 'write',
    data: InvoiceDetail,
    failures: ['invalid_client', 'plan_limit_reached', 'invalid_state'],
    body: invoiceCreateSchema,
  },
  {
    method: 'get',
    path: '/facturas/{id}',
    summary: 'Invoice detail with lines, payments and credit notes',
    tag: 'Invoices',
    scope: 'read',
    data: InvoiceDetail,
  },
  {
    method: 'post',
    path: '/facturas/{id}',
    summary: 'Run an action: finalize (stamps MX invoices), send, pay, credit_note, void, mark_uncollectible',
    tag: 'Invoices',
    scope: 'write',
    data: InvoiceDetail,
    failures: ['invalid_state', 'fx_unavailable', 'fiscal_unavailable'],
    body: invoiceActionSchema,
  },
  {
    method: 'post',
    path: '/test_helpers/fiscal',
    summary: 'Force the result of the next sandbox stamping: stamped, rejected or unavailable (test keys)',
    tag: 'Test helpers',
    scope: 'write',
    data: FiscalOverride,
    testOnly: true,
    body: fiscalHelperSchema,
  },
  {
    method: 'post',
    path: '/test_helpers/facturas/{id}',
    summary: 'Make an open invoice overdue, or record a failed charge (test keys)',
    tag: 'Test helpers',
    scope: 'write',
    data: InvoiceDetail,
    failures: ['invalid_state'],
    testOnly: true,
    body: invoiceHelperSchema,
  },
  {
    method: 'post',
    path: '/setup/plans',
    summary: 'Propose an account configuration; a person approves it at the review URL',
    tag: 'Setup plans',
    scope: 'write',
    data: SetupPlan,
    failures: ['plan_limit_reached'],
    secretOnly: true,
    body: setupPlanSchema,
    // A plan proposes at least one change: the schema's empty example would be refused.
    example: {
      resumen: 'Catálogo inicial',
      productos: [
        {
          sku: 'SERV-1',
          nombre: 'Servicio de ejemplo',
          unidad: 'servicio',
          precio_lista: 1000,
          moneda: 'MXN',
          tax_rate: 0.16,
        },
      ],
    },
  },
  {
    method: 'get',
    path: '/setup/plans/{id}',
    summary: 'Status of a setup plan',
    tag: 'Setup plans',
    scope: 'read',
    data: SetupPlan,
  },
  {
    method: 'get',
    path: '/clientes',
    summary: 'List clients',
    tag: 'Clients',
    scope: 'read',
    data: v.array(Client),
    meta: PageMeta,
    query: [limit(200), offset, cursor],
  },
  {
    method: 'post',
    path: '/clientes',
    summary: 'Create a client',
    tag: 'Clients',
    scope: 'write',
    data: Client,
    failures: ['plan_limit_reached'],
    body: clientCreateSchema,
  },
  {
    method: 'get',
    path: '/clientes/{id}',
    summary: 'Client detail',
    tag: 'Clients',
    scope: 'read',
    data: Client,
  },
  {
    method: 'patch',
    path: '/clientes/{id}',
    summary: 'Update contact data',
    tag: 'Clients',
    scope: 'write',
    data: Client,
    body: clientPatchSchema,
  },
  {
    method: 'delete',
    path: '/clientes/{id}',
    summary: 'Delete a client without quotes or invoices',
    tag: 'Clients',
    scope: 'write',
    data: Deleted,
    failures: ['invalid_state'],
  },
  {
    method: 'get',
    path: '/productos',
    summary: 'List products',
    tag: 'Products',
    scope: 'read',
    data: v.array(Product),
    meta: PageMeta,
    query: [limit(200), offset, cursor],
  },
  {
    method: 'post',
    path: '/productos',
    summary: 'Create a product',
    tag: 'Products',
    scope: 'write',
    data: Product,
    failures: ['plan_limit_reached'],
    body: productCreateSchema,
  },
  {
    method: 'get',
    path: '/productos/{id}',
    summary: 'Product detail',
    tag: 'Products',
    scope: 'read',
    data: Product,
  },
  {
    method: 'patch',
    path: '/productos/{id}',
    summary: 'Change a product (every field but the SKU, and activo)',
    tag: 'Products',
    scope: 'write',
    data: Product,
    body: productPatchSchema,
  },
  {
    method: 'delete',
    path: '/productos/{id}',
    summary: 'Delete a product no quote or invoice line names',
    tag: 'Products',
    scope: 'write',
    data: Deleted,
    failures: ['invalid_state'],
  },
  {
    method: 'get',
    path: '/events',
    summary: 'Event history, newest first',
    tag: 'Events',
    scope: 'read',
    data: v.array(Event),
    meta: CursorMeta,
    query: [
      limit(200),
      cursor,
      { name: 'type', type: 'string', description: 'an event name' },
      { name: 'object_id', type: 'string', description: 'id of the object' },
    ],
  },
  {
    method: 'get',
    path: '/emails',
    summary: 'E-mail outbox: what clients were, or would have been, sent',
    tag: 'Events',
    scope: 'read',
    data: v.array(Email),
    meta: PageMeta,
    query: [limit(200), offset],
  },
  {
    method: 'get',
    path: '/webhooks',
    summary: 'Webhook endpoints of this key (oldest first; 100 a page unless `limit` says less)',
    tag: 'Webhooks',
    scope: 'read',
    data: v.array(WebhookEndpoint),
    meta: PageMeta,
    query: [limit(200), offset, cursor],
  },
  {
    method: 'post',
    path: '/webhooks',
    summary: 'Create a webhook endpoint (secret shown once)',
    tag: 'Webhooks',
    scope: 'write',
    data: WebhookEndpointWithSecret,
    failures: ['invalid_url', 'integration_limit_reached'],
    body: webhookCreateSchema,
  },
  {
    method: 'delete',
    path: '/webhooks/{id}',
    summary: 'Delete a webhook endpoint',
    tag: 'Webhooks',
    scope: 'write',
    data: Deleted,
  },
  {
    method: 'post',
    path: '/webhooks/{id}/rotate_secret',
    summary: 'Rotate the signing secret with an overlap',
    tag: 'Webhooks',
    scope: 'write',
    data: WebhookEndpointWithSecret,
    body: rotateSchema,
  },
  {
    method: 'post',
    path: '/webhooks/{id}/reactivate',
    summary: 'Reactivate, optionally replaying the last 24 h',
    tag: 'Webhooks',
    scope: 'write',
    data: WebhookReactivated,
    body: reactivateSchema,
    failures: ['invalid_state'],
  },
  {
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    summary: 'Delivery log',
    tag: 'Webhooks',
    scope: 'read',
    data: v.array(WebhookDelivery),
    query: [limit(200)],
  },
  {
    method: 'post',
    path: '/webhooks/{id}/deliveries/{job}/retry',
    summary: 'Resend the identical payload',
    tag: 'Webhooks',
    scope: 'write',
    data: WebhookRetry,
    failures: ['invalid_state'],
  },
  {
    method: 'post',
    path: '/test_helpers/webhooks',
    summary: 'Fire a ping to an endpoint (test keys)',
    tag: 'Test helpers',
    scope: 'write',
    data: WebhookTestFired,
    failures: ['not_found', 'invalid_state'],
    testOnly: true,
    body: webhookTestSchema,
  },
  {
    method: 'post',
    path: '/test_helpers/listen',
    summary: 'Open a listen session (test keys)',
    tag: 'Test helpers',
    scope: 'write',
    data: ListenSession,
    testOnly: true,
  },
  {
    method: 'get',
    path: '/test_helpers/listen/{id}',
    summary: 'Collect the events of a listen session',
    tag: 'Test helpers',
    scope: 'read',
    data: v.array(EventDelivery),
    meta: ListenMeta,
    testOnly: true,
    query: [cursor, limit(200)],
  },
  {
    method: 'delete',
    path: '/test_helpers/listen/{id}',
    summary: 'Close a listen session',
    tag: 'Test helpers',
    scope: 'write',
    data: ListenSession,
    testOnly: true,
  },
  {
    method: 'get',
    path: '/elements/config',
    summary: 'Configuration of the embeddable widget',
    tag: 'Elements',
    scope: 'read',
    data: ElementsConfig,
    publishable: true,
  },
  {
    method: 'post',
    path: '/elements/ai-draft',
    summary: 'Draft lines from plain words, streamed as text/event-stream',
    tag: 'Elements',
    scope: 'write',
    publishable: true,
    body: draftSchema,
    stream: true,
  },
  {
    method: 'post',
    path: '/elements/preview',
    summary: 'Exact totals of a draft basket; checks a coupon without using it',
    tag: 'Elements',
    scope: 'write',
    data: Preview,
    failures: ['fx_unavailable'],
    publishable: true,
    body: previewRequestSchema,
  },
  {
    method: 'post',
    path: '/api/test-mode/reset',
    summary: "Wipe the organization's sandbox data (test keys; 409 for live)",
    tag: 'Test helpers',
    scope: 'write',
    data: TestModeReset,
    failures: ['invalid_state'],
  },
  // Getting paid (design.md sections 12 and 13).
  {
    method: 'get',
    path: '/cobranza',
    summary:
      'Accounts receivable as of today: per currency (por_cobrar, vencido, aging buckets) and clients by overdue then balance',
    tag: 'Collections',
    scope: 'read',
    data: Collections,
    meta: CollectionsMeta,
    query: [
      limit(200),
      offset,
      { name: 'cliente_id', type: 'string', description: 'only this client' },
      { name: 'moneda', type: 'string', description: 'only this currency (ISO 4217)' },
    ],
  },
  {
    method: 'post',
    path: '/tareas',
    summary: 'Create a task (task.created)',
    tag: 'Tasks',
    scope: 'write',
    data: Task,
    failures: ['invalid_state'],
    body: taskCreateSchema,
  },
  {
    method: 'get',
    path: '/tareas',
    summary: 'List tasks, newest first',
    tag: 'Tasks',
    scope: 'read',
    data: v.array(Task),
    meta: PageMeta,
    query: [
      limit(200),
      offset,
      cursor,
      { name: 'done', type: 'string', enum: ['true', 'false'], description: 'done or pending tasks' },
      { name: 'cotizacion_id', type: 'string', description: 'tasks of this quote' },
      { name: 'factura_id', type: 'string', description: 'tasks of this invoice' },
    ],
  },
  {
    method: 'get',
    path: '/tareas/{id}',
    summary: 'Task detail',
    tag: 'Tasks',
    scope: 'read',
    data: Task,
  },
  {
    method: 'post',
    path: '/tareas/{id}',
    summary: 'Complete a task (task.completed; a second time 409)',
    tag: 'Tasks',
    scope: 'write',
    data: Task,
    failures: ['invalid_state'],
    body: taskActionSchema,
  },
  {
    method: 'get',
    path: '/workflows',
    summary: "The organization's workflows",
    tag: 'Workflows',
    scope: 'read',
    data: v.array(Workflow),
    meta: PageMeta,
    query: [limit(200), offset, cursor],
  },
  {
    method: 'post',
    path: '/workflows/{id}/invoke',
    summary: 'Run a workflow on 1–100 quotes or invoices, each in its own transaction; a result per record',
    tag: 'Workflows',
    scope: 'write',
    data: WorkflowRun,
    failures: ['invalid_state'],
    body: workflowInvokeSchema,
  },
];
