import { type ClienteRequest, type Discount, fromMinor, type QuoteLineRequest, toMinor } from '@svc/core';
import type { Database, Queryable } from '../db/database.js';
import { ApiError, invalidRequest, invalidState, notFound } from '../errors.js';
import { encodeCursor } from '../http/cursor.js';
import { countryLang } from '../i18n/messages.js';
import { isUuid, randomBase62 } from '../ids.js';
import {
  type ClientIdentity,
  type ClientRecord,
  clientEventData,
  countClients,
  insertClient,
} from '../repositories/clients.js';
import { insertEvent, type NewEvent } from '../repositories/events.js';
import {
  type CreditNoteRow,
  discardFiscalOverride,
  findCreditNotes,
  findInvoice,
  findInvoiceItems,
  findInvoicePayments,
  findStampInputs,
  type InvoiceItemRow,
  type InvoiceListQuery,
  type InvoicePaymentRow,
  type InvoiceRow,
  type InvoiceState,
  insertCreditNote,
  insertInvoice,
  insertInvoicePayment,
  issueInvoice,
  listInvoices,
  type NewInvoice,
  setFiscalOverride,
  takeFiscalOverride,
  takeNumber,
  updateInvoice,
} from '../repositories/invoices.js';
import { findQuotePayments, type QuotePaymentRow } from '../repositories/payments.js';
import { readQuoteInputs } from '../repositories/quote-inputs.js';
import type { QuoteRow } from '../repositories/quotes.js';
import type { AppDeps } from '../types.js';
import { CFDI_TIME_ZONE, cfdiDateTime } from './fiscal/cfdi.js';
import { derivedExemption } from './fiscal/exemptions.js';
import { type FiscalProvider, fiscalProviders, type StampResult, sandboxProvider } from './fiscal/index.js';
import { checkQuantity } from './fiscal/tax-catalog.js';
import { queueInvoiceEmail } from './invoice-email.js';
import { balanceOf, invoiceDetail, invoiceEventData, invoiceListItem } from './invoice-view.js';
import type { KeyWithOrg } from './key-store.js';
import { findOrg, type Org } from './orgs.js';
import { minorAmount, paymentDate, requestedDiscount, termDays } from './payments.js';
import { assertRoomFor } from './plans.js';
import { exchangeRate, itemRows, lineProductIds, priceLines, totalsFor } from './pricing.js';
import { countInvoicePaymentOnQuote } from './promises.js';
import { type QueuedEmail, sendQueuedEmail } from './quote-email.js';
import { addDays } from './quote-sending.js';
import { apiActor, noSuchClient } from './quotes.js';

/** Actions of POST /facturas/{id} (design.md section 11). */
export const INVOICE_ACTIONS = [
  'finalize',
  'send',
  'pay',
  'credit_note',
  'void',
  'mark_uncollectible',
] as const;
export type InvoiceAction = (typeof INVOICE_ACTIONS)[number];

export const PAYMENT_METHODS = ['transferencia', 'efectivo', 'tarjeta', 'cheque', 'otro'] as const;

/** A validated POST /facturas body. */
export interface InvoiceRequest {
  cliente_id?: string | undefined;
  cliente?: ClienteRequest | undefined;
  items: QuoteLineRequest[];
  moneda?: string | undefined;
  iva_incluido?: boolean | undefined;
  descuento?: Discount | null | undefined;
  vence?: string | undefined;
  dias_credito?: number | undefined;
  metodo_pago?: 'PUE' | 'PPD' | undefined;
  notas?: string | undefined;
}

/** A validated POST /facturas/{id} body. */
export interface InvoiceActionRequest {
  action: InvoiceAction;
  monto?: number | undefined;
  fecha?: string | undefined;
  metodo?: (typeof PAYMENT_METHODS)[number] | undefined;
  referencia?: string | undefined;
  motivo?: string | undefined;
}

type Scope = { orgId: string; mode: 'test' | 'live' };
const scopeOf = (auth: KeyWithOrg): Scope => ({ orgId: auth.org.id, mode: auth.key.mode });

const today = (now: Date) => now.toISOString().slice(0, 10);

/**
 * The day an organization issues a document on: in Mexico the local date of the place of issue
 * (the CFDI's `Fecha`, Mexico City's time), elsewhere the UTC date.
 */
const issueDay = (org: Pick<Org, 'country'>, now: Date) =>
  org.country === 'MX' ? cfdiDateTime(now, CFDI_TIME_ZONE).slice(0, 10) : today(now);

/**
 * An invoice's dates are all days of its issuer's calendar ({@link issueDay}): its due date counts
 * from the day it is issued on, a payment is dated on that calendar's today, and it is overdue once
 * that calendar's today is past its due date. Mixed with UTC dates, a Mexican invoice created after
 * 18:00 in Mexico City was due a day later than its credit, and fired overdue six hours early.
 */
