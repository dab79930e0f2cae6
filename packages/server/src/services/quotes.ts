import { type Discount, planFitsTotal, type QuoteRequest } from '@svc/core';
import { ApiError, invalidRequest, notFound } from '../errors.js';
import { encodeCursor } from '../http/cursor.js';
import { countryLang, type Lang, pickLang } from '../i18n/messages.js';
import { isUuid, randomBase62, uuid } from '../ids.js';
import { type IdempotentCall, STORED_RESPONSE_TYPE } from '../middleware/idempotency-batched.js';
import { checkCount, type FoldedCounter } from '../middleware/rate-limit.js';
import {
  type ClientRecord,
  clientEventData,
  clientKey,
  clientSqlValue,
  countClients,
  type NewClientRow,
  newClientRow,
} from '../repositories/clients.js';
import type { CouponRow, CouponTerms } from '../repositories/coupons.js';
import { insertEvent } from '../repositories/events.js';
import type { BatchedQuote, StoredResponse } from '../repositories/quote-batch.js';
import { type QuoteInputs, readQuoteInputs } from '../repositories/quote-inputs.js';
import {
  findQuote,
  listQuotes,
  type NewQuote,
  type QuoteItemRow,
  type QuoteListQuery,
  type QuoteRow,
  storedQuote,
} from '../repositories/quotes.js';
import type { AppDeps } from '../types.js';
import { derivedExemption } from './fiscal/exemptions.js';
import { type InputsRequest, inputsMemory } from './inputs-memory.js';
import type { KeyWithOrg } from './key-store.js';
import { newClientClaims } from './new-client-claims.js';
import { type Org, requiredClientFields } from './orgs.js';
import { requestedDiscount, setPaymentPlan } from './payments.js';
import { assertRoomFor, nearLimit, PLANS, planLimitError, unlockedLimit } from './plans.js';
import { couponCheck, couponError, itemRows, lineProductIds, priceLines, totalsFor } from './pricing.js';
import { fullQuoteDetail } from './quote-detail.js';
import { type EmailOutcome, type QueuedEmail, sendQueuedEmail } from './quote-email.js';
import { sendQuoteInTx } from './quote-sending.js';
import { publicLink, quoteEventData, quoteEventSummary, quoteListItem } from './quote-view.js';
import { quoteWriter } from './quote-writer.js';

/** Fields a publishable key may not send on quote creation. */
const PUBLISHABLE_FORBIDDEN = ['cliente_id', 'descuento', 'send', 'plan_pagos'] as const;
// A line's tax cause is the merchant's, derived from the client's data: not the visitor's to choose.
const PUBLISHABLE_FORBIDDEN_LINE = ['precio_negociado', 'costo_unitario', 'exemption_reason'] as const;

/** The creation result of POST /cotizaciones. */
export interface QuoteCreated {
  id: string;
  token: string;
  folio: string;
  link_publico: string;
  needs_approval: boolean;
  motivo: string | null;
  status: string;
  total: number;
  moneda: string;
  email?: EmailOutcome;
}

/** The actor of events caused by an API key. */
export const apiActor = (auth: KeyWithOrg) => `${auth.channel === 'mcp' ? 'mcp' : 'api'}:${auth.key.id}`;

/**
 * Creates a quote atomically: client found or created, lines resolved against the catalog, coupon
 * use counted, totals computed by `@svc/core`, folio assigned, events written, and with
 * `send: true` the quote sent and its e-mail queued. The e-mail goes out after commit.
 *
 * When an earlier creation read the client, products and coupon this one names, it is priced with
 * them from memory and written in one statement that checks they did not change (InputsMemory);
 * otherwise, or when they changed, they are read first, in one statement, and written in another.
 */
export async function createQuote(
  deps: AppDeps,
  auth: KeyWithOrg,
  body: QuoteRequest,
  context: CreationContext,
): Promise<QuoteCreated> {
  // A claim on creating a new client, when this creation takes one, ends with the creation.
  const claim: { release?: () => void } = {};
  try {
    return await createQuoteClaiming(deps, auth, body, context, claim);
  } finally {
    claim.release?.();
  }
}

