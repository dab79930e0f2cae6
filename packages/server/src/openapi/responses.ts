import { ERROR_CODES, LANGUAGES, paymentPlanSchema } from '@svc/core';
import * as v from 'valibot';
import { INVOICE_STATES } from '../repositories/invoices.js';
import { QUOTE_STATUSES } from '../repositories/quotes.js';
import { EVENT_TYPES } from '../services/event-catalog.js';

/**
 * What the API answers, as valibot schemas: the OpenAPI document turns them into JSON Schema
 * (`components.schemas`, the same converter as the request bodies), and `openapi.test.ts` holds
 * real answers of the app to that JSON Schema. Records are open (`looseObject`): as the spec says,
 * a record may carry more properties than the ones named here, never fewer.
 */

const uuid = v.pipe(v.string(), v.uuid());
const date = v.pipe(v.string(), v.isoDate(), v.description('ISO 8601 date'));
const timestamp = v.pipe(v.string(), v.isoTimestamp(), v.description('ISO 8601 UTC timestamp'));
/** Money is a number in major units of the currency (pesos, not cents). */
const money = v.number();
const int = v.pipe(v.number(), v.integer());
const link = v.pipe(v.string(), v.url());
const FISCAL_STATES = ['not_applicable', 'pending', 'stamped', 'rejected', 'cancelled'] as const;

/** `GET /me`. */
export const Me = v.looseObject({
  org: v.looseObject({ id: uuid, nombre: v.string(), plan: v.string() }),
  scope: v.picklist(['read', 'write']),
  mode: v.picklist(['live', 'test']),
  key: v.looseObject({
    id: uuid,
    kind: v.picklist(['secret', 'publishable', 'restricted']),
    display: v.pipe(v.string(), v.description('prefix and last 4 characters; never the key')),
    api_version: v.string(),
  }),
});

/** `meta` of a list paged by `limit` and `offset` (or `cursor`, which stands for the offset). */
export const PageMeta = v.looseObject({
  limit: int,
  offset: v.nullable(int),
  total: int,
  next_cursor: v.pipe(v.nullable(v.string()), v.description('the next page; null after the last')),
});

/** `meta` of a list paged by cursor only (events, invoices). */
export const CursorMeta = v.looseObject({
  limit: int,
  next_cursor: v.pipe(v.nullable(v.string()), v.description('the next page; null after the last')),
});

/** A quote as `GET /cotizaciones` lists it: every field of the spec's list item. */
const quoteListEntries = {
  id: uuid,
  folio: v.pipe(v.string(), v.description('COT-000001: per organization and mode')),
  cliente: v.pipe(v.nullable(v.string()), v.description("the client's company name")),
  status: v.picklist(QUOTE_STATUSES),
  total: money,
  moneda: v.nullable(v.string()),
  terminos: v.pipe(
    v.nullable(v.string()),
    v.description('label in the account language; compare terminos_codigo'),
  ),
  terminos_codigo: v.pipe(v.nullable(v.string()), v.description('contado or net<N>')),
  vigencia: v.pipe(v.nullable(date), v.description('set on sending; null while a draft')),
  creada: v.nullable(timestamp),
  link_publico: link,
  language: v.pipe(
    v.nullable(v.picklist(LANGUAGES)),
    v.description('the language the quote was sent in; null while a draft'),
  ),
};
export const QuoteListItem = v.looseObject(quoteListEntries);

/** A line of a quote or an invoice (the same fields on both); the cost only for secret keys. */
const lineEntries = {
  descripcion: v.string(),
  cantidad: v.number(),
  unidad: v.nullable(v.string()),
  precio_unitario: money,
  precio_negociado: v.nullable(money),
  importe: v.pipe(money, v.description('cantidad × price, before discount and tax')),
  descuento: v.pipe(money, v.description("the line's share of the document discount")),
  impuesto: money,
  tax_rate: v.nullable(v.number()),
  exemption_reason: v.nullable(v.string()),
  producto_id: v.nullable(uuid),
  sku: v.nullable(v.string()),
  clave_sat: v.nullable(v.string()),
  clave_unidad_sat: v.nullable(v.string()),
  costo_unitario: v.optional(v.pipe(v.nullable(money), v.description('secret keys only'))),
};
export const DocumentLine = v.looseObject(lineEntries);

/** A payment promise (quote action `promise`, the client's page). */
export const PaymentPromise = v.looseObject({
  id: uuid,
  object: v.literal('promise'),
  cotizacion_id: uuid,
  fecha_promesa: date,
  monto: money,
  estado: v.picklist(['pending', 'kept', 'broken']),
});