const daysFrom = (day: string, days: number) => addDays(new Date(`${day}T00:00:00Z`), days);

const fiscalUnavailable = (retryAfterSeconds: number, message?: string) =>
  new ApiError(
    503,
    'fiscal_unavailable',
    message ?? 'The fiscal stamping service is not available right now; nothing was changed. Retry later.',
    {},
    { 'Retry-After': String(retryAfterSeconds) },
  );

const fiscalRejected = (motivo: string) =>
  invalidRequest(`The fiscal authority refused the document: ${motivo}`, {
    reason: 'fiscal_rejected',
    motivo,
  });

/** A stamping refused inside a transaction, carried out of it so that the transaction rolls back. */
class StampRefused extends Error {
  constructor(readonly motivo: string) {
    super(motivo);
  }
}

/** POST /facturas: a draft invoice, priced by the one `computeTotals`. No event (the spec states none). */
export async function createInvoice(deps: AppDeps, auth: KeyWithOrg, body: InvoiceRequest) {
  const { org } = auth;
  const scope = scopeOf(auth);
  const currency = body.moneda ?? org.currency;
  if (!org.currencies.includes(currency)) {
    throw invalidRequest(
      `moneda: ${currency} is not a currency of this business (${org.currencies.join(', ')})`,
    );
  }
  if (body.cliente_id !== undefined && body.cliente !== undefined) {
    throw invalidRequest('cliente_id and cliente: send one of them, not both');
  }
  if (body.cliente_id === undefined && body.cliente === undefined) {
    throw invalidRequest('cliente: an invoice needs a client (cliente or cliente_id)');
  }
  if (body.vence !== undefined && body.dias_credito !== undefined) {
    throw invalidRequest('vence and dias_credito: send one of them, not both');
  }
  const now = deps.now();
  // A past date is taken: an invoice issued earlier is entered late, and ages from its due date.
  const day = issueDay(org, now);
  const vence = body.vence ?? daysFrom(day, body.dias_credito ?? 30);
  const mexican = org.country === 'MX';
  const identity = clientIdentity(body);
  const productIds = lineProductIds(body.items);
  const { invoice, items } = await deps.db.transaction(async (tx) => {
    // One statement reads the client, its organization's client count (when it is new) and the
    // products; a new client then locks that count until COMMIT.
    const inputs = await readQuoteInputs(tx, scope, { client: identity, productIds, couponCode: undefined });
    const lines = priceLines(inputs.products, org, body.items, currency, { publishable: false });
    if (!inputs.client && body.cliente_id !== undefined) throw noSuchClient(body.cliente_id);
    const client = inputs.client ?? (await createClient(tx, auth, body.cliente!, inputs.clientCount));
    const discount = requestedDiscount(body.descuento, currency);
    const totals = totalsFor(lines, {
      currency,
      ivaIncluido: body.iva_incluido ?? false,
      defaultTaxRate: org.default_tax_rate,
      discount,
    });
    const row: NewInvoice = {
      token: randomBase62(40),
      estado_fiscal: mexican ? 'pending' : 'not_applicable',
      pais: org.country,
      tipo: mexican ? 'cfdi' : 'commercial',
      moneda: currency,
      moneda_fiscal: fiscalCurrency(org, currency),
      iva_incluido: body.iva_incluido ?? false,
      descuento_solicitado: discount,
      subtotal: totals.subtotal,
      descuento: totals.descuento,
      impuestos: totals.impuestos,
      total: totals.total,
      vence,
      dias_credito: body.dias_credito ?? 30,
      // Paid in one payment (PUE) only when said so; an invoice with credit is paid in parts (PPD).
      metodo_pago: mexican ? (body.metodo_pago ?? (vence === day ? 'PUE' : 'PPD')) : null,
      cliente_id: client.id,
      cliente_nombre: client.empresa,
      cotizacion_id: null,
      language: countryLang(client.country_code) ?? org.locale,
      notas: body.notas ?? null,
      created_by: apiActor(auth),
    };
    const exemption = derivedExemption(org.country, client.country_code);
    return insertInvoice(tx, scope, row, itemRows(lines, totals, exemption));
  });
  // A new draft has no payments or credit notes (those need an issued invoice).
  return detailOf(deps, auth, invoice, { items, payments: [], notes: [] });
}

/** How an invoice names its client: by id (400 `invalid_client` for one that cannot be), or by `cliente`. */
function clientIdentity(body: InvoiceRequest): ClientIdentity {
  if (body.cliente_id === undefined) {
    return { email: body.cliente!.email ?? null, empresa: body.cliente!.empresa };
  }
  if (!isUuid(body.cliente_id)) throw noSuchClient(body.cliente_id);
  return { id: body.cliente_id };
}

