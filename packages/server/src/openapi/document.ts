import { docUrl, type ErrorCode } from '@svc/core';
import { type ConversionConfig, toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { API_VERSION } from '../config.js';
import { ERROR_DOCS } from './error-catalog.js';
import { exampleOf } from './examples.js';
import { OPERATIONS, type Operation } from './operations.js';
import { RESPONSE_SCHEMAS } from './responses.js';

/** Response schemas refer to each other, and operations to them, in `components.schemas`. */
const SCHEMA_CONFIG: ConversionConfig = {
  errorMode: 'ignore',
  definitions: RESPONSE_SCHEMAS,
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
};

/** The JSON Schema of a valibot schema, its references into `components.schemas`. */
function responseSchema(schema: v.GenericSchema): Record<string, unknown> {
  const {
    $schema: _dialect,
    $defs: _defs,
    ...json
  } = toJsonSchema(schema, SCHEMA_CONFIG) as Record<string, unknown>;
  return json;
}

/** The codes every operation may answer: bad input, no or a bad key, a key that may not, limits. */
const EVERY_OPERATION: ErrorCode[] = [
  'invalid_request',
  'missing_key',
  'invalid_key',
  'insufficient_scope',
  'rate_limited',
  'api_quota_exceeded',
  'service_unavailable',
];
/** What a write adds: a body to read and, unless it streams, the `Idempotency-Key` rules. */
const EVERY_WRITE: ErrorCode[] = ['invalid_json', 'payload_too_large'];
const IDEMPOTENT_WRITE: ErrorCode[] = [
  'invalid_idempotency_key',
  'idempotency_in_progress',
  'idempotency_key_reused',
  'idempotency_unavailable',
];

/** The error codes `op` may answer, in the order of {@link ERROR_DOCS}. */
export function errorCodesOf(op: Operation): ErrorCode[] {
  const codes = new Set<ErrorCode>(EVERY_OPERATION);
  if (op.testOnly) codes.delete('api_quota_exceeded'); // test keys do not use the quota
  if (op.method !== 'get') for (const code of EVERY_WRITE) codes.add(code);
  if (op.method !== 'get' && !op.stream) for (const code of IDEMPOTENT_WRITE) codes.add(code);
  if (op.path.includes('{')) codes.add('not_found');
  if (op.publishable) codes.add('origin_not_allowed');
  for (const code of op.failures ?? []) codes.add(code);
  return (Object.keys(ERROR_DOCS) as ErrorCode[]).filter((code) => codes.has(code));
}

const RETRY_AFTER = {
  description: 'Seconds to wait before retrying',
  schema: { type: 'integer', minimum: 0 },
};

/** The error responses of an operation, one per status, each naming its codes. */
function errorResponses(op: Operation): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(op)) {
    const status = ERROR_DOCS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const retry = codes.some((code) => ['rate_limited', 'api_quota_exceeded'].includes(code))
      ? { headers: { 'Retry-After': { ...RETRY_AFTER, required: true } } }
      : status === 409 || status === 503
        ? { headers: { 'Retry-After': RETRY_AFTER } }
        : {};
    responses[String(status)] = {
      description: codes.map((code) => `\`${code}\``).join(', '),
      ...retry,
      content: {
        'application/json': {
          schema: { $ref: `#/components/schemas/${status === 402 ? 'PlanLimitError' : 'Error'}` },
          example: {
            error: 'A message that says what is wrong and, where it helps, what to do.',
            code: codes[0],
            ...(status === 402 ? { resource: 'clients', limit: 50, plan: 'free' } : {}),
            request_id: 'req_8ac8a09d0d105bcadc3235b5',
            doc_url: docUrl(codes[0]!, 'https://quotes.example'),
          },
        },
      },
    };
  }
  return responses;
}

