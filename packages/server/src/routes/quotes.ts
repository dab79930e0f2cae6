import { maxChars, paymentPlanSchema, quoteRequestSchema } from '@svc/core';
import { Hono } from 'hono';
import * as v from 'valibot';
import { ApiError, invalidRequest, notFound } from '../errors.js';
import { clientIp } from '../http/client-ip.js';
import { decodeCursor } from '../http/cursor.js';
import { readJson } from '../http/json-body.js';
import { parse, readNoFields } from '../http/parse.js';
import { enumParam, intParam, offsetParam, onlyParams } from '../http/query.js';
import { isUuid } from '../ids.js';
import { endpoint, type PerIpAllowance } from '../middleware/endpoint.js';
import { type IdempotentCall, STORED_RESPONSE_TYPE } from '../middleware/idempotency-batched.js';
import type { DeferredLimit } from '../middleware/rate-limit.js';
import { QUOTE_STATUSES } from '../repositories/quotes.js';
import { isoDate, testHelperSchema } from '../schemas/requests.js';
import { basketCounters, recordCouponFailure } from '../services/coupon-attempts.js';
import type { KeyWithOrg } from '../services/key-store.js';
import { PUBLISHABLE_LIMITS } from '../services/limits.js';
import { deleteDraft, QUOTE_ACTIONS, runQuoteAction, runTestHelper } from '../services/quote-actions.js';
import { MAX_MESSAGE_LENGTH } from '../services/quote-conversation.js';
import {
  createQuote,
  getQuoteDetail,
  listQuotePage,
  widgetCallStoresOwnResponse,
} from '../services/quotes.js';
import type { AppDeps, AppEnv } from '../types.js';

/** Fields of the actions `pay` and `promise`, and the plan of `resend` (design.md section 12). */
const gettingPaidEntries = {
  plan_pagos: v.optional(paymentPlanSchema),
  monto: v.optional(
    v.pipe(
      v.number('must be a number'),
      v.finite('must be a number'),
      v.gtValue(0, 'must be greater than 0'),
      v.maxValue(1e12),
    ),
  ),
  payment_method: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.trim(),
      v.minLength(1, 'must not be empty'),
      maxChars(50, 'must be at most 50 characters'),
    ),
  ),
  fecha: v.optional(isoDate),
  referencia: v.optional(
    v.pipe(v.string('must be a string'), v.trim(), maxChars(200, 'must be at most 200 characters')),
  ),
  fecha_promesa: v.optional(isoDate),
};
/** Fields of the action `comment` (design.md section 14): a seller's message, maybe about a line. */
const commentEntries = {
  mensaje: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.trim(),
      v.minLength(1, 'must not be empty'),
      maxChars(MAX_MESSAGE_LENGTH, `must be at most ${MAX_MESSAGE_LENGTH} characters`),
    ),
  ),
  // null, like an absent one, is about the whole quote; a line id is compared in lower case.
  item_id: v.optional(
    v.nullable(
      v.pipe(
        v.string('must be a string'),
        v.uuid('must be a line id (UUID) of this quote'),
        v.transform((id) => id.toLowerCase()),
      ),
    ),
  ),
};
const PAY_FIELDS = ['monto', 'payment_method', 'fecha', 'referencia'] as const;
const PROMISE_FIELDS = ['monto', 'fecha_promesa'] as const;

/** 400 for a getting-paid field the action does not take, or a required one it lacks. */
function checkGettingPaidFields(body: v.InferOutput<typeof actionSchema>): void {
  const allowed: readonly string[] =
    body.action === 'pay' ? PAY_FIELDS : body.action === 'promise' ? PROMISE_FIELDS : [];
  for (const field of [...PAY_FIELDS, ...PROMISE_FIELDS]) {
    if (body[field] !== undefined && !allowed.includes(field))
      throw invalidRequest(`${field}: the ${body.action} action does not take it`);
  }
  for (const field of ['mensaje', 'item_id'] as const) {
    if (body[field] != null && body.action !== 'comment')
      throw invalidRequest(`${field}: only the comment action takes it`);
  }
  if (body.action === 'comment' && body.mensaje === undefined) throw invalidRequest('mensaje: is required');
  if (body.plan_pagos !== undefined && body.action !== 'resend')
    throw invalidRequest('plan_pagos: only the resend action takes it');
  if ((body.action === 'pay' || body.action === 'promise') && body.monto === undefined)
    throw invalidRequest('monto: is required');
  if (body.action === 'promise' && body.fecha_promesa === undefined)
    throw invalidRequest('fecha_promesa: is required');
}

export const actionSchema = v.strictObject({
  action: v.picklist(QUOTE_ACTIONS, `must be one of ${QUOTE_ACTIONS.join(', ')}`),
  items: v.optional(quoteRequestSchema.entries.items),
  terminos: quoteRequestSchema.entries.terminos,
  vigencia_dias: quoteRequestSchema.entries.vigencia_dias,
  ...gettingPaidEntries,
  ...commentEntries,
});

/** The per-IP allowance of a publishable key's creations, counted by the creation's statement. */
export const CREATE_PER_IP: PerIpAllowance = { ...PUBLISHABLE_LIMITS.create, countedByOperation: true };

