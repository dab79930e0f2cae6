import {
  classifyPayment,
  currencyExponent,
  type Discount,
  fromMinor,
  type PaymentPlan,
  paymentSchedule,
  planFitsTotal,
  toMinor,
} from '@svc/core';
import type { Queryable } from '../db/database.js';
import { invalidRequest, invalidState } from '../errors.js';
import { insertEvent } from '../repositories/events.js';
import {
  applyPaymentToPromises,
  findQuotePayments,
  findQuotePromises,
  insertQuotePayment,
  type PromiseRow,
  type QuotePaymentRow,
} from '../repositories/payments.js';
import { findQuote, type QuoteRow, updateQuote } from '../repositories/quotes.js';
import { quoteEventData } from './quote-view.js';

/** The body of the quote action `pay`. */
export interface PayRequest {
  monto: number;
  payment_method?: string | undefined;
  fecha?: string | undefined;
  referencia?: string | undefined;
}

const CASH: PaymentPlan = { tipo: 'contado' };

/** The quote's plan; cash when none was given. */
export const planOf = (quote: Pick<QuoteRow, 'plan_pagos'>): PaymentPlan => quote.plan_pagos ?? CASH;

/** The quote's balance in major units: total less what was paid (0 once paid outside the service). */
export function balanceOf(quote: Pick<QuoteRow, 'total' | 'pagado' | 'moneda' | 'status'>): number {
  if (quote.status === 'paid') return 0;
  return fromMinor(toMinor(quote.total, quote.moneda) - toMinor(quote.pagado, quote.moneda), quote.moneda);
}

/** Today's date (UTC) as `YYYY-MM-DD`. */
export const isoDay = (now: Date): string => now.toISOString().slice(0, 10);

/**
 * The date of a payment registered now (`fecha`, else `today`): one received, so never after
 * today, with a day of slack for an issuer whose calendar is ahead of UTC. A date long past is
 * taken: payments are entered late.
 */
export function paymentDate(fecha: string | undefined, now: Date, today = isoDay(now)): string {
  if (fecha !== undefined && fecha > isoDay(new Date(now.getTime() + 86_400_000))) {
    throw invalidRequest(`fecha: ${fecha} is after today; a payment is registered once received`);
  }
  return fecha ?? today;
}

/**
 * An amount of the quote's currency in minor units; 400 naming `field` when it has more decimals
 * than the currency's minor unit (a payment of 10.005 MXN cannot be registered).
 */
export function minorAmount(amount: number, currency: string, field: string): number {
  const minor = exactMinor(amount, currency, field);
  if (minor <= 0) throw invalidRequest(`${field}: must be greater than 0`);
  return minor;
}

/** An amount in minor units; 400 naming `field` when it has more decimals than `currency` has. */
export function exactMinor(amount: number, currency: string, field: string): number {
  const minor = toMinor(amount, currency);
  if (fromMinor(minor, currency) !== amount) {
    throw invalidRequest(`${field}: at most ${currencyExponent(currency)} decimals in ${currency}`);
  }
  return minor;
}

/**
 * A discount asked for on a quote or an invoice (`descuento`): an amount (`monto`) with more decimals
 * than the document's currency is refused, as a payment's is, rather than rounded silently.
 */
export function requestedDiscount(discount: Discount | null | undefined, currency: string): Discount | null {
  if (discount?.tipo === 'monto') exactMinor(discount.valor, currency, 'descuento.valor');
  return discount ?? null;
}

/** Days of a payment term code (`net30` → 30; `contado` and none → 0). */
export const termDays = (code: string | null): number =>
  code?.startsWith('net') ? Number(code.slice(3)) || 0 : 0;

const addDays = (day: string, days: number): string => {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return isoDay(date);
};

/**
 * Registers a payment on a quote whose row the caller locked (design.md section 12): from
 * `approved`, or from `sent`/`viewed` when it is the deposit of an `anticipo` plan, which approves
 * the quote (`quote.approved`). A payment that leaves a balance fires `payment.partial`; the one
 * that brings it to 0 moves the quote to `paid` with `quote.paid`. Pending promises it completes
 * are kept (`promise.kept`). 400 when `monto` is above the balance; 409 from any other state.
 */