/** The success answer: `{ data }`, or `{ data, meta }` for a list that pages; or a stream. */
function successResponse(op: Operation) {
  if (op.stream) {
    return {
      description:
        'Server-sent events: `item` (one per drafted line), `done` (`{ count, skipped: [{ text, reason }], notes? }`), `error`',
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    };
  }
  const entries: v.ObjectEntries = { data: op.data ?? v.unknown() };
  if (op.meta) entries.meta = op.meta;
  const envelope = v.strictObject(entries);
  return {
    description: op.meta ? 'Success: `{ data, meta }`' : 'Success: `{ data }`',
    content: {
      'application/json': {
        schema: responseSchema(envelope),
        ...(op.response ? { example: op.response } : {}),
      },
    },
  };
}

function operationObject(op: Operation) {
  const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const query = (op.query ?? []).map((q) => ({
    name: q.name,
    in: 'query',
    required: false,
    description: q.description,
    schema: {
      type: q.type,
      ...(q.minimum !== undefined ? { minimum: q.minimum } : {}),
      ...(q.maximum !== undefined ? { maximum: q.maximum } : {}),
      ...(q.enum ? { enum: q.enum } : {}),
    },
  }));
  const headers =
    op.method === 'get'
      ? []
      : [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            schema: { type: 'string', minLength: 1, maxLength: 255 },
          },
        ];
  const notes = [
    `Scope: ${op.scope}.`,
    op.secretOnly
      ? 'Secret keys only.'
      : op.publishable
        ? 'Publishable keys may call it (from an allowed origin).'
        : 'Secret and restricted keys only.',
    op.testOnly ? 'Test keys only.' : '',
  ].filter(Boolean);
  return {
    summary: op.summary,
    description: notes.join(' '),
    tags: [op.tag],
    operationId: `${op.method}${op.path.replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    parameters: [
      ...params,
      ...query,
      ...headers,
      {
        name: 'Service-Version',
        in: 'header',
        required: false,
        schema: { type: 'string', enum: [API_VERSION] },
      },
    ],
    ...(op.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: toJsonSchema(op.body, { errorMode: 'ignore' }),
                example: op.example ?? exampleOf(toJsonSchema(op.body, { errorMode: 'ignore' }) as never),
              },
            },
          },
        }
      : {}),
    responses: { '200': successResponse(op), ...errorResponses(op) },
  };
}

let cached: Record<string, unknown> | undefined;

/** The OpenAPI 3.1 document of every implemented operation (built once). */
export function openApiDocument(): Record<string, unknown> {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const outside = op.path.startsWith('/api/');
    const key = outside ? op.path : op.path;
    paths[key] ??= outside ? { servers: [{ url: '/' }] } : {};
    paths[key]![op.method] = operationObject(op);
  }
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'Quoting service API',
      version: API_VERSION,
      description:
        "JSON REST API for quotes, clients, products, events and webhooks, and the endpoints behind the embeddable `<svc-quote-form>`. Send `Authorization: Bearer <key>`. Errors are flat `{ error, code, request_id, doc_url }`; `doc_url` is the code's entry on the service's own `/docs/errors` page, which lists every code.",
    },
    servers: [{ url: '/api/v1' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'sk_test_…, sk_live_…, pk_…, rk_… keys' },
      },
      schemas: toJsonSchemaDefs(RESPONSE_SCHEMAS, SCHEMA_CONFIG),
    },
    paths,
  };
  return cached;
}

/** A plain-text summary of the API for AI assistants (/llms.txt), from the same operations. */
export function llmsText(baseUrl: string): string {
  const lines = [
    '# Quoting service API',
    '',
    `Base URL: ${baseUrl}/api/v1 — OpenAPI: ${baseUrl}/api/v1/openapi.json`,
    'Auth: Authorization: Bearer <key>. Secret keys sk_test_/sk_live_ (server side), publishable pk_test_/pk_live_ (browser, allowed origins only), restricted rk_.',
    "Test keys work on sandbox data. Responses are { data } or { data, meta }; errors are flat { error, code, request_id, doc_url }, doc_url being the code's entry on /docs/errors of this server.",
    'POST/PATCH/DELETE accept Idempotency-Key (1-255 visible chars, 24 h): the same key and body replay the stored answer (Idempotent-Replayed: true), another body is 422 idempotency_key_reused, one still running 409 idempotency_in_progress with Retry-After. Money amounts are numbers in major units.',
    'Restricted keys carry permissions per resource, read or write: cotizaciones, facturas, cobranza, tareas, workflows, clientes, productos, events, webhooks, setup, test_mode. A publishable key creates quotes only with cliente (not cliente_id), a coupon as its only discount, catalog prices, and never send, plan_pagos, precio_negociado, costo_unitario or iva_incluido.',
    'Lists page with limit and offset (events and invoices with cursor); meta carries limit, offset or next_cursor, and total where known. GET /webhooks and GET /webhooks/{id}/deliveries do not page: { data } alone. Requests may send Service-Version: 2026-10-01. Limits: 600 requests a minute per key (429 rate_limited with Retry-After), a monthly quota per organization for live keys (429 api_quota_exceeded), bodies up to 64 KiB (413), 100 lines a quote.',
    'Errors: 400 invalid_request (the message names the field) or invalid_json, 401 missing_key or invalid_key, 402 plan_limit_reached, 403 insufficient_scope, origin_not_allowed or integration_limit_reached, 404 not_found, 409 invalid_state, 422 idempotency_key_reused, 429, 503 (fx_unavailable, fiscal_unavailable, service_unavailable; retry later).',
    '',
    '## Agents (MCP)',
    `POST ${baseUrl}/mcp (Streamable HTTP, stateless, Authorization: Bearer <secret or restricted key>), or npx svc-server mcp --key KEY over stdio. Tools: list_quotes, get_quote, create_quote, quote_action, draft_items, list_invoices, create_invoice, invoice_action, get_collections, create_task, invoke_workflow, propose_setup_plan, get_setup_plan; each runs the REST operation with the same key, rules and errors (a refusal is a tool error carrying { error, code }), and takes idempotency_key. Quotes it creates carry origen: "agente".`,
    '',
    '## Operations',
  ];
  for (const op of OPERATIONS) {
    lines.push(
      `- ${op.method.toUpperCase()} ${op.path} — ${op.summary} (scope ${op.scope}${op.publishable ? ', publishable keys allowed' : ''}${op.secretOnly ? ', secret keys only' : ''}${op.testOnly ? ', test keys only' : ''})`,
    );
  }
  lines.push(
    '',
    '## Getting paid',
    'plan_pagos on create/resend: {tipo:"contado"} | {tipo:"anticipo",porcentaje:1-99} | {tipo:"cuotas",numero:2-24}. Quote actions pay {monto, payment_method?, fecha?, referencia?} (approved; a deposit also from sent/viewed, approving it; monto > saldo is 400; payment.partial, quote.paid at saldo 0) and promise {fecha_promesa, monto} (promise.created/kept/broken). Detail adds plan_pagos, pagado, saldo, pagos, promesas.',
    'GET /cobranza: receivables per currency (never converted) with aging buckets, clients by overdue then balance. Tasks: /tareas. Workflows: GET /workflows, POST /workflows/{id}/invoke {ids} (a result per record).',
  );
  lines.push(
    '',
    "## The client's side of a quote",
    'On the public page /q/<token> (no JavaScript needed) the client approves all lines or some (declined lines stay with declinada: true; totals are recomputed over the approved ones; quote.approved carries parcial), with an electronic acceptance (aceptacion: nombre, email, fecha, ip), rejects with a reason (motivo_rechazo), writes in the conversation and counteroffers (quote.comment_added with autor, mensaje, item_id, tipo "contraoferta", propuesta {precio_unitario | cantidad | total}), and promises a payment date. Sellers answer with the quote action comment {mensaje, item_id?}; the detail lists conversacion. A counteroffer never changes the quote: answer it with resend and new items.',
  );
  lines.push(
    '',
    '## Webhooks',
    'Deliveries are signed: X-Service-Signature-V1: t=<unix>,v1=<hex hmac-sha256(secret, "t.body")>. Verify with verifyWebhook() from @svc/server.',
    '',
  );
  return lines.join('\n');
}
