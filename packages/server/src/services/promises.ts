import { fromMinor, toMinor } from '@svc/core';
import type { Database, Queryable } from '../db/database.js';
import { invalidRequest, invalidState } from '../errors.js';
import { insertEvent } from '../repositories/events.js';
import {
  addInvoicePaymentToQuote,
  applyPaymentToPromises,
  breakPromises,
  insertPromise,
  type PromiseRow,
} from '../repositories/payments.js';
import type { QuoteRow } from '../repositories/quotes.js';
import { balanceOf, isoDay, minorAmount, promiseEventData } from './payments.js';

/** The body of the quote action `promise`. */
export interface PromiseRequest {
  fecha_promesa: string;
  monto: number;
}

/**
 * Records a promise to pay on a quote whose row the caller locked (design.md section 12): on an
 * `approved` quote with a balance (else 409), for a date today or later and an amount above 0 and
 * not above the balance (else 400), with `promise.created`. The public quote page calls it with
 * actor `client`, the API with `api:<key>`.
 * @returns the promise, as the API shows it
 */
export async function createPromise(
  tx: Queryable,
  quote: QuoteRow,
  request: PromiseRequest,
  context: { actor: string; now: Date },
) {
  const balance = balanceOf(quote);
  if (quote.status !== 'approved' || balance <= 0) {
    throw invalidState(
      `A promise to pay needs an approved quote with a balance; this one is ${quote.status} with a balance of ${balance} ${quote.moneda}. Nothing was changed.`,
    );
  }
  if (request.fecha_promesa < isoDay(context.now)) {
    throw invalidRequest('fecha_promesa: must be today or later');
  }
  const monto = minorAmount(request.monto, quote.moneda, 'monto');
  if (monto > toMinor(balance, quote.moneda)) {
    throw invalidRequest(`monto: ${request.monto} is above the balance of ${balance} ${quote.moneda}`);
  }
  const promise = await insertPromise(tx, {
    quote_id: quote.id,
    org_id: quote.org_id,
    mode: quote.mode,
    fecha_promesa: request.fecha_promesa,
    monto: fromMinor(monto, quote.moneda),
    actor: context.actor,
  });
  await insertEvent(tx, {
    orgId: quote.org_id,
    mode: quote.mode,
    type: 'promise.created',
    object: 'promise',
    objectId: promise.id,
    data: promiseEventData(promise),
    actor: context.actor,
  });
  return promiseEventData(promise);
}

/** Writes `promise.kept` or `promise.broken` for promises just decided. */
export async function promiseEvents(
  tx: Queryable,
  type: 'promise.kept' | 'promise.broken',
  promises: PromiseRow[],
  actor: string,
): Promise<void> {
  for (const promise of promises) {
    await insertEvent(tx, {
      orgId: promise.org_id,
      mode: promise.mode,
      type,
      object: 'promise',
      objectId: promise.id,
      data: promiseEventData(promise),
      actor,
    });
  }
}

/**
 * The scheduled job: breaks every pending promise whose date has passed (`promise.broken`), each
 * exactly once however many processes run it. Returns how many.
 */
export async function breakDuePromises(db: Database, now: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const broken = await breakPromises(tx, { today: isoDay(now) });
    await promiseEvents(tx, 'promise.broken', broken, 'system');
    return broken.length;
  });
}

/** The test helper `break_promises`: the quote's pending promises broken as if their date had passed. */
export async function breakQuotePromises(tx: Queryable, quoteId: string): Promise<number> {
  const broken = await breakPromises(tx, { quoteId });
  await promiseEvents(tx, 'promise.broken', broken, 'system');
  return broken.length;
}

/**
 * A payment on an invoice made from a quote counts for the quote too (design.md section 12: a
 * promise is kept by the payments registered after it, and once invoiced they go on the invoice):
 * the quote's `pagado`, and its pending promises, kept (`promise.kept`) when it completes them.
 */
export async function countInvoicePaymentOnQuote(
  tx: Queryable,
  quoteId: string,
  payment: { monto: number; fecha: string },
  actor: string,
): Promise<void> {
  await addInvoicePaymentToQuote(tx, quoteId, payment.monto);
  const kept = await applyPaymentToPromises(tx, quoteId, payment.monto, payment.fecha);
  await promiseEvents(tx, 'promise.kept', kept, actor);
}