export async function payQuoteInTx(
  tx: Queryable,
  quote: QuoteRow,
  request: PayRequest,
  context: { actor: string; now: Date },
): Promise<QuoteRow> {
  const { moneda } = quote;
  const plan = planOf(quote);
  const event = (
    type: string,
    object: 'quote' | 'promise',
    objectId: string,
    data: Record<string, unknown>,
  ) =>
    insertEvent(tx, {
      orgId: quote.org_id,
      mode: quote.mode,
      type,
      object,
      objectId,
      data,
      actor: context.actor,
    });

  const montoMinor = minorAmount(request.monto, moneda, 'monto');
  const paidMinor = toMinor(quote.pagado, moneda);
  const balanceMinor = toMinor(quote.total, moneda) - paidMinor;
  let current = quote;
  if (quote.status === 'sent' || quote.status === 'viewed') {
    const deposit = plan.tipo === 'anticipo' ? paymentSchedule(plan, quote.total, moneda)[0]!.monto : null;
    if (deposit === null || paidMinor > 0 || montoMinor < toMinor(deposit, moneda)) {
      throw invalidState(
        deposit === null
          ? `A quote in status ${quote.status} takes no payment: approve it first (only the deposit of an anticipo plan approves it). Nothing was changed.`
          : `A quote in status ${quote.status} takes only its deposit of ${deposit} ${moneda}, which approves it. Nothing was changed.`,
      );
    }
  } else if (quote.status !== 'approved') {
    throw invalidState(
      `Cannot pay a quote in status ${quote.status}; allowed from: approved (sent, viewed for the deposit). Nothing was changed.`,
    );
  }
  if (montoMinor > balanceMinor) {
    throw invalidRequest(
      `monto: ${request.monto} is above the balance of ${fromMinor(balanceMinor, moneda)} ${moneda}`,
    );
  }
  if (current.status !== 'approved') {
    current = await updateQuote(tx, quote.id, { status: 'approved' });
    await event('quote.approved', 'quote', quote.id, { ...quoteEventData(current), parcial: false });
  }

  const { tipo, numero_cuota } = classifyPayment(plan, quote.total, quote.pagado, moneda);
  const monto = fromMinor(montoMinor, moneda);
  const fecha = paymentDate(request.fecha, context.now);
  await insertQuotePayment(tx, {
    quote_id: quote.id,
    org_id: quote.org_id,
    mode: quote.mode,
    tipo,
    numero_cuota,
    monto,
    fecha,
    payment_method: request.payment_method ?? null,
    referencia: request.referencia ?? null,
    actor: context.actor,
  });
  const pagado = fromMinor(paidMinor + montoMinor, moneda);
  const left = balanceMinor - montoMinor;
  if (left === 0) {
    current = { ...(await updateQuote(tx, quote.id, { status: 'paid' })), pagado };
    await event('quote.paid', 'quote', quote.id, quoteEventData(current));
  } else {
    current = { ...current, pagado };
    await event('payment.partial', 'quote', quote.id, {
      ...quoteEventData(current),
      tipo,
      monto,
      numero_cuota,
      saldo_pendiente: fromMinor(left, moneda),
      payment_method: request.payment_method ?? null,
    });
  }
  for (const kept of await applyPaymentToPromises(tx, quote.id, monto, fecha)) {
    await event('promise.kept', 'promise', kept.id, promiseEventData(kept));
  }
  return current;
}

/** A promise as the API returns it and as its events carry it (the spec's promise data). */
export function promiseEventData(promise: PromiseRow) {
  return {
    id: promise.id,
    object: 'promise' as const,
    cotizacion_id: promise.quote_id,
    fecha_promesa: promise.fecha_promesa,
    monto: promise.monto,
    estado: promise.estado,
  };
}

/** A payment as the quote detail lists it. */
const paymentView = (payment: QuotePaymentRow) => ({
  id: payment.id,
  tipo: payment.tipo,
  numero_cuota: payment.numero_cuota,
  monto: payment.monto,
  fecha: payment.fecha,
  payment_method: payment.payment_method,
  referencia: payment.referencia,
});