/** What {@link createQuoteAnswer} takes of a request once the pipeline's checks passed. */
export interface QuoteCreationRequest {
  /** The body, parsed as JSON. */
  json: unknown;
  /** The client's address, for its per-IP allowances. */
  ip: string;
  /** The per-IP allowance left for the creation's statement to count (PostgreSQL). */
  deferred: DeferredLimit | undefined;
  acceptLanguage: string | undefined;
  /** Set for an idempotent call whose response the creation stores itself. */
  call: IdempotentCall | undefined;
}

/**
 * POST /cotizaciones after the pipeline's checks: validates the body, counts the visitor's
 * allowances, creates the quote, and returns the JSON text to answer 200 with, for an idempotent
 * call the very bytes its statement stored (which a replay sends again). Shared by the route and
 * the widget's fast path (submission-fast-path.ts). A coupon refused to a publishable key counts
 * as the visitor's failed attempt.
 */
export async function createQuoteAnswer(
  deps: AppDeps,
  auth: KeyWithOrg,
  request: QuoteCreationRequest,
): Promise<string> {
  const body = parse(quoteRequestSchema, request.json);
  const limitCoupons = auth.key.kind === 'publishable' && body.cupon !== undefined;
  // On PostgreSQL both limits are counted by the statement that reads the quote's inputs.
  const counters = await basketCounters(deps.db, {
    deferred: request.deferred,
    orgId: auth.org.id,
    ip: request.ip,
    coupon: limitCoupons,
    now: deps.now(),
  });
  try {
    const { call } = request;
    const data = await createQuote(deps, auth, body, {
      acceptLanguage: request.acceptLanguage,
      counters,
      idempotent: call && { call, render: (created) => JSON.stringify({ data: created }) },
    });
    // Stored by the quote's statement: these very bytes, which a replay sends again.
    return call?.storedBody ?? JSON.stringify({ data });
  } catch (error) {
    // Not awaited: on PGlite the count waits for this request's transaction to end.
    if (limitCoupons && error instanceof ApiError && error.extra.reason) {
      void recordCouponFailure(deps.db, auth.org.id, request.ip, deps.now());
    }
    throw error;
  }
}

const idParam = (id: string) => {
  if (!isUuid(id)) throw notFound('Quote');
  return id;
};

/** Quotes: list, create, detail, actions, delete, and the quote test helpers. */
export function quoteRoutes(deps: AppDeps) {
  const read = endpoint(deps, { resource: 'cotizaciones', level: 'read' });
  const write = endpoint(deps, { resource: 'cotizaciones', level: 'write' });
  return new Hono<AppEnv>()
    .get('/cotizaciones', read, async (c) => {
      const query = c.req.query();
      onlyParams(query, ['limit', 'offset', 'cursor', 'status', 'folio', 'cliente_id']);
      if (query.cliente_id !== undefined && !isUuid(query.cliente_id))
        throw invalidRequest('cliente_id: must be a client id (UUID)');
      const page = await listQuotePage(deps, c.get('auth'), {
        limit: intParam(query.limit, 'limit', 1, 200) ?? 20,
        // With a cursor, `offset` is ignored (the spec), even one that would be refused alone.
        offset: query.cursor === undefined ? offsetParam(query) : 0,
        beforeSeq: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
        status: enumParam(query.status, 'status', QUOTE_STATUSES),
        // Folios are written in capitals (`COT-000001`); one typed in another case finds its quote.
        folio: query.folio?.trim().toUpperCase(),
        clienteId: query.cliente_id,
      });
      return c.json(page);
    })
    .post(
      '/cotizaciones',
      endpoint(deps, {
        resource: 'cotizaciones',
        level: 'write',
        publishable: true,
        perIp: CREATE_PER_IP,
        storesOwnResponse: widgetCallStoresOwnResponse,
      }),
      async (c) => {
        const text = await createQuoteAnswer(deps, c.get('auth'), {
          json: await readJson(c),
          ip: clientIp(c, deps.config.trustProxy),
          deferred: c.get('deferredLimit'),
          acceptLanguage: c.req.header('accept-language'),
          call: c.get('idempotentCall'),
        });
        return c.body(text, 200, { 'Content-Type': STORED_RESPONSE_TYPE });
      },
    )
    .get('/cotizaciones/:id', read, async (c) => {
      return c.json({ data: await getQuoteDetail(deps, c.get('auth'), idParam(c.req.param('id'))) });
    })
    .post('/cotizaciones/:id', write, async (c) => {
      const id = idParam(c.req.param('id'));
      const body = parse(actionSchema, await readJson(c));
      if (
        body.action !== 'resend' &&
        (body.items || body.terminos !== undefined || body.vigencia_dias !== undefined)
      ) {
        throw invalidRequest(`items, terminos and vigencia_dias: only the resend action takes them`);
      }
      checkGettingPaidFields(body);
      return c.json({ data: await runQuoteAction(deps, c.get('auth'), id, body) });
    })
    .delete('/cotizaciones/:id', write, async (c) => {
      await readNoFields(c);
      return c.json({ data: await deleteDraft(deps, c.get('auth'), idParam(c.req.param('id'))) });
    })
    .post(
      '/test_helpers/cotizaciones/:id',
      endpoint(deps, { resource: 'cotizaciones', level: 'write', testOnly: true }),
      async (c) => {
        const id = idParam(c.req.param('id'));
        const { action } = parse(testHelperSchema, await readJson(c));
        return c.json({ data: await runTestHelper(deps, c.get('auth'), id, action) });
      },
    );
}
