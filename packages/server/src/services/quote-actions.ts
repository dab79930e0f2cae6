import type { PaymentPlan, QuoteLineRequest } from '@svc/core';
import type { Database, Queryable } from '../db/database.js';
import { invalidRequest, invalidState, notFound } from '../errors.js';
import { findClientById } from '../repositories/clients.js';
import { insertEvent } from '../repositories/events.js';
import { keepAllPromises } from '../repositories/payments.js';
import {
  deleteQuote,
  findQuote,
  findQuoteByToken,
  type QuoteRow,
  type QuoteStatus,
  replaceQuoteItems,
  updateQuote,
} from '../repositories/quotes.js';
import type { AppDeps } from '../types.js';
import { derivedExemption } from './fiscal/exemptions.js';
import type { KeyWithOrg } from './key-store.js';
import type { Org } from './orgs.js';
import { assertPlanFitsTotal, isoDay, payQuoteInTx, planOf, setPaymentPlan } from './payments.js';
import { itemRows, quoteDiscount, resolveLines, totalsFor } from './pricing.js';
import { breakQuotePromises, createPromise, promiseEvents } from './promises.js';
import { addQuoteMessage } from './quote-conversation.js';
import { fullQuoteDetail } from './quote-detail.js';
import { type EmailOutcome, type QueuedEmail, sendQueuedEmail } from './quote-email.js';
import { invoiceQuote } from './quote-invoicing.js';
import { sendQuoteInTx } from './quote-sending.js';
import { quoteEventData } from './quote-view.js';
import { apiActor, approvalNeeded } from './quotes.js';

/** Actions of POST /cotizaciones/{id}. */
export const QUOTE_ACTIONS = [
  'send',
  'resend',
  'approve',
  'reject',
  'mark_paid',
  'approve_discount',
  'reject_discount',
  'invoice',
  'pay',
  'promise',
  'comment',
] as const;
export type QuoteAction = (typeof QUOTE_ACTIONS)[number];

/** A validated action body. */
export interface ActionRequest {
  action: QuoteAction;
  items?: QuoteLineRequest[];
  terminos?: string;
  vigencia_dias?: number;
  /** resend: a new payment plan. */
  plan_pagos?: PaymentPlan;
  /** pay and promise: the amount. */
  monto?: number;
  payment_method?: string;
  fecha?: string;
  referencia?: string;
  fecha_promesa?: string;
  /** comment: the seller's message, and the line it is about. */
  mensaje?: string;
  item_id?: string | null;
}

/** Simple moves: source states, target state and event (design.md section 5). */
const MOVES: Partial<Record<QuoteAction, { from: QuoteStatus[]; to: QuoteStatus; event: string }>> = {
  approve: { from: ['sent', 'viewed'], to: 'approved', event: 'quote.approved' },
  reject: { from: ['sent', 'viewed'], to: 'rejected', event: 'quote.rejected' },
  mark_paid: { from: ['approved'], to: 'paid', event: 'quote.paid' },
};

const wrongState = (quote: QuoteRow, action: string, allowed: string[]) =>
  invalidState(
    `Cannot ${action} a quote in status ${quote.status}; allowed from: ${allowed.join(', ')}. Nothing was changed.`,
  );

/**
 * Runs an action on a quote in one transaction (the row is locked, so concurrent actions
 * serialise); 409 `invalid_state` from a state the action does not start from, applying nothing.
 */