/** `GET /cotizaciones/{id}`, and the answer of every quote action. */
export const QuoteDetail = v.looseObject({
  ...quoteListEntries,
  cliente_id: v.nullable(uuid),
  subtotal: money,
  descuento: money,
  impuestos: money,
  cupon: v.nullable(v.string()),
  iva_incluido: v.boolean(),
  fiscal_currency: v.nullable(v.string()),
  vigencia_dias: v.nullable(int),
  needs_approval: v.boolean(),
  approval_status: v.nullable(v.string()),
  motivo: v.nullable(v.string()),
  origen: v.pipe(v.picklist(['api', 'agente']), v.description('agente: created through the MCP interface')),
  enviada: v.nullable(timestamp),
  notas: v.optional(v.pipe(v.nullable(v.string()), v.description('secret keys only'))),
  items: v.array(v.looseObject({ id: uuid, declinada: v.boolean(), ...lineEntries })),
  plan_pagos: paymentPlanSchema,
  pagado: money,
  saldo: money,
  pagos: v.array(
    v.looseObject({
      id: uuid,
      tipo: v.picklist(['anticipo', 'cuota', 'saldo']),
      numero_cuota: v.nullable(int),
      monto: money,
      fecha: date,
      payment_method: v.nullable(v.string()),
      referencia: v.nullable(v.string()),
    }),
  ),
  promesas: v.array(PaymentPromise),
  calendario: v.array(
    v.looseObject({
      numero: int,
      tipo: v.picklist(['anticipo', 'cuota', 'saldo']),
      monto: money,
      dias: int,
      vence: v.pipe(v.nullable(date), v.description('null until the quote is approved')),
    }),
  ),
  conversacion: v.array(
    v.looseObject({
      id: uuid,
      autor: v.picklist(['cliente', 'vendedor']),
      mensaje: v.string(),
      item_id: v.nullable(uuid),
      tipo: v.picklist(['mensaje', 'contraoferta']),
      propuesta: v.nullable(v.looseObject({})),
      created_at: timestamp,
    }),
  ),
  aceptacion: v.nullable(
    v.looseObject({ nombre: v.string(), email: v.string(), fecha: v.string(), ip: v.nullable(v.string()) }),
  ),
  motivo_rechazo: v.nullable(v.string()),
  factura: v.optional(
    v.pipe(
      v.looseObject({
        id: uuid,
        numero: v.string(),
        folio_fiscal: v.nullable(v.string()),
        estado: v.string(),
      }),
      v.description('an invoiced quote: the invoice made from it'),
    ),
  ),
});

/** `POST /cotizaciones`: the spec's creation result (plus status, total and moneda). */
export const QuoteCreated = v.looseObject({
  id: uuid,
  token: v.pipe(v.string(), v.description('the public link token: a credential, never publish it')),
  folio: v.string(),
  link_publico: link,
  needs_approval: v.pipe(v.boolean(), v.description('held for internal approval before it is sent')),
  motivo: v.nullable(v.string()),
  status: v.picklist(QUOTE_STATUSES),
  total: money,
  moneda: v.string(),
  email: v.optional(
    v.looseObject({
      sent: v.boolean(),
      skipped: v.optional(v.pipe(v.string(), v.description('why it was not sent, e.g. test_mode'))),
    }),
  ),
});

/** A record removed by a `DELETE`. */
export const Deleted = v.looseObject({ id: v.string(), deleted: v.literal(true) });

/** A drafted line (`POST /cotizaciones/ia`, and each `item` event of `/elements/ai-draft`). */
const draftItem = v.looseObject({
  descripcion: v.string(),
  cantidad: v.number(),
  unidad: v.nullable(v.string()),
  precio_unitario: money,
  producto_id: uuid,
  sku: v.string(),
  tax_rate: v.nullable(v.number()),
  confidence: v.number(),
});
export const Drafts = v.looseObject({
  items: v.array(draftItem),
  skipped: v.array(v.looseObject({ text: v.string(), reason: v.string() })),
  notes: v.optional(v.array(v.looseObject({}))),
});