interface CreationContext {
  acceptLanguage?: string | undefined;
  /** Rate counters the first statement counts or reads, each checked before anything is written. */
  counters?: readonly FoldedCounter[];
  /**
   * An idempotent call whose response the quote's statement stores ({@link widgetCallStoresOwnResponse}),
   * rendered by `render` as the route sends it; `storedBody` is set to what was stored.
   */
  idempotent?: { call: IdempotentCall; render: (created: QuoteCreated) => string } | undefined;
}

async function createQuoteClaiming(
  deps: AppDeps,
  auth: KeyWithOrg,
  body: QuoteRequest,
  context: CreationContext,
  claim: { release?: () => void },
): Promise<QuoteCreated> {
  const { key, org } = auth;
  const scope = { orgId: org.id, mode: key.mode };
  const publishable = key.kind === 'publishable';
  if (publishable) {
    refusePublishableFields(body, org);
    if (body.cliente === undefined) throw invalidRequest('cliente: required with a publishable key');
    requireWidgetClientFields(body.cliente, org);
  }
  if (body.send && key.kind !== 'secret') throw invalidRequest('send: only secret keys can send quotes');

  const currency = body.base_currency ?? org.currency;
  if (!org.currencies.includes(currency)) {
    throw invalidRequest(
      `base_currency: ${currency} is not a currency of this business (${org.currencies.join(', ')})`,
    );
  }
  if (body.cliente_id !== undefined && body.cliente !== undefined) {
    throw invalidRequest('cliente_id and cliente: send one of them, not both');
  }
  if (body.cliente_id === undefined && body.cliente === undefined) {
    throw invalidRequest('cliente: a quote needs a client (cliente or cliente_id)');
  }
  const now = deps.now();
  const actor = apiActor(auth);
  if (body.cliente_id !== undefined && !isUuid(body.cliente_id)) throw noSuchClient(body.cliente_id);
  const request: InputsRequest = {
    client: body.cliente_id !== undefined ? { id: body.cliente_id } : body.cliente!,
    productIds: lineProductIds(body.items),
    couponCode: body.cupon,
  };
  const pricing: PricingContext = { auth, body, now, actor, acceptLanguage: context.acceptLanguage };
  let counters = context.counters ?? [];

  // The common case first: what the request names was read before, by an earlier creation, and
  // the quote is priced with that and written in one statement, which checks it (see InputsMemory).
  // A client memory does not hold is presumed new, which that statement checks too.
  const memory = inputsMemory(deps.db);
  // Two creations naming the same new client at once would create it twice (see NewClientClaims).
  const claims = newClientClaims(deps.db);
  const claimed = () => {
    claim.release ??= claims.claim(scope, request.client);
    return claim.release !== undefined;
  };
  const unclaim = () => {
    claim.release?.();
    claim.release = undefined;
  };
  // A payment plan is stored by a second statement, in the creation's transaction (below); the
  // widget's quotes take the merchant's usual plan.
  const asked = publishable ? (org.widget.plan_pagos ?? undefined) : body.plan_pagos;
  const plan = asked?.tipo === 'contado' ? undefined : asked;
  const remembered =
    body.send || plan
      ? undefined
      : (memory.recall(scope, request) ?? memory.recallPresumingNew(scope, request));
  // A client presumed new is created by the statement only well below the plan's client limit,
  // which it checks without a lock (see unlockedLimit); nearer, it is counted below, under the lock.
  const clientLimit = unlockedLimit('clients', org.plan);
  if (remembered) {
    const priced = pricedOrUndefined(remembered, pricing);
    // A client presumed new that another creation is creating now is read below, once it exists.
    if (
      priced &&
      !priced.approval &&
      !priced.couponLimited &&
      (!priced.newClient || (clientLimit !== null && claimed()))
    ) {
      const batched: BatchedQuote = {
        id: uuid(),
        quote: priced.quote,
        items: priced.items,
        eventData: quoteEventSummary(priced.quote),
        coupon: priced.coupon,
        versions: remembered.versions,
        counters,
        newClient: priced.newClient && { row: priced.newClient, eventData: clientEventData(priced.client) },
        presumedNew: priced.newClient && {
          by: clientKey(request.client) as 'email' | 'empresa',
          value: clientSqlValue(request.client),
          limit: clientLimit,
        },
      };
      const response = context.idempotent && storedResponse(deps, context.idempotent, batched);
      const writer = quoteWriter(deps.db);
      const outcome = response
        ? await writer.insertIdempotentFromMemory({ ...batched, stored: response.stored }, now)
        : await writer.insertFromMemory(batched, now);
      if (outcome.row)
        return response ? response.sent(outcome.row) : quoteCreated(deps, outcome.row, undefined);
      if (outcome.counts) {
        // Counted, and left out: refused by a counter, or else priced with rows that changed.
        for (const [i, counter] of counters.entries()) checkCount(counter, outcome.counts[i]!);
        counters = counters.map((counter) => ({ ...counter, increment: false }));
      }
    }
  }

  // Everything is read first, in one statement; nothing is written until the one that creates the quote.
  // A client named, not given by id, is claimed before it is looked up: a creation that is creating
  // it has committed by the time the claim is free, so the lookup finds what it created.
  if (!('id' in request.client)) while (!claimed()) await claims.settled(scope, request.client);
  const inputs = await readQuoteInputs(deps.db, scope, request, counters);
  // Found: nothing to create, and nobody to keep waiting.
  if (inputs.client) unclaim();
  memory.remember(scope, request, inputs);
  const {
    quote: newQuote,
    items,
    client,
    newClient,
    approval,
    coupon,
    couponLimited,
  } = priceQuote(inputs, pricing);
  // Through the writer, which groups concurrent creations of the organization into one statement;
  // inside the transaction below it writes in that transaction.
  const insert = async () => {
    const inserted = await quoteWriter(deps.db).insert(newQuote, items, {
      now,
      eventData: quoteEventSummary(newQuote),
      newClient: newClient && { row: newClient, eventData: clientEventData(client) },
      coupon,
      couponLimited,
    });
    // No row: another request took the coupon's last use since it was read.
    if (!inserted) throw couponError(body.cupon!, 'exhausted');
    return inserted;
  };

  // Near the plan's limit a new client is counted again under the limit's lock, in the creation's
  // transaction: counted apart from the write, creations at once would each see room for theirs.
  const countedAgain =
    newClient !== undefined && nearLimit('clients', org.plan, inputs.clientCount ?? 0)
      ? () =>
          assertRoomFor(deps.db, 'clients', scope, org.plan, () => countClients(deps.db, scope), {
            counted: inputs.clientCount ?? 0,
          })
      : undefined;
  const withRoom = <T>(write: () => Promise<T>): Promise<T> =>
    countedAgain
      ? deps.db.transaction(async () => {
          await countedAgain();
          return write();
        })
      : write();

  const oneStatement = !approval && !body.send && !plan;
  if (oneStatement && context.idempotent) {
    const batched: BatchedQuote = {
      id: uuid(),
      quote: newQuote,
      items,
      eventData: quoteEventSummary(newQuote),
      coupon,
      newClient: newClient && { row: newClient, eventData: clientEventData(client) },
    };
    const response = storedResponse(deps, context.idempotent, batched);
    const row = await withRoom(() =>
      quoteWriter(deps.db).insertIdempotent({ ...batched, stored: response.stored }, now),
    );
    // No row: the coupon had no use left for it (or changed since it was read).
    if (!row) throw couponError(body.cupon!, 'exhausted');
    return response.sent(row);
  }

  let queued: QueuedEmail | null = null;
  let emailOutcome: EmailOutcome | undefined;
  // The common case is that one statement, atomic by itself: no transaction, so the coupon and
  // folio rows it locks are free again the moment it ends, not a round trip later at COMMIT.
  const result = oneStatement
    ? await withRoom(insert)
    : await deps.db.transaction(async (tx) => {
        await countedAgain?.();
        let quote = await insert();
        // The merchant's usual plan gives way to cash on a widget quote too small for it (a 100 %
        // coupon): the visitor neither chose it nor can change it. An API caller's plan is refused.
        if (plan && (!publishable || planFitsTotal(plan, quote.total, quote.moneda))) {
          quote = await setPaymentPlan(tx, quote, plan);
        }
        const event = {
          orgId: org.id,
          mode: key.mode,
          object: 'quote' as const,
          objectId: quote.id,
          actor,
        };
        if (approval) {
          await insertEvent(tx, {
            ...event,
            type: 'quote.approval_requested',
            data: { ...quoteEventData(quote), motivo: approval },
          });
        }
        if (body.send) {
          if (approval) {
            // Held for internal approval, it is not sent: the e-mail waits for the send after it.
            emailOutcome = { sent: false, skipped: 'needs_approval' };
          } else {
            const sent = await sendQuoteInTx(tx, deps, {
              quote,
              org,
              actor,
              clientEmail: client.email,
              now,
            });
            quote = sent.quote;
            emailOutcome = sent.email.outcome;
            queued = sent.email.queued;
          }
        }
        return quote;
      });

  // Committed: a creation waiting for this one's new client finds it now, not after the e-mail.
  unclaim();
  if (queued && deps.mailer) emailOutcome = await sendQueuedEmail(deps.db, deps.mailer, queued);
  return quoteCreated(deps, result, emailOutcome);
}