export async function runQuoteAction(deps: AppDeps, auth: KeyWithOrg, id: string, request: ActionRequest) {
  if (request.action === 'invoice') return invoiceQuote(deps, auth, id);
  const scope = { orgId: auth.org.id, mode: auth.key.mode };
  const actor = apiActor(auth);
  const now = deps.now();
  let queued: QueuedEmail | null = null;
  let email: EmailOutcome | undefined;
  await expireBeforeAction(deps.db, (tx) => findQuote(tx, scope, id, true), now);
  const quote = await deps.db.transaction(async (tx) => {
    const current = await findQuote(tx, scope, id, true);
    if (!current) throw notFound('Quote');
    const event = (type: string, q: QuoteRow, extra: Record<string, unknown> = {}) =>
      insertEvent(tx, {
        orgId: auth.org.id,
        mode: auth.key.mode,
        type,
        object: 'quote',
        objectId: q.id,
        data: { ...quoteEventData(q), ...extra },
        actor,
      });
    const { action } = request;
    const move = MOVES[action];
    if (move) {
      if (!move.from.includes(current.status)) throw wrongState(current, action, move.from);
      // Paid in full outside the service: what was paid is the total, so the balance is 0
      // wherever it is read (the detail, collections, an invoice made from the quote).
      const moved = await updateQuote(
        tx,
        current.id,
        action === 'mark_paid' ? { status: move.to, pagado: current.total } : { status: move.to },
      );
      // An approval through the API takes the whole quote, and a rejection gives no reason; the
      // client's page may take part of it, or give one: the events keep one shape either way.
      const extra =
        action === 'approve' ? { parcial: false } : action === 'reject' ? { motivo_rechazo: null } : {};
      await event(move.event, moved, extra);
      // Paid in full outside the service: the promises still pending are kept.
      if (action === 'mark_paid')
        await promiseEvents(tx, 'promise.kept', await keepAllPromises(tx, current.id), actor);
      return moved;
    }
    if ((action === 'pay' || action === 'promise') && request.monto === undefined) {
      throw invalidRequest('monto: is required');
    }
    if (action === 'promise' && request.fecha_promesa === undefined) {
      throw invalidRequest('fecha_promesa: is required');
    }
    if (action === 'pay') {
      const { monto, payment_method, fecha, referencia } = request;
      return payQuoteInTx(tx, current, { monto: monto!, payment_method, fecha, referencia }, { actor, now });
    }
    if (action === 'promise') {
      const promise = { fecha_promesa: request.fecha_promesa!, monto: request.monto! };
      await createPromise(tx, current, promise, { actor, now });
      return current;
    }
    if (action === 'comment') {
      const message = { autor: 'vendedor' as const, mensaje: request.mensaje!, item_id: request.item_id };
      await addQuoteMessage(tx, current, message, actor);
      return current;
    }
    if (action === 'approve_discount' || action === 'reject_discount') {
      if (current.approval_status !== 'pending') {
        throw invalidState('This quote is not waiting for internal approval. Nothing was changed.');
      }
      const decision = action === 'approve_discount' ? 'approved' : 'rejected';
      const decided = await updateQuote(tx, current.id, { approval_status: decision });
      await event('quote.approval_decided', decided, { decision });
      return decided;
    }
    const client = await findClientById(tx, scope, current.cliente_id);
    if (action === 'send') {
      if (current.status !== 'draft') throw wrongState(current, 'send', ['draft']);
      if (current.approval_status === 'pending' || current.approval_status === 'rejected') {
        throw invalidState(
          current.approval_status === 'pending'
            ? 'This quote is waiting for internal approval of its discount and cannot be sent yet.'
            : 'The discount of this quote was rejected internally; it cannot be sent.',
        );
      }
      const sent = await sendQuoteInTx(tx, deps, {
        quote: current,
        org: auth.org,
        actor,
        clientEmail: client?.email ?? null,
        now,
      });
      ({ outcome: email, queued } = sent.email);
      return sent.quote;
    }
    // resend: may carry new lines, terms and validity; the coupon already counted is kept.
    const allowed: QuoteStatus[] = ['sent', 'viewed', 'expired'];
    if (!allowed.includes(current.status)) throw wrongState(current, 'resend', allowed);
    let changed = current;
    if (request.items || request.terminos !== undefined || request.vigencia_dias !== undefined) {
      changed = await reprice(tx, auth.org, current, request, auth.key.kind === 'publishable');
    }
    if (request.plan_pagos) changed = await setPaymentPlan(tx, changed, request.plan_pagos);
    // New lines may leave the plan kept a total too small for it.
    else if (changed !== current) assertPlanFitsTotal(planOf(changed), changed);
    const sent = await sendQuoteInTx(tx, deps, {
      quote: changed,
      org: auth.org,
      actor,
      clientEmail: client?.email ?? null,
      now,
      type: 'quote.updated',
    });
    ({ outcome: email, queued } = sent.email);
    return sent.quote;
  });
  if (queued && deps.mailer) email = await sendQueuedEmail(deps.db, deps.mailer, queued);
  const detail = await fullQuoteDetail(deps, quote, auth.org, auth.key.kind === 'secret');
  return email ? { ...detail, email } : detail;
}