/** The client `cliente` describes, new to the directory; `count`: its organization's clients. */
async function createClient(
  tx: Queryable,
  auth: KeyWithOrg,
  data: ClienteRequest,
  count: number | null,
): Promise<ClientRecord> {
  const scope = scopeOf(auth);
  // The count read with the invoice's inputs; counted again only under the lock, near the limit.
  await assertRoomFor(tx, 'clients', scope, auth.org.plan, () => countClients(tx, scope), {
    counted: count ?? 0,
  });
  const client = await insertClient(tx, scope, {
    ...data,
    fiscal: (data.fiscal as Record<string, string> | undefined) ?? null,
  });
  await insertEvent(tx, {
    orgId: scope.orgId,
    mode: scope.mode,
    type: 'client.created',
    object: 'client',
    objectId: client.id,
    data: clientEventData(client),
    actor: apiActor(auth),
  });
  return client;
}

/** GET /facturas: newest first, by cursor. */
export async function listInvoicePage(
  deps: AppDeps,
  auth: KeyWithOrg,
  query: InvoiceListQuery,
): Promise<{
  data: ReturnType<typeof invoiceListItem>[];
  meta: { limit: number; next_cursor: string | null };
}> {
  const rows = await listInvoices(deps.db, scopeOf(auth), query);
  const page = rows.slice(0, query.limit);
  const more = rows.length > query.limit;
  return {
    data: page.map((row) => invoiceListItem(row, deps.config.publicUrl)),
    meta: { limit: query.limit, next_cursor: more ? encodeCursor(page[page.length - 1]!.seq) : null },
  };
}

/** GET /facturas/{id}. */
export async function getInvoiceDetail(deps: AppDeps, auth: KeyWithOrg, id: string) {
  const invoice = await findInvoice(deps.db, scopeOf(auth), id);
  if (!invoice) throw notFound('Invoice');
  return detailOf(deps, auth, invoice);
}

/** What an invoice's detail shows besides its row. */
interface InvoiceParts {
  items: InvoiceItemRow[];
  payments: InvoicePaymentRow[];
  notes: CreditNoteRow[];
}

/** An invoice's detail; the `known` parts (just written, or known to be empty) are not read again. */
async function detailOf(
  deps: AppDeps,
  auth: KeyWithOrg,
  invoice: InvoiceRow,
  known: Partial<InvoiceParts> = {},
) {
  const [items, payments, notes] = await Promise.all([
    known.items ?? findInvoiceItems(deps.db, invoice.id),
    known.payments ?? findInvoicePayments(deps.db, invoice.id),
    known.notes ?? findCreditNotes(deps.db, invoice.id),
  ]);
  return invoiceDetail(
    invoice,
    { items, payments, notes },
    deps.config.publicUrl,
    auth.key.kind === 'secret',
  );
}

/** Source states of each action (design.md section 11). */
const FROM: Record<InvoiceAction, InvoiceState[]> = {
  finalize: ['draft'],
  send: ['open', 'uncollectible', 'paid'],
  pay: ['open', 'uncollectible'],
  credit_note: ['open', 'uncollectible'],
  void: ['open', 'uncollectible'],
  mark_uncollectible: ['open'],
};

const wrongState = (invoice: InvoiceRow, action: string) =>
  invalidState(
    `Cannot ${action} an invoice in estado ${invoice.estado}; allowed from: ${FROM[action as InvoiceAction].join(', ')}. Nothing was changed.`,
  );

/**
 * The result forced by POST /test_helpers/fiscal, if any, taken so that it is used once even when
 * the action then fails. The action's own transaction is not open yet, but an idempotent request's
 * is, and rolls back on a refusal or an outage: the result is then discarded again after it.
 */
async function takeForcedResult(db: Database, orgId: string) {
  const forced = await takeFiscalOverride(db, orgId);
  if (forced && db.inTransaction()) await db.afterTransaction(() => discardFiscalOverride(db, orgId, forced));
  return forced;
}

/**
 * The provider that stamps an organization's invoices in this mode: the sandbox in test mode (with
 * the result forced by POST /test_helpers/fiscal, used once), the configured one in live mode, or
 * none (503 `fiscal_unavailable`: live invoices are never stamped by a stand-in).
 */
async function providerFor(deps: AppDeps, auth: KeyWithOrg): Promise<FiscalProvider> {
  if (auth.key.mode === 'test') {
    const forced = await takeForcedResult(deps.db, auth.org.id);
    if (!forced || forced.result === 'stamped') return sandboxProvider;
    const outcome: StampResult =
      forced.result === 'rejected'
        ? {
            status: 'rejected',
            motivo:
              forced.motivo ??
              'CFDI40145: the receiver RFC is not in the list of RFCs registered with the SAT',
          }
        : { status: 'unavailable', retryAfterSeconds: 30 };
    return { name: 'sandbox', stamp: async () => outcome };
  }
  const live = fiscalProviders(deps.config).live;
  if (!live) {
    throw fiscalUnavailable(
      300,
      'No fiscal provider is configured for live invoices (FISCAL_PROVIDER); nothing was changed.',
    );
  }
  return live;
}