/**
 * True when every idempotent creation with this key is written by one statement, which stores its
 * response too: the widget's. Its key cannot ask to send, for a discount (approval) or for a
 * payment plan, and the merchant's usual plan for the widget's quotes is cash or none.
 */
export function widgetCallStoresOwnResponse(auth: KeyWithOrg): boolean {
  const plan = auth.org.widget.plan_pagos;
  return auth.key.kind === 'publishable' && (!plan || plan.tipo === 'contado');
}

/**
 * The response of an idempotent creation, stored by the statement that writes its quote: rendered
 * before that statement with a token where the folio goes, which the statement replaces with the
 * folio it assigns. `sent` makes the same replacement in what is sent, so that a replay is
 * identical, and gives the creation's result.
 */
function storedResponse(
  deps: AppDeps,
  { call, render }: { call: IdempotentCall; render: (created: QuoteCreated) => string },
  { id, quote }: BatchedQuote,
): { stored: StoredResponse; sent: (row: QuoteRow) => QuoteCreated } {
  const folioToken = JSON.stringify(`@@folio:${id}@@`);
  const template = render(
    quoteCreated(
      deps,
      storedQuote(quote, { id, seq: 0, folio: JSON.parse(folioToken), created_at: '' }),
      undefined,
    ),
  );
  return {
    stored: {
      keyId: call.keyId,
      idempotencyKey: call.idempotencyKey,
      fingerprint: call.fingerprint,
      status: 200,
      body: template,
      type: STORED_RESPONSE_TYPE,
      folioToken,
    },
    sent: (row) => {
      call.storedBody = template.split(folioToken).join(JSON.stringify(row.folio));
      return quoteCreated(deps, row, undefined);
    },
  };
}