/** An invoice as `GET /facturas` lists it (design.md §11). */
const invoiceEntries = {
  id: uuid,
  object: v.literal('invoice'),
  numero: v.pipe(v.nullable(v.string()), v.description('F-000001 once finalized; null while a draft')),
  folio_fiscal: v.pipe(v.nullable(v.string()), v.description('the SAT UUID once stamped (Mexico)')),
  estado: v.picklist(INVOICE_STATES),
  estado_fiscal: v.picklist(FISCAL_STATES),
  motivo_fiscal: v.nullable(v.string()),
  pais: v.string(),
  tipo: v.picklist(['cfdi', 'commercial']),
  moneda: v.string(),
  subtotal: money,
  descuento: money,
  impuestos: money,
  total: money,
  pagado: money,
  acreditado: v.pipe(money, v.description('sum of credit notes')),
  saldo: v.pipe(money, v.description('total − pagado − acreditado')),
  emitida: v.nullable(date),
  vence: v.nullable(date),
  metodo_pago: v.nullable(v.picklist(['PUE', 'PPD'])),
  cliente: v.nullable(v.string()),
  cliente_id: v.nullable(uuid),
  cotizacion_id: v.nullable(uuid),
  link_publico: v.pipe(v.nullable(link), v.description('/i/<token>; null while a draft')),
  created_at: timestamp,
};
export const Invoice = v.looseObject(invoiceEntries);

/** `GET /facturas/{id}`, and the answer of every invoice action. */
export const InvoiceDetail = v.looseObject({
  ...invoiceEntries,
  notas: v.optional(v.pipe(v.nullable(v.string()), v.description('secret keys only'))),
  items: v.array(DocumentLine),
  pagos: v.array(
    v.looseObject({
      id: uuid,
      monto: money,
      fecha: date,
      metodo: v.nullable(v.string()),
      referencia: v.nullable(v.string()),
    }),
  ),
  notas_credito: v.array(
    v.looseObject({
      id: uuid,
      numero: v.string(),
      monto: money,
      motivo: v.nullable(v.string()),
      folio_fiscal: v.nullable(v.string()),
      created_at: timestamp,
    }),
  ),
});

/** `POST /test_helpers/fiscal`. */
export const FiscalOverride = v.looseObject({
  object: v.literal('fiscal_override'),
  result: v.picklist(['stamped', 'rejected', 'unavailable']),
  motivo: v.nullable(v.string()),
});

/** `POST /setup/plans` and `GET /setup/plans/{id}` (design.md §15). */
export const SetupPlan = v.looseObject({
  id: uuid,
  object: v.literal('setup_plan'),
  status: v.picklist(['pending_review', 'applied', 'rejected', 'expired', 'conflict']),
  resumen: v.nullable(v.string()),
  review_url: v.pipe(link, v.description('the page where a person approves it: a credential')),
  expires_at: timestamp,
  cambios: v.looseObject({
    productos: v.looseObject({ crear: int, actualizar: int }),
    cupones: v.looseObject({ crear: int, actualizar: int }),
    workflows: v.looseObject({ crear: int }),
    elements: v.boolean(),
  }),
  created_at: timestamp,
  decided_at: v.nullable(timestamp),
});

/** A client of the directory. */
export const Client = v.looseObject({
  object: v.literal('client'),
  id: uuid,
  empresa: v.string(),
  contacto: v.nullable(v.string()),
  email: v.nullable(v.string()),
  telefono: v.nullable(v.string()),
  rfc: v.nullable(v.string()),
  fiscal: v.nullable(v.looseObject({ country: v.string(), tax_id: v.string() })),
  terminos: v.nullable(v.string()),
  country_code: v.nullable(v.string()),
  created_at: timestamp,
  updated_at: timestamp,
});

/** A product of the catalog; `costo` only for secret keys. */
export const Product = v.looseObject({
  object: v.literal('product'),
  id: uuid,
  sku: v.string(),
  nombre: v.string(),
  descripcion: v.nullable(v.string()),
  unidad: v.string(),
  precio_lista: money,
  moneda: v.string(),
  tax_rate: v.nullable(v.number()),
  clave_sat: v.nullable(v.string()),
  clave_unidad_sat: v.nullable(v.string()),
  activo: v.boolean(),
  fraccionable: v.boolean(),
  aliases: v.array(v.string()),
  costo: v.optional(v.pipe(v.nullable(money), v.description('secret keys only'))),
});

/** A record of the event history (`GET /events`): never `link_publico`. */
export const Event = v.looseObject({
  id: uuid,
  type: v.picklist(EVENT_TYPES),
  object: v.pipe(v.string(), v.description('kind of object, e.g. quote')),
  object_id: uuid,
  data: v.pipe(v.looseObject({}), v.description('summary of the object, as in webhook deliveries')),
  actor: v.pipe(v.string(), v.description('user:<id>, api:<key id>, mcp:<key id>, client or system')),
  created_at: timestamp,
});