type StampRequest = Parameters<FiscalProvider['stamp']>[0];

/**
 * What stamping an invoice reads: its lines and its client. Read before its number is taken, so that
 * the counter's row lock, which every finalization of the organization waits for, is held only
 * for the stamp, the writes and COMMIT.
 */
async function stampInputs(
  tx: Queryable,
  invoice: InvoiceRow,
): Promise<Pick<StampRequest, 'items' | 'client'>> {
  return findStampInputs(tx, invoice);
}

/** Stamps: the folio fiscal and XML, or a refusal or outage thrown out of the transaction. */
async function stamp(provider: FiscalProvider, request: StampRequest) {
  const outcome = await provider.stamp(request);
  if (outcome.status === 'unavailable') throw fiscalUnavailable(outcome.retryAfterSeconds);
  if (outcome.status === 'rejected') throw new StampRefused(outcome.motivo);
  return outcome;
}

/**
 * The `TipoCambio` of an invoice's CFDI: pesos per unit of its currency, null in MXN. The rate it
 * declared when its accounting currency is MXN (the usual case), else the organization's rate.
 */
function cfdiExchangeRate(
  org: Org,
  invoice: Pick<InvoiceRow, 'moneda' | 'moneda_fiscal' | 'tipo_cambio'>,
): number | null {
  if (invoice.moneda === 'MXN') return null;
  if (invoice.moneda_fiscal === 'MXN' && invoice.tipo_cambio !== null) return invoice.tipo_cambio;
  return exchangeRate(org, invoice.moneda, 'MXN');
}

/**
 * The accounting currency of a new invoice: the peso for a CFDI (its `TipoCambio` is pesos per
 * unit), else the quote's `fiscal_currency` or the sale currency itself.
 */
const fiscalCurrency = (org: Org, sale: string, fiscal: string | null = null): string =>
  org.country === 'MX' ? 'MXN' : (fiscal ?? sale);

/**
 * The rate an invoice declares when issued: units of its accounting currency per unit of its
 * sale currency, null when they are one; 503 `fx_unavailable` without one.
 */
const issueRate = (org: Org, invoice: Pick<InvoiceRow, 'moneda' | 'moneda_fiscal'>): number | null =>
  invoice.moneda === invoice.moneda_fiscal ? null : exchangeRate(org, invoice.moneda, invoice.moneda_fiscal);

/** Issues a draft inside a transaction: its number, its stamp (MX), `open` (or `paid`). */
async function finalizeInTx(
  tx: Queryable,
  provider: FiscalProvider | null,
  org: Org,
  invoice: InvoiceRow,
  now: Date,
  /** The event of the finalized invoice, written by the same statement as its update. */
  finalized?: (invoice: InvoiceRow) => NewEvent,
  /** The `metodo` of the payment that settles it, when known as it is issued (its `FormaPago`). */
  settledWith?: string,
): Promise<{ invoice: InvoiceRow; items?: InvoiceItemRow[] }> {
  const scope = { orgId: org.id, mode: invoice.mode };
  // The rate it declares is fixed now, before its number: without one, nothing changes (503).
  const tipo_cambio = issueRate(org, invoice);
  const issued = { ...invoice, tipo_cambio };
  const inputs = invoice.tipo === 'cfdi' ? await stampInputs(tx, invoice) : null;
  const tipoCambio = inputs ? cfdiExchangeRate(org, issued) : null;
  // The number is taken in the same transaction as the stamp: a refusal rolls both back, so
  // numbers are never skipped, and the counter's row lock keeps them in commit order. Where the
  // stamp does not seal the number (none at all, or the sandbox's), the statement that writes the
  // invoice takes it, in place of `slot`: the lock then lasts that statement and COMMIT.
  const slot = !inputs || provider!.numberAfterStamp ? randomBase62(24) : null;
  const numero = slot ? `F-${slot}` : await takeNumber(tx, scope, 'F');
  const stamped = inputs
    ? await stamp(provider!, {
        ...inputs,
        kind: 'I',
        numero,
        invoice: { ...issued, numero },
        org,
        now,
        tipoCambio,
        settledWith,
      })
    : null;
  const change = {
    numero,
    tipo_cambio,
    // Nothing to collect (a total of 0): paid once issued, rather than open for ever.
    estado: toMinor(invoice.total, invoice.moneda) === 0 ? ('paid' as const) : ('open' as const),
    emitida: issueDay(org, now),
    estado_fiscal: stamped ? ('stamped' as const) : ('not_applicable' as const),
    motivo_fiscal: null,
    folio_fiscal: stamped?.uuid ?? null,
    cfdi_xml: stamped?.xml ?? null,
  };
  // Every finalization of the organization waits for the number's row lock until COMMIT: the
  // event goes with the update, one round trip fewer under it. Its data is the invoice as updated.
  const event = finalized?.({ ...invoice, ...change });
  const updated = slot
    ? await issueInvoice(tx, scope, invoice.id, change, slot, event)
    : await updateInvoice(tx, invoice.id, change, event);
  return { invoice: updated, items: inputs?.items };
}