/** The answer to a creation. */
function quoteCreated(deps: AppDeps, quote: QuoteRow, email: EmailOutcome | undefined): QuoteCreated {
  return {
    id: quote.id,
    token: quote.token,
    folio: quote.folio,
    link_publico: publicLink(deps.config.publicUrl, quote.token),
    needs_approval: quote.needs_approval,
    motivo: quote.motivo,
    status: quote.status,
    total: quote.total,
    moneda: quote.moneda,
    ...(email ? { email } : {}),
  };
}

/** What pricing a quote request takes besides its inputs. */
interface PricingContext {
  auth: KeyWithOrg;
  body: QuoteRequest;
  now: Date;
  actor: string;
  acceptLanguage: string | undefined;
}

/** A quote priced from its inputs, ready to write. */
interface PricedQuote {
  quote: NewQuote;
  items: QuoteItemRow[];
  client: ClientRecord;
  /** The client to create with the quote, when the request names a new one. */
  newClient: NewClientRow | undefined;
  /** Why the quote waits for approval, or null. */
  approval: string | null;
  /** The values of the coupon applied, which the writer checks are still its values. */
  coupon: CouponTerms | null;
  couponLimited: boolean;
}

/**
 * Prices a quote request on its inputs: client found or new, lines resolved against the catalog,
 * coupon checked, totals computed by `@svc/core`, approval and language decided. Throws the
 * request's refusal (4xx) when they do not allow it.
 */