/** A message of the e-mail outbox (`GET /emails`). */
export const Email = v.looseObject({
  id: uuid,
  cotizacion_id: v.nullable(uuid),
  to: v.nullable(v.string()),
  subject: v.string(),
  body: v.string(),
  status: v.string(),
  skipped: v.nullable(v.string()),
  created_at: timestamp,
});

/** A webhook endpoint of the calling key, without its secret. */
const endpointEntries = {
  id: uuid,
  url: v.string(),
  eventos: v.pipe(v.array(v.string()), v.description('event names; empty means every event')),
  status: v.picklist(['active', 'disabled']),
  disabled_reason: v.nullable(v.string()),
  failure_streak: int,
  secret_rotation_ends_at: v.nullable(timestamp),
  created_at: timestamp,
};
export const WebhookEndpoint = v.looseObject(endpointEntries);
/** `POST /webhooks` and `rotate_secret`: the endpoint with its secret, shown this once. */
export const WebhookEndpointWithSecret = v.looseObject({
  ...endpointEntries,
  secret: v.pipe(v.string(), v.startsWith('whsec_'), v.description('shown in clear once')),
});
export const WebhookReactivated = v.looseObject({
  ...endpointEntries,
  requeued: v.pipe(int, v.description('deliveries of the last 24 h queued again')),
});

/** One attempt of the delivery log. */
export const WebhookDelivery = v.looseObject({
  delivery_id: uuid,
  job_id: uuid,
  event_id: v.pipe(v.string(), v.startsWith('evt_')),
  event: v.string(),
  attempt: int,
  status_code: v.nullable(int),
  ok: v.boolean(),
  duration_ms: v.nullable(int),
  response_excerpt: v.nullable(v.string()),
  error: v.nullable(v.string()),
  job_state: v.string(),
  created_at: timestamp,
});
export const WebhookRetry = v.looseObject({ job_id: uuid, queued: v.literal(true) });
export const WebhookTestFired = v.looseObject({
  job_id: uuid,
  event_id: v.pipe(v.string(), v.startsWith('evt_')),
  event: v.string(),
});

/** A delivery's body, as a webhook endpoint receives it (and a listen session collects it). */
export const EventDelivery = v.looseObject({
  id: v.pipe(v.string(), v.startsWith('evt_')),
  event: v.string(),
  created_at: timestamp,
  data: v.looseObject({}),
});
export const ListenSession = v.looseObject({
  id: uuid,
  status: v.picklist(['open', 'closed']),
  created_at: v.optional(timestamp),
});
export const ListenMeta = v.looseObject({
  status: v.picklist(['open', 'closed']),
  next_cursor: v.string(),
});

/** `GET /elements/config` (design.md §6): never costs or aliases. */
export const ElementsConfig = v.looseObject({
  org: v.looseObject({
    nombre: v.string(),
    color: v.nullable(v.string()),
    logo_url: v.nullable(v.string()),
    country: v.string(),
  }),
  mode: v.picklist(['live', 'test']),
  locale: v.string(),
  locales: v.array(v.string()),
  currency: v.string(),
  currencies: v.array(v.string()),
  fx_rates: v.pipe(
    v.record(v.string(), v.number()),
    v.description('what 1 unit of each currency is worth in `currency`'),
  ),
  iva_incluido: v.boolean(),
  default_tax_rate: v.number(),
  terminos: v.nullable(v.string()),
  catalog: v.array(
    v.looseObject({
      id: uuid,
      sku: v.string(),
      nombre: v.string(),
      unidad: v.string(),
      precio_lista: money,
      moneda: v.string(),
      tax_rate: v.nullable(v.number()),
      fraccionable: v.boolean(),
    }),
  ),
  features: v.looseObject({ ai_draft: v.boolean(), coupons: v.boolean(), custom_items: v.boolean() }),
  required_client_fields: v.array(v.string()),
});