/** POST /facturas/{id}: one action in one transaction with its event; 409 from a wrong state. */
export async function runInvoiceAction(
  deps: AppDeps,
  auth: KeyWithOrg,
  id: string,
  body: InvoiceActionRequest,
) {
  const scope = scopeOf(auth);
  const { org } = auth;
  const now = deps.now();
  const actor = apiActor(auth);
  const eventOf = (type: string, invoice: InvoiceRow): NewEvent => ({
    orgId: org.id,
    mode: scope.mode,
    type,
    object: 'invoice',
    objectId: invoice.id,
    data: invoiceEventData(invoice),
    actor,
  });
  const event = (tx: Queryable, type: string, invoice: InvoiceRow) => insertEvent(tx, eventOf(type, invoice));
  const peek = await findInvoice(deps.db, scope, id);
  if (!peek) throw notFound('Invoice');
  if (!FROM[body.action].includes(peek.estado)) throw wrongState(peek, body.action);
  checkAmount(peek, body);
  let queued: QueuedEmail | null = null;
  const stamps = (body.action === 'finalize' || body.action === 'credit_note') && peek.tipo === 'cfdi';
  // A missing exchange rate is refused before a forced test result is taken for the stamp.
  if (body.action === 'finalize') issueRate(org, peek);
  if (stamps && body.action === 'credit_note') cfdiExchangeRate(org, peek);
  const provider = stamps ? await providerFor(deps, auth) : null;
  // What the answer's detail need not read again: a finalized draft's lines when they were read
  // to stamp them, and its payments and credit notes, which a draft never has.
  let known: Partial<InvoiceParts> = {};
  try {
    const invoice = await deps.db.transaction(async (tx) => {
      const current = await findInvoice(tx, scope, id, true);
      if (!current) throw notFound('Invoice');
      if (!FROM[body.action].includes(current.estado)) throw wrongState(current, body.action);
      checkAmount(current, body);
      switch (body.action) {
        case 'finalize': {
          const done = await finalizeInTx(tx, provider, org, current, now, (row) =>
            eventOf('invoice.finalized', row),
          );
          known = { items: done.items, payments: [], notes: [] };
          if (done.invoice.estado === 'paid') await event(tx, 'invoice.paid', done.invoice);
          return done.invoice;
        }
        case 'send': {
          queued = await queueInvoiceEmail(tx, deps, { invoice: current, org, kind: 'invoice' });
          await event(tx, 'invoice.sent', current);
          return current;
        }
        case 'pay': {
          const payment = { monto: body.monto!, fecha: paymentDate(body.fecha, now, issueDay(org, now)) };
          await insertInvoicePayment(tx, current.id, {
            ...payment,
            metodo: body.metodo ?? 'transferencia',
            referencia: body.referencia ?? null,
          });
          if (current.cotizacion_id)
            await countInvoicePaymentOnQuote(tx, current.cotizacion_id, payment, actor);
          return settle(tx, current, { pagado: add(current.pagado, body.monto!, current.moneda) }, event);
        }
        case 'credit_note': {
          const inputs = current.tipo === 'cfdi' ? await stampInputs(tx, current) : null;
          const tipoCambio = inputs ? cfdiExchangeRate(org, current) : null;
          const numero = await takeNumber(tx, scope, 'NC');
          const stamped = inputs
            ? await stamp(provider!, {
                ...inputs,
                kind: 'E',
                numero,
                invoice: current,
                org,
                monto: body.monto!,
                now,
                tipoCambio,
              })
            : null;
          await insertCreditNote(tx, current.id, {
            numero,
            monto: body.monto!,
            motivo: body.motivo!,
            folio_fiscal: stamped?.uuid ?? null,
            cfdi_xml: stamped?.xml ?? null,
          });
          return settle(
            tx,
            current,
            { acreditado: add(current.acreditado, body.monto!, current.moneda) },
            event,
          );
        }
        case 'void': {
          if (current.pagado > 0 || current.acreditado > 0) {
            throw invalidState(
              'This invoice has payments or credit notes and cannot be voided: issue a credit note for the balance instead. Nothing was changed.',
            );
          }
          const voided = await updateInvoice(tx, current.id, {
            estado: 'void',
            ...(current.estado_fiscal === 'stamped' ? { estado_fiscal: 'cancelled' as const } : {}),
          });
          await event(tx, 'invoice.voided', voided);
          return voided;
        }
        case 'mark_uncollectible':
          return markUncollectibleInTx(tx, current, actor);
      }
    });
    if (queued && deps.mailer) await sendQueuedEmail(deps.db, deps.mailer, queued);
    return detailOf(deps, auth, invoice, known);
  } catch (error) {
    if (!(error instanceof StampRefused)) throw error;
    // The refusal is recorded; the invoice stays a draft (a credit note is simply not issued).
    // The answer is a 400, which an idempotent request's transaction rolls back to before the
    // action: the record must outlast it.
    if (body.action === 'finalize') {
      await deps.db.afterTransaction(() =>
        deps.db.transaction(async (tx) => {
          const current = await findInvoice(tx, scope, id, true);
          if (current?.estado === 'draft') {
            await updateInvoice(tx, id, { estado_fiscal: 'rejected', motivo_fiscal: error.motivo });
          }
        }),
      );
    }
    throw fiscalRejected(error.motivo);
  }
}