function priceQuote(
  inputs: QuoteInputs,
  { auth, body, now, actor, acceptLanguage }: PricingContext,
): PricedQuote {
  const { key, org } = auth;
  const currency = body.base_currency ?? org.currency;
  const { client, newClient } = resolveClient(inputs, org, body);
  const lines = priceLines(inputs.products, org, body.items, currency, {
    publishable: key.kind === 'publishable',
  });

  let discount: Discount | null = null;
  let coupon: CouponRow | null = null;
  if (body.cupon !== undefined) {
    // Counted by the quote's own statement, which checks it again under the coupon's row lock.
    const check = couponCheck(inputs.coupon, currency, now);
    if (!check.ok) throw couponError(body.cupon, check.reason);
    coupon = check.coupon;
    discount = { tipo: coupon.tipo, valor: coupon.valor };
  } else {
    discount = requestedDiscount(body.descuento, currency);
  }

  const ivaIncluido = body.iva_incluido ?? false;
  const totals = totalsFor(lines, {
    currency,
    ivaIncluido,
    defaultTaxRate: org.default_tax_rate,
    discount,
  });
  const approval = approvalNeeded(
    org,
    body.cupon === undefined ? discount : null,
    totals.subtotal,
    totals.descuento,
  );
  const language: Lang =
    pickLang(acceptLanguage) ?? countryLang(client.country_code) ?? pickLang(org.locale) ?? 'es';

  const quote: NewQuote = {
    org_id: org.id,
    mode: key.mode,
    cliente_id: client.id,
    cliente_nombre: client.empresa,
    status: 'draft',
    moneda: currency,
    fiscal_currency: body.fiscal_currency ?? null,
    iva_incluido: ivaIncluido,
    terminos_codigo: body.terminos ?? client.terminos ?? org.terminos[0] ?? null,
    vigencia_dias: body.vigencia_dias ?? org.vigencia_dias,
    notas: body.notas ?? null,
    descuento_solicitado: body.cupon === undefined ? (body.descuento ?? null) : null,
    cupon: body.cupon === undefined ? null : body.cupon.toUpperCase(),
    coupon_id: coupon?.id ?? null,
    subtotal: totals.subtotal,
    descuento: totals.descuento,
    impuestos: totals.impuestos,
    total: totals.total,
    token: randomBase62(40),
    draft_language: language,
    needs_approval: approval !== null,
    approval_status: approval ? 'pending' : null,
    motivo: approval,
    created_by: actor,
  };
  return {
    quote,
    items: itemRows(lines, totals, derivedExemption(org.country, client.country_code)),
    client,
    newClient,
    approval,
    coupon: coupon && { tipo: coupon.tipo, valor: coupon.valor, moneda: coupon.moneda },
    couponLimited: coupon !== null && coupon.max_uses !== null,
  };
}

/**
 * The quote priced on inputs from memory, or undefined when they do not allow it: the request is
 * then read and priced afresh, which counts it and answers its refusal as always.
 */