/** `POST /elements/preview`: exact totals; the coupon checked, not used. */
export const Preview = v.looseObject({
  subtotal: money,
  descuento: money,
  impuestos: money,
  total: money,
  moneda: v.string(),
  items: v.array(
    v.looseObject({
      descripcion: v.string(),
      cantidad: v.number(),
      precio_unitario: money,
      importe: money,
      descuento: money,
      impuesto: money,
      tax_rate: v.nullable(v.number()),
    }),
  ),
  cupon: v.nullable(
    v.looseObject({
      code: v.string(),
      valid: v.boolean(),
      reason: v.pipe(
        v.nullable(v.string()),
        v.description('not_found, expired, inactive, exhausted or currency_mismatch'),
      ),
    }),
  ),
});

/** `GET /cobranza` (design.md §12): per currency, never converted. */
export const Collections = v.looseObject({
  as_of: date,
  monedas: v.array(
    v.looseObject({
      moneda: v.string(),
      por_cobrar: money,
      vencido: money,
      antiguedad: v.looseObject({
        al_corriente: money,
        d1_30: money,
        d31_60: money,
        d61_90: money,
        mas_90: money,
      }),
    }),
  ),
  clientes: v.array(
    v.looseObject({
      cliente_id: v.nullable(uuid),
      cliente: v.nullable(v.string()),
      moneda: v.string(),
      saldo: money,
      vencido: money,
      documentos: int,
      vencimiento_mas_antiguo: v.nullable(date),
      promesa_pendiente: v.boolean(),
    }),
  ),
});
/** `meta` of `GET /cobranza`: its clients page by offset. */
export const CollectionsMeta = v.looseObject({ limit: int, offset: int, total: int });

/** A task (design.md §13). */
export const Task = v.looseObject({
  id: uuid,
  object: v.literal('task'),
  titulo: v.string(),
  due_date: v.nullable(date),
  done: v.boolean(),
  cotizacion_id: v.nullable(uuid),
  factura_id: v.nullable(uuid),
  created_at: timestamp,
});

/** A workflow of the organization (design.md §13). */
export const Workflow = v.looseObject({
  id: uuid,
  object: v.literal('workflow'),
  nombre: v.string(),
  objeto: v.picklist(['cotizacion', 'factura']),
  pasos: v.array(v.looseObject({ tipo: v.string() })),
  activo: v.boolean(),
});
/** `POST /workflows/{id}/invoke`: a result per record. */
export const WorkflowRun = v.looseObject({
  workflow_id: uuid,
  resultados: v.array(
    v.union([
      v.looseObject({ id: v.string(), ok: v.literal(true) }),
      v.looseObject({ id: v.string(), ok: v.literal(false), code: v.string(), error: v.string() }),
    ]),
  ),
});

/** `POST /api/test-mode/reset`. */
export const TestModeReset = v.looseObject({
  reset: v.literal(true),
  mode: v.literal('test'),
  deleted: v.pipe(v.record(v.string(), int), v.description('rows removed, per kind')),
});

/** The flat body of every 4xx and 5xx answer; some codes add fields (`reason`, `limit`…). */
const errorEntries = {
  error: v.pipe(v.string(), v.description('what is wrong and, where it helps, what to do')),
  code: v.pipe(v.picklist(ERROR_CODES), v.description('stable: branch on this, never on the message')),
  request_id: v.pipe(v.string(), v.description('the Service-Request-Id of the answer; quote it to support')),
  doc_url: v.pipe(link, v.description("the code's entry on this service's /docs/errors page")),
};
export const ErrorBody = v.looseObject(errorEntries);
/** 402 `plan_limit_reached`: which allowance of the plan is used up. */
export const PlanLimitError = v.looseObject({
  ...errorEntries,
  code: v.literal('plan_limit_reached'),
  resource: v.picklist(['clients', 'products', 'api_keys']),
  limit: int,
  plan: v.string(),
});

/** The named schemas of `components.schemas`, in the order the reference lists them. */
export const RESPONSE_SCHEMAS = {
  Error: ErrorBody,
  PlanLimitError,
  Me,
  PageMeta,
  CursorMeta,
  QuoteListItem,
  QuoteDetail,
  QuoteCreated,
  DocumentLine,
  PaymentPromise,
  Deleted,
  Drafts,
  Invoice,
  InvoiceDetail,
  FiscalOverride,
  SetupPlan,
  Client,
  Product,
  Event,
  Email,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookReactivated,
  WebhookDelivery,
  WebhookRetry,
  WebhookTestFired,
  EventDelivery,
  ListenSession,
  ListenMeta,
  ElementsConfig,
  Preview,
  Collections,
  CollectionsMeta,
  Task,
  Workflow,
  WorkflowRun,
  TestModeReset,
} as const;