/** An open invoice becomes uncollectible, with its event (the action, and invoice workflows). */
export async function markUncollectibleInTx(tx: Queryable, invoice: InvoiceRow, actor: string) {
  const marked = await updateInvoice(tx, invoice.id, { estado: 'uncollectible' });
  await insertEvent(tx, {
    orgId: marked.org_id,
    mode: marked.mode,
    type: 'invoice.marked_uncollectible',
    object: 'invoice',
    objectId: marked.id,
    data: invoiceEventData(marked),
    actor,
  });
  return marked;
}

const add = (a: number, b: number, currency: string) =>
  fromMinor(toMinor(a, currency) + toMinor(b, currency), currency);

/** 400 unless a payment or credit note's amount is above 0 and at most the balance. */
function checkAmount(invoice: InvoiceRow, body: InvoiceActionRequest) {
  if (body.action !== 'pay' && body.action !== 'credit_note') return;
  if (body.monto === undefined) throw invalidRequest('monto: is required');
  if (body.action === 'credit_note' && !body.motivo)
    throw invalidRequest('motivo: required for a credit note');
  const monto = minorAmount(body.monto, invoice.moneda, 'monto');
  const saldo = toMinor(balanceOf(invoice), invoice.moneda);
  if (monto > saldo) {
    throw invalidRequest(`monto: must be at most the balance, ${balanceOf(invoice)} ${invoice.moneda}`);
  }
}

/** Records a payment or credit: `paid`, with `invoice.paid`, when nothing is left to collect. */
async function settle(
  tx: Queryable,
  invoice: InvoiceRow,
  change: { pagado?: number; acreditado?: number },
  event: (tx: Queryable, type: string, invoice: InvoiceRow) => Promise<string>,
): Promise<InvoiceRow> {
  const next = { ...invoice, ...change };
  const settled = toMinor(balanceOf(next), invoice.moneda) === 0;
  const updated = await updateInvoice(tx, invoice.id, {
    ...change,
    ...(settled ? { estado: 'paid' as const } : {}),
  });
  if (settled) await event(tx, 'invoice.paid', updated);
  return updated;
}

/**
 * The method of an invoice payment (`metodo`) a quote payment's free-text `payment_method` names
 * (Spanish or English), `otro` when it names none of them or is not known.
 */
export function invoicePaymentMethod(method: string | null): (typeof PAYMENT_METHODS)[number] {
  const word = (method ?? '')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .toLowerCase();
  if ((PAYMENT_METHODS as readonly string[]).includes(word)) return word as (typeof PAYMENT_METHODS)[number];
  if (/^(transfer|wire|spei|bank transfer|transferencia bancaria)$/.test(word)) return 'transferencia';
  if (/^(cash|contado en efectivo)$/.test(word)) return 'efectivo';
  if (/^(card|credit card|debit card|tarjeta de credito|tarjeta de debito)$/.test(word)) return 'tarjeta';
  if (/^(check|cheque nominativo)$/.test(word)) return 'cheque';
  return 'otro';
}

/**
 * What a quote's invoice records as paid: each payment registered on the quote, with its date and
 * method, then what a quote marked paid outside the service still lacks (method `otro`, on the
 * issue day). The last one is the payment that settles a paid quote.
 */
function carriedPayments(
  quote: { total: number; moneda: string; folio: string; pagado?: number },
  paid: boolean,
  payments: QuotePaymentRow[],
  day: string,
) {
  const carried = toMinor(paid ? quote.total : (quote.pagado ?? 0), quote.moneda);
  const records = payments.map((payment) => ({
    monto: payment.monto,
    fecha: payment.fecha,
    metodo: invoicePaymentMethod(payment.payment_method) as string,
    referencia: payment.referencia ? `${quote.folio} ${payment.referencia}` : quote.folio,
  }));
  const registered = records.reduce((sum, record) => sum + toMinor(record.monto, quote.moneda), 0);
  if (carried > registered) {
    records.push({
      monto: fromMinor(carried - registered, quote.moneda),
      fecha: day,
      metodo: 'otro',
      referencia: quote.folio,
    });
  }
  return { records, carried: fromMinor(carried, quote.moneda) };
}