/** New lines, terms or validity for a resend, with totals recomputed under the same discount. */
async function reprice(
  tx: Queryable,
  org: Org,
  quote: QuoteRow,
  request: ActionRequest,
  publishable: boolean,
) {
  const scope = { orgId: org.id, mode: quote.mode };
  if (request.items) {
    const lines = await resolveLines(tx, scope, org, request.items, quote.moneda, { publishable });
    const discount = await quoteDiscount(tx, quote);
    const totals = totalsFor(lines, {
      currency: quote.moneda,
      ivaIncluido: quote.iva_incluido,
      defaultTaxRate: org.default_tax_rate,
      discount,
    });
    checkDiscountStillAllowed(org, quote, totals);
    const client = quote.cliente_id ? await findClientById(tx, scope, quote.cliente_id) : undefined;
    const exemption = derivedExemption(org.country, client?.country_code ?? null);
    await replaceQuoteItems(tx, quote.id, itemRows(lines, totals, exemption));
    quote = await updateQuote(tx, quote.id, {
      subtotal: totals.subtotal,
      descuento: totals.descuento,
      impuestos: totals.impuestos,
      total: totals.total,
    });
  }
  return updateQuote(tx, quote.id, {
    terminos_codigo: request.terminos ?? quote.terminos_codigo,
    vigencia_dias: request.vigencia_dias ?? quote.vigencia_dias,
  });
}

/**
 * A resend's new lines keep the quote's discount: a fixed amount can become a larger share of
 * smaller lines. Above the organization's threshold, the quote would reach the client with a
 * discount nobody approved, so the resend is refused (409, nothing changed), unless that share was
 * approved already: no larger than when its discount was approved internally.
 */
function checkDiscountStillAllowed(
  org: Org,
  quote: QuoteRow,
  totals: { subtotal: number; descuento: number },
): void {
  if (!approvalNeeded(org, quote.descuento_solicitado, totals.subtotal, totals.descuento)) return;
  const share = totals.descuento / totals.subtotal;
  if (quote.approval_status === 'approved' && quote.subtotal > 0 && share <= quote.descuento / quote.subtotal)
    return;
  throw invalidState(
    `With these lines the quote's discount would be ${Math.round(share * 1000) / 10} % of the subtotal, above the ${org.approval_discount_pct} % allowed without internal approval. Nothing was changed; make a new quote for these lines.`,
  );
}

/** DELETE /cotizaciones/{id}: only a draft that was never sent; its coupon use is given back. */
export async function deleteDraft(deps: AppDeps, auth: KeyWithOrg, id: string) {
  const scope = { orgId: auth.org.id, mode: auth.key.mode };
  return deps.db.transaction(async (tx) => {
    const quote = await findQuote(tx, scope, id, true);
    if (!quote) throw notFound('Quote');
    if (quote.status !== 'draft' || quote.sent_at !== null) {
      throw invalidState(`Only drafts that were never sent can be deleted; this quote is ${quote.status}.`);
    }
    if (quote.coupon_id)
      await tx.query('UPDATE coupons SET uses = greatest(uses - 1, 0) WHERE id = $1', [quote.coupon_id]);
    await deleteQuote(tx, quote.id);
    await insertEvent(tx, {
      orgId: auth.org.id,
      mode: auth.key.mode,
      type: 'quote.deleted',
      object: 'quote',
      objectId: quote.id,
      data: quoteEventData(quote),
      actor: apiActor(auth),
    });
    return { id: quote.id, folio: quote.folio, deleted: true };
  });
}

/**
 * Test helpers: `open` (sent → viewed, as the client would), `expire` (sent|viewed → expired) and
 * `break_promises` (the quote's pending promises broken as if their date had passed).
 */
export async function runTestHelper(
  deps: AppDeps,
  auth: KeyWithOrg,
  id: string,
  action: 'open' | 'expire' | 'break_promises',
) {
  const scope = { orgId: auth.org.id, mode: auth.key.mode };
  const quote = await deps.db.transaction(async (tx) => {
    const current = await findQuote(tx, scope, id, true);
    if (!current) throw notFound('Quote');
    if (action === 'break_promises') {
      await breakQuotePromises(tx, current.id);
      return current;
    }
    const from: QuoteStatus[] = action === 'open' ? ['sent'] : ['sent', 'viewed'];
    if (!from.includes(current.status)) throw wrongState(current, action, from);
    const to: QuoteStatus = action === 'open' ? 'viewed' : 'expired';
    const moved = await updateQuote(tx, current.id, { status: to });
    // As a real opening: the first one fires quote.viewed, one after a resend does not.
    if (action === 'open' && (await viewedBefore(tx, current.id))) return moved;
    await insertEvent(tx, {
      orgId: auth.org.id,
      mode: auth.key.mode,
      type: action === 'open' ? 'quote.viewed' : 'quote.expired',
      object: 'quote',
      objectId: moved.id,
      data: quoteEventData(moved),
      actor: action === 'open' ? 'client' : 'system',
    });
    return moved;
  });
  return fullQuoteDetail(deps, quote, auth.org, auth.key.kind === 'secret');
}