function pricedOrUndefined(inputs: QuoteInputs, context: PricingContext): PricedQuote | undefined {
  try {
    return priceQuote(inputs, context);
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}

/**
 * 400 naming the first field a publishable key may not send on quote creation, or on its preview
 * (which has no `cliente`): both price a basket the same way. A coupon is refused too when the
 * business turned the widget's coupons off (`features.coupons: false`), before it is looked up:
 * nothing is written and no use is counted.
 */
export function refusePublishableFields(body: Omit<QuoteRequest, 'cliente'>, org: Org): void {
  for (const field of PUBLISHABLE_FORBIDDEN) {
    if (body[field] !== undefined) throw invalidRequest(`${field}: not allowed with a publishable key`);
  }
  if (body.cupon !== undefined && org.widget.coupons === false) {
    throw invalidRequest('cupon: coupons are not accepted here; this business has turned them off');
  }
  // Catalog prices are before tax: read as tax-included they would be cut by the rate.
  if (body.iva_incluido) {
    throw invalidRequest('iva_incluido: not allowed with a publishable key; catalog prices are before tax');
  }
  body.items.forEach((item, index) => {
    for (const field of PUBLISHABLE_FORBIDDEN_LINE) {
      if (item[field] != null)
        throw invalidRequest(`items[${index}].${field}: not allowed with a publishable key`);
    }
  });
}

/**
 * 400 naming the first client field the business requires of the widget
 * (`required_client_fields`) that the request leaves out: the widget asks for them, and a caller
 * posting with the same publishable key must not skip them. `rfc`, `tax_id` and `fiscal` ask for
 * the client's tax id (`cliente.fiscal.tax_id`, or the older `cliente.rfc`).
 */
export function requireWidgetClientFields(cliente: NonNullable<QuoteRequest['cliente']>, org: Org): void {
  for (const name of requiredClientFields(org.widget)) {
    if (name === 'rfc' || name === 'tax_id' || name === 'fiscal') {
      if (!cliente.fiscal?.tax_id && !cliente.rfc)
        throw invalidRequest('cliente.fiscal.tax_id: required by this business');
    } else if (name === 'email' || name === 'contacto' || name === 'telefono') {
      if (!cliente[name]) throw invalidRequest(`cliente.${name}: required by this business`);
    }
  }
}

/** The reason a quote waits for internal approval, or null: a discount above the threshold. */
export function approvalNeeded(
  org: Org,
  discount: Discount | null,
  subtotal: number,
  amount: number,
): string | null {
  if (!discount || org.approval_discount_pct === null || subtotal <= 0) return null;
  const pct = (amount / subtotal) * 100;
  if (pct <= org.approval_discount_pct) return null;
  // Two decimals, and never shown as the threshold it passes (30.001 % of a 30 % limit).
  const threshold = org.approval_discount_pct;
  const rounded = Math.round(pct * 100) / 100;
  const shown = rounded > threshold ? rounded : Math.round((threshold + 0.01) * 100) / 100;
  return org.locale === 'es'
    ? `Descuento de ${shown} % por encima del ${threshold} % permitido sin aprobación`
    : `Discount of ${shown}% is above the ${threshold}% allowed without approval`;
}

/**
 * The client of the request, as read: by id (400 `invalid_client`), found by e-mail or name, or
 * else a new one (within the plan's limit) that the quote's statement creates, as `newClient`.
 */
function resolveClient(
  inputs: QuoteInputs,
  org: Org,
  body: QuoteRequest,
): { client: ClientRecord; newClient?: NewClientRow } {
  if (inputs.client) return { client: inputs.client };
  if (body.cliente_id !== undefined) throw noSuchClient(body.cliente_id);
  const limit = PLANS[org.plan].maxClients;
  if ((inputs.clientCount ?? 0) >= limit) throw planLimitError('clients', org.plan, limit);
  const data = body.cliente!;
  const newClient = newClientRow(uuid(), {
    empresa: data.empresa,
    contacto: data.contacto ?? null,
    email: data.email ?? null,
    telefono: data.telefono ?? null,
    rfc: data.rfc ?? null,
    fiscal: (data.fiscal as Record<string, string> | undefined) ?? null,
  });
  const stamp = new Date().toISOString();
  // The spread last: in V8 a spread followed by more properties copies them one by one (slow).
  return { client: { created_at: stamp, updated_at: stamp, ...newClient }, newClient };
}

/** 400 `invalid_client`: `cliente_id` names no client of the directory. */
export const noSuchClient = (id: string) =>
  new ApiError(400, 'invalid_client', `cliente_id: no client ${id} in the directory`);

/** A page of quotes and its `meta`. */
export async function listQuotePage(deps: AppDeps, auth: KeyWithOrg, query: QuoteListQuery) {
  const scope = { orgId: auth.org.id, mode: auth.key.mode };
  const page = await listQuotes(deps.db, scope, query);
  const last = page.rows[page.rows.length - 1];
  return {
    data: page.rows.map((row) => quoteListItem(row, auth.org, deps.config.publicUrl)),
    meta: {
      limit: query.limit,
      offset: query.beforeSeq === undefined ? query.offset : null,
      total: page.total,
      next_cursor: page.more && last ? encodeCursor(last.seq) : null,
    },
  };
}

/** The detail of one quote; 404 when it is not in the key's organization and mode. */
export async function getQuoteDetail(deps: AppDeps, auth: KeyWithOrg, id: string) {
  const quote = await findQuote(deps.db, { orgId: auth.org.id, mode: auth.key.mode }, id);
  if (!quote) throw notFound('Quote');
  return fullQuoteDetail(deps, quote, auth.org, auth.key.kind === 'secret');
}