/**
 * Quote action `invoice`: an invoice from the quote's client, lines and totals, finalized at once
 * in the same transaction as the quote's move to `invoiced`. A paid quote gives a paid invoice
 * (PUE, its `FormaPago` the method of the payment that settled the quote). An approved one is due
 * on its approval date plus the client's payment terms (those of the client, else the quote's:
 * the date collections aged it from; `contado` is the approval date itself, even when past). What
 * the client paid on the quote is carried over, payment by payment. A refused stamping rolls
 * everything back: 400 `fiscal_rejected`, the quote unchanged.
 */
export async function invoiceFromQuote(
  deps: AppDeps,
  auth: KeyWithOrg,
  tx: Queryable,
  quote: {
    id: string;
    status: string;
    cliente_id: string;
    cliente_nombre: string;
    moneda: string;
    fiscal_currency: string | null;
    iva_incluido: boolean;
    descuento_solicitado: Discount | null;
    subtotal: number;
    descuento: number;
    impuestos: number;
    total: number;
    language: string | null;
    draft_language: string;
    folio: string;
    pagado?: number;
    approved_at: string | null;
    terminos_codigo: string | null;
  },
  items: Parameters<typeof insertInvoice>[3],
  provider: FiscalProvider | null,
): Promise<InvoiceRow> {
  const { org } = auth;
  const scope = scopeOf(auth);
  const now = deps.now();
  const day = issueDay(org, now);
  const mexican = org.country === 'MX';
  const paid = quote.status === 'paid';
  // A quote's line may have more decimals than a CFDI's Cantidad takes: its invoice is refused
  // (400, nothing written), as a Mexican invoice's own line would be.
  for (const [i, item] of items.entries()) checkQuantity(org.country, item.cantidad, `items[${i}].cantidad`);
  const [[client], payments] = await Promise.all([
    quote.terminos_codigo === null
      ? tx.query<{ terminos: string | null }>('SELECT terminos FROM clients WHERE id = $1', [
          quote.cliente_id,
        ])
      : [],
    findQuotePayments(tx, quote.id),
  ]);
  // As collections ages an approved quote and its calendar dates it: the approval date (UTC) plus
  // the terms the quote gives the client (the client's own when the quote has none).
  const dias = termDays(quote.terminos_codigo ?? client?.terminos ?? null);
  const approved = quote.approved_at?.slice(0, 10) ?? day;
  const { records, carried } = carriedPayments(quote, paid, payments, day);
  const { invoice: draft } = await insertInvoice(
    tx,
    scope,
    {
      token: randomBase62(40),
      estado_fiscal: mexican ? 'pending' : 'not_applicable',
      pais: org.country,
      tipo: mexican ? 'cfdi' : 'commercial',
      moneda: quote.moneda,
      moneda_fiscal: fiscalCurrency(org, quote.moneda, quote.fiscal_currency),
      iva_incluido: quote.iva_incluido,
      descuento_solicitado: quote.descuento_solicitado,
      subtotal: quote.subtotal,
      descuento: quote.descuento,
      impuestos: quote.impuestos,
      total: quote.total,
      vence: paid ? day : daysFrom(approved, dias),
      dias_credito: paid ? 0 : dias,
      metodo_pago: mexican ? (paid ? 'PUE' : 'PPD') : null,
      cliente_id: quote.cliente_id,
      cliente_nombre: quote.cliente_nombre,
      cotizacion_id: quote.id,
      language: quote.language ?? quote.draft_language,
      notas: null,
      created_by: apiActor(auth),
    },
    items,
  );
  const settledWith = paid ? records.at(-1)?.metodo : undefined;
  let { invoice } = await finalizeInTx(tx, provider, org, draft, now, undefined, settledWith);
  if (records.length > 0) {
    // In one statement, in order: a millisecond apart, as the payments list them by created_at
    // (read to the millisecond).
    await tx.query(
      `INSERT INTO invoice_payments (invoice_id, monto, fecha, metodo, referencia, created_at)
       SELECT $1, p.monto, p.fecha::date, p.metodo, p.referencia, now() + (p.n * interval '1 millisecond')
       FROM jsonb_to_recordset($2::jsonb) AS p(n int, monto numeric, fecha text, metodo text, referencia text)`,
      [invoice.id, JSON.stringify(records.map((record, n) => ({ n, ...record })))],
    );
    const settled = toMinor(carried, quote.moneda) >= toMinor(invoice.total, quote.moneda);
    invoice = await updateInvoice(tx, invoice.id, {
      pagado: carried,
      ...(settled ? { estado: 'paid' as const } : {}),
    });
  }
  return invoice;
}