/**
 * A sent or viewed quote whose validity date has passed is expired before anything else happens to
 * it, in the caller's transaction and with its `quote.expired`: the scheduled job does the same
 * within a minute, but until then a client could still approve it or a seller take a payment.
 */
export async function expireIfDue(tx: Queryable, quote: QuoteRow, now: Date): Promise<QuoteRow> {
  if (quote.status !== 'sent' && quote.status !== 'viewed') return quote;
  if (!quote.vigencia || quote.vigencia >= isoDay(now)) return quote;
  const expired = await updateQuote(tx, quote.id, { status: 'expired' });
  await recordExpired(tx, expired);
  return expired;
}

/**
 * {@link expireIfDue} in a transaction of its own, before an action's: a quote that expired stays
 * expired when the action it was found for is refused (and rolled back).
 */
export async function expireBeforeAction(
  db: Database,
  find: (tx: Queryable) => Promise<QuoteRow | undefined>,
  now: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    const found = await find(tx);
    if (found) await expireIfDue(tx, found, now);
  });
}

/** The `quote.expired` of a quote the service expired. */
const recordExpired = (tx: Queryable, quote: QuoteRow) =>
  insertEvent(tx, {
    orgId: quote.org_id,
    mode: quote.mode,
    type: 'quote.expired',
    object: 'quote',
    objectId: quote.id,
    data: quoteEventData(quote),
    actor: 'system',
  });

/**
 * Expires every sent or viewed quote whose validity date has passed, each with its
 * `quote.expired` event in the same transaction. Safe on several processes at once: the UPDATE's
 * condition lets each quote expire exactly once.
 */
export async function expireDueQuotes(db: Database, now: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const expired = await tx.query<QuoteRow>(
      `UPDATE quotes SET status = 'expired', updated_at = now()
       WHERE status IN ('sent', 'viewed') AND vigencia < $1::date
       RETURNING id, org_id, mode, folio, status, moneda, total, cliente_nombre, cliente_id`,
      [isoDay(now)],
    );
    for (const quote of expired) await recordExpired(tx, quote);
    return expired.length;
  });
}

/** The public page's view of a quote; drafts are not shown. */
export async function findPublicQuote(db: Queryable, token: string) {
  const quote = await findQuoteByToken(db, token);
  if (!quote || quote.status === 'draft') return undefined;
  return quote;
}

/**
 * Opening a sent quote on its public link marks it viewed; any later opening changes nothing.
 * `quote.viewed` (actor `client`) fires the first time the client opens it, as the spec's catalog
 * says: after a resend the quote is `viewed` again when opened, without a second event. Returns
 * the quote after the move.
 */
export async function markViewed(db: Database, token: string, now: Date): Promise<QuoteRow | undefined> {
  return db.transaction(async (tx) => {
    const found = await findQuoteByToken(tx, token, true);
    const quote = found && (await expireIfDue(tx, found, now));
    if (quote?.status !== 'sent') return quote;
    const moved = await updateQuote(tx, quote.id, { status: 'viewed' });
    if (await viewedBefore(tx, quote.id)) return moved;
    await insertEvent(tx, {
      orgId: quote.org_id,
      mode: quote.mode,
      type: 'quote.viewed',
      object: 'quote',
      objectId: quote.id,
      data: quoteEventData(moved),
      actor: 'client',
    });
    return moved;
  });
}

/** Whether the client opened this quote before (its `quote.viewed` is in the history). */
async function viewedBefore(tx: Queryable, quoteId: string): Promise<boolean> {
  const rows = await tx.query("SELECT 1 FROM events WHERE object_id = $1 AND type = 'quote.viewed' LIMIT 1", [
    quoteId,
  ]);
  return rows.length > 0;
}