/**
 * What the quote detail adds about getting paid: `plan_pagos`, `pagado`, `saldo`, `pagos`,
 * `promesas`, and `calendario`, the plan's payments with their pay-by dates (`vence`: from the
 * approval date; the deposit on approval, the balance or installments after the client's payment
 * terms, one installment a month; null while not approved).
 */
export async function paymentFields(db: Queryable, quote: QuoteRow) {
  const [payments, promises] = await Promise.all([
    findQuotePayments(db, quote.id),
    findQuotePromises(db, quote.id),
  ]);
  const plan = planOf(quote);
  const terms = termDays(quote.terminos_codigo);
  const approved = quote.approved_at?.slice(0, 10) ?? null;
  const calendario = paymentSchedule(plan, quote.total, quote.moneda).map((step, index) => {
    const days = step.tipo === 'anticipo' ? 0 : terms + (plan.tipo === 'cuotas' ? index * 30 : 0);
    return { ...step, dias: days, vence: approved && addDays(approved, days) };
  });
  return {
    plan_pagos: plan,
    pagado: quote.pagado,
    saldo: balanceOf(quote),
    pagos: payments.map(paymentView),
    promesas: promises.map(promiseEventData),
    calendario,
  };
}

/**
 * The plan in words for a page or an e-mail, in one of the five languages, e.g. "50 % de anticipo,
 * después el saldo" or "3 pagos iguales". The balance is not said to be due on delivery: the
 * `calendario` dates it by the client's payment terms from approval.
 */
export function planText(plan: PaymentPlan, lang: string): string {
  const texts: Record<string, [string, (p: number) => string, (n: number) => string]> = {
    es: ['Contado', (p) => `${p} % de anticipo, después el saldo`, (n) => `${n} pagos iguales`],
    en: ['Paid in full', (p) => `${p} % deposit, then the balance`, (n) => `${n} equal installments`],
    pt: ['À vista', (p) => `${p} % de entrada, depois o saldo`, (n) => `${n} parcelas iguais`],
    fr: ['Comptant', (p) => `Acompte de ${p} %, puis le solde`, (n) => `${n} versements égaux`],
    de: ['Sofort fällig', (p) => `${p} % Anzahlung, danach der Rest`, (n) => `${n} gleiche Raten`],
  };
  const [cash, deposit, installments] = texts[lang] ?? texts.es!;
  if (plan.tipo === 'anticipo') return deposit(plan.porcentaje);
  if (plan.tipo === 'cuotas') return installments(plan.numero);
  return cash;
}

/** Refuses (400) a plan that would ask this quote for a payment of 0. */
export function assertPlanFitsTotal(plan: PaymentPlan, quote: Pick<QuoteRow, 'total' | 'moneda'>): void {
  if (plan.tipo === 'contado' || planFitsTotal(plan, quote.total, quote.moneda)) return;
  const [asked, instead] =
    plan.tipo === 'cuotas'
      ? [`${plan.numero} installments`, 'fewer installments']
      : [`a ${plan.porcentaje} % deposit`, 'a larger deposit'];
  throw invalidRequest(
    `plan_pagos: ${asked} of a total of ${quote.total} ${quote.moneda} would ask for a payment of 0; choose ${instead} or contado. Nothing was changed.`,
  );
}

/**
 * Stores a quote's payment plan (on create or resend; cash is stored as null, the default), refused
 * when it would ask for a payment of 0 on the quote's total.
 */
export async function setPaymentPlan(tx: Queryable, quote: QuoteRow, plan: PaymentPlan): Promise<QuoteRow> {
  assertPlanFitsTotal(plan, quote);
  await tx.query('UPDATE quotes SET plan_pagos = $2::jsonb WHERE id = $1', [
    quote.id,
    plan.tipo === 'contado' ? null : JSON.stringify(plan),
  ]);
  return (await findQuote(tx, { orgId: quote.org_id, mode: quote.mode }, quote.id))!;
}