/**
 * The provider for a quote's invoice (see {@link providerFor}); none for a non-MX organization.
 * The exchange rate its invoice will declare is checked first (503 `fx_unavailable`), before a
 * forced test result is taken.
 */
export async function quoteInvoiceProvider(
  deps: AppDeps,
  auth: KeyWithOrg,
  quote: Pick<QuoteRow, 'moneda' | 'fiscal_currency'>,
): Promise<FiscalProvider | null> {
  const { org } = auth;
  issueRate(org, {
    moneda: quote.moneda,
    moneda_fiscal: fiscalCurrency(org, quote.moneda, quote.fiscal_currency),
  });
  return org.country === 'MX' ? providerFor(deps, auth) : null;
}

export { fiscalRejected, StampRefused };

/** POST /test_helpers/fiscal: forces the result of the organization's next stamping in test mode. */
export async function forceFiscalResult(
  deps: AppDeps,
  auth: KeyWithOrg,
  body: { result: 'stamped' | 'rejected' | 'unavailable'; motivo?: string | undefined },
) {
  await setFiscalOverride(deps.db, auth.org.id, body.result, body.motivo ?? null);
  return { object: 'fiscal_override', result: body.result, motivo: body.motivo ?? null };
}

/**
 * The overdue job: once per open invoice past its due date, `invoice.overdue` and a reminder
 * e-mail to the client in the outbox, each invoice in its own transaction (several processes may
 * run it at once: the row lock and `overdue_at` make each fire once).
 */
export async function fireOverdueInvoices(
  deps: Pick<AppDeps, 'db' | 'config' | 'mailer'>,
  now: Date,
  onlyId?: string,
): Promise<number> {
  const due = await deps.db.query<{ id: string; org_id: string; mode: 'test' | 'live' }>(
    `SELECT id, org_id, mode FROM invoices
     WHERE estado = 'open' AND vence < (CASE WHEN pais = 'MX' THEN $3 ELSE $1 END)::date
       AND overdue_at IS NULL AND ($2::uuid IS NULL OR id = $2)
     ORDER BY vence LIMIT 500`,
    [today(now), onlyId ?? null, issueDay({ country: 'MX' }, now)],
  );
  let fired = 0;
  for (const { id, org_id, mode } of due) {
    const done = await deps.db.transaction(async (tx) => {
      const invoice = await findInvoice(tx, { orgId: org_id, mode }, id, true);
      if (
        invoice?.estado !== 'open' ||
        invoice.overdue_at ||
        !invoice.vence ||
        invoice.vence >= issueDay({ country: invoice.pais }, now)
      ) {
        return false;
      }
      const marked = await updateInvoice(tx, id, { overdue_at: now.toISOString() });
      const org = (await findOrg(tx, { id: org_id }, mode))!;
      const queued = await queueInvoiceEmail(tx, deps, { invoice: marked, org, kind: 'reminder' });
      await insertEvent(tx, {
        orgId: org_id,
        mode,
        type: 'invoice.overdue',
        object: 'invoice',
        objectId: id,
        data: invoiceEventData(marked),
        actor: 'system',
      });
      return { queued };
    });
    if (done === false) continue;
    fired += 1;
    if (done.queued && deps.mailer) await sendQueuedEmail(deps.db, deps.mailer, done.queued);
  }
  return fired;
}

/** POST /test_helpers/facturas/{id}: `overdue` (due yesterday, then the job) or `payment_failed`. */
export async function runInvoiceTestHelper(
  deps: AppDeps,
  auth: KeyWithOrg,
  id: string,
  body: { action: 'overdue' | 'payment_failed'; motivo?: string | undefined },
) {
  const scope = scopeOf(auth);
  const now = deps.now();
  if (body.action === 'overdue') {
    await deps.db.transaction(async (tx) => {
      const invoice = await findInvoice(tx, scope, id, true);
      if (!invoice) throw notFound('Invoice');
      if (invoice.estado !== 'open') {
        throw invalidState(`Only an open invoice can become overdue; this one is ${invoice.estado}.`);
      }
      await updateInvoice(tx, id, { vence: daysFrom(issueDay({ country: invoice.pais }, now), -1) });
    });
    await fireOverdueInvoices(deps, now, id);
  } else {
    await deps.db.transaction(async (tx) => {
      const invoice = await findInvoice(tx, scope, id, true);
      if (!invoice) throw notFound('Invoice');
      if (invoice.estado !== 'open' && invoice.estado !== 'uncollectible') {
        throw invalidState(
          `A charge can only fail on an open or uncollectible invoice; this one is ${invoice.estado}.`,
        );
      }
      await insertEvent(tx, {
        orgId: scope.orgId,
        mode: scope.mode,
        type: 'invoice.payment_failed',
        object: 'invoice',
        objectId: id,
        data: invoiceEventData(invoice),
        actor: apiActor(auth),
      });
    });
  }
  return getInvoiceDetail(deps, auth, id);
}
