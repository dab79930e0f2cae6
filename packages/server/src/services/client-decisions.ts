import { computeTotals } from '@svc/core';
import type { Queryable } from '../db/database.js';
import { invalidRequest, invalidState, notFound } from '../errors.js';
import { insertEvent } from '../repositories/events.js';
import { findQuotePromises } from '../repositories/payments.js';
import { findLastQuoteMessage, type Proposal } from '../repositories/quote-messages.js';
import {
  type Acceptance,
  applyLineDecisions,
  findQuoteByToken,
  findQuoteItems,
  type QuoteRow,
  type QuoteStatus,
  updateQuote,
} from '../repositories/quotes.js';
import type { AppDeps } from '../types.js';
import { findOrg } from './orgs.js';
import { quoteDiscount } from './pricing.js';
import { createPromise, type PromiseRequest } from './promises.js';
import { expireBeforeAction } from './quote-actions.js';
import { addQuoteMessage, cleanMessage } from './quote-conversation.js';
import { type QueuedEmail, queueSellerNotice, sendQueuedEmail } from './quote-email.js';
import { quoteEventData } from './quote-view.js';

/**
 * What the client does on the public quote page (design.md section 14), each in one transaction
 * with its events, as actor `client`: approve all lines or some with an electronic acceptance,
 * reject with a reason, write in the conversation (a counteroffer too), promise a payment.
 *
 * The token is the only credential: each function reads the quote by it and checks every line or
 * amount the form names against that quote alone, so one quote's token never reaches another.
 */

const ACTOR = 'client';
const OPEN: QuoteStatus[] = ['sent', 'viewed'];
/** Where a counteroffer still makes sense: the seller can answer it with `resend`. */
const NEGOTIABLE: QuoteStatus[] = ['sent', 'viewed', 'expired'];

/** Who accepted on the page: typed by the client; the time and address are the server's. */
export interface Signer {
  nombre: string;
  email: string;
  ip: string | null;
}

/** Runs `fn` on the token's quote, locked; a draft or unknown token is 404. */
async function onQuote<T>(deps: AppDeps, token: string, fn: (tx: Queryable, quote: QuoteRow) => Promise<T>) {
  await expireBeforeAction(deps.db, (tx) => findQuoteByToken(tx, token, true), deps.now());
  return deps.db.transaction(async (tx) => {
    const quote = await findQuoteByToken(tx, token, true);
    if (!quote || quote.status === 'draft') throw notFound('Quote');
    return fn(tx, quote);
  });
}

const notOpen = (quote: QuoteRow, what: string, allowed: QuoteStatus[]) =>
  invalidState(`Cannot ${what} a quote in status ${quote.status}; allowed from: ${allowed.join(', ')}.`);

/**
 * Approves the quote with the lines the client chose (`lineas`: ids of its lines, at least one; `all`
 * for the whole quote).
 * When some are left out, they stay as declined lines (`declinada`) and the totals are recomputed
 * over the approved ones by the one `computeTotals`, with the quote's discount; `quote.approved`
 * carries `parcial`. The acceptance (name, e-mail, time, address) is stored with the quote.
 */
export async function approveOnPage(
  deps: AppDeps,
  token: string,
  lineas: string[] | 'all',
  signer: Signer,
): Promise<QuoteRow> {
  return onQuote(deps, token, async (tx, quote) => {
    if (!OPEN.includes(quote.status)) throw notOpen(quote, 'approve', OPEN);
    const items = await findQuoteItems(tx, quote.id);
    const chosen = new Set(lineas === 'all' ? items.map((item) => item.id!) : lineas);
    if (chosen.size === 0) throw invalidRequest('lineas: choose at least one line', { field: 'lineas' });
    const ids = new Set(items.map((item) => item.id));
    if ([...chosen].some((id) => !ids.has(id))) {
      throw invalidRequest('lineas: not a line of this quote', { field: 'lineas' });
    }
    const parcial = chosen.size < items.length;
    let current = quote;
    if (parcial) {
      const kept = items.filter((item) => chosen.has(item.id!));
      const totals = computeTotals({
        currency: quote.moneda,
        iva_incluido: quote.iva_incluido,
        // Every stored line carries the rate it was priced with.
        default_tax_rate: 0,
        discount: await quoteDiscount(tx, quote),
        lines: kept.map((item) => ({
          cantidad: item.cantidad,
          precio_unitario: item.precio_unitario,
          precio_negociado: item.precio_negociado,
          tax_rate: item.tax_rate,
          product_tax_rate: null,
        })),
      });
      await applyLineDecisions(
        tx,
        quote.id,
        items.map((item) => {
          const index = kept.indexOf(item);
          const line = totals.lines[index];
          return line
            ? {
                id: item.id!,
                declinada: false,
                importe: line.base,
                descuento: line.discount,
                impuesto: line.tax,
              }
            : { id: item.id!, declinada: true, importe: item.importe, descuento: 0, impuesto: 0 };
        }),
      );
      current = await updateQuote(tx, quote.id, {
        subtotal: totals.subtotal,
        descuento: totals.descuento,
        impuestos: totals.impuestos,
        total: totals.total,
      });
    }
    const aceptacion: Acceptance = {
      nombre: signer.nombre,
      email: signer.email,
      fecha: deps.now().toISOString(),
      ip: signer.ip,
    };
    const approved = await updateQuote(tx, current.id, { status: 'approved', aceptacion });
    await insertEvent(tx, {
      orgId: quote.org_id,
      mode: quote.mode,
      type: 'quote.approved',
      object: 'quote',
      objectId: quote.id,
      data: { ...quoteEventData(approved), parcial },
      actor: ACTOR,
    });
    return approved;
  });
}

/** Rejects the quote, with the client's reason when one was given (`motivo_rechazo`). */
export async function rejectOnPage(deps: AppDeps, token: string, motivo: string | null): Promise<QuoteRow> {
  return onQuote(deps, token, async (tx, quote) => {
    if (!OPEN.includes(quote.status)) throw notOpen(quote, 'reject', OPEN);
    const rejected = await updateQuote(tx, quote.id, { status: 'rejected', motivo_rechazo: motivo });
    await insertEvent(tx, {
      orgId: quote.org_id,
      mode: quote.mode,
      type: 'quote.rejected',
      object: 'quote',
      objectId: quote.id,
      data: { ...quoteEventData(rejected), motivo_rechazo: motivo },
      actor: ACTOR,
    });
    return rejected;
  });
}

/**
 * Adds the client's message to the quote's conversation (`quote.comment_added`, `autor`
 * `cliente`), a counteroffer when it carries a proposal, and tells the seller by e-mail through the
 * outbox. A counteroffer changes nothing else: the seller answers it with `resend`.
 */
export async function commentOnPage(
  deps: AppDeps,
  token: string,
  message: { mensaje: string; item_id: string | null; propuesta: Proposal | null },
): Promise<void> {
  const queued = await onQuote<QueuedEmail | null>(deps, token, async (tx, quote) => {
    if (message.propuesta && !NEGOTIABLE.includes(quote.status)) {
      throw notOpen(quote, 'make a counteroffer on', NEGOTIABLE);
    }
    if (await repeatsLastMessage(tx, quote.id, message, deps.now())) return null;
    const stored = await addQuoteMessage(tx, quote, { autor: 'cliente', ...message }, ACTOR);
    const org = (await findOrg(tx, { id: quote.org_id }, quote.mode))!;
    return queueSellerNotice(tx, {
      quote,
      org,
      mensaje: stored.mensaje,
      propuesta: stored.propuesta,
      linea: stored.item_id ? await lineDescription(tx, quote.id, stored.item_id) : null,
      smtp: deps.mailer !== null,
    });
  });
  if (queued && deps.mailer) await sendQueuedEmail(deps.db, deps.mailer, queued);
}

/** The description of the quote's line a message is about, as the seller reads it. */
async function lineDescription(tx: Queryable, quoteId: string, itemId: string): Promise<string | null> {
  const [line] = await tx.query<{ descripcion: string }>(
    'SELECT descripcion FROM quote_items WHERE id::text = $1 AND quote_id = $2',
    [itemId, quoteId],
  );
  return line?.descripcion ?? null;
}

/**
 * Whether a message is the client's last one sent again: a plain form has no idempotency key, so a
 * double click or a form sent again after a slow answer would write it twice (and e-mail the seller
 * twice). The same words, about the same line, with the same proposal, within minutes of the last.
 */
async function repeatsLastMessage(
  tx: Queryable,
  quoteId: string,
  message: { mensaje: string; item_id: string | null; propuesta: Proposal | null },
  now: Date,
): Promise<boolean> {
  const last = await findLastQuoteMessage(tx, quoteId);
  if (last?.autor !== 'cliente' || now.getTime() - Date.parse(last.created_at) > REPEAT_WINDOW_MS)
    return false;
  const sameProposal = (a: Proposal | null, b: Proposal | null) =>
    JSON.stringify(Object.entries(a ?? {}).sort()) === JSON.stringify(Object.entries(b ?? {}).sort());
  return (
    last.mensaje === cleanMessage(message.mensaje) &&
    (last.item_id ?? null) === (message.item_id?.toLowerCase() ?? null) &&
    sameProposal(last.propuesta, message.propuesta)
  );
}
const REPEAT_WINDOW_MS = 10 * 60_000;

/**
 * Records the client's promise to pay (`promise.created`), under the rules of the API's `promise`.
 * The same promise still pending (date and amount) is that promise sent again, not another.
 */
export async function promiseOnPage(deps: AppDeps, token: string, request: PromiseRequest) {
  return onQuote(deps, token, async (tx, quote) => {
    const same = (await findQuotePromises(tx, quote.id)).find(
      (p) => p.estado === 'pending' && p.fecha_promesa === request.fecha_promesa && p.monto === request.monto,
    );
    return same ?? createPromise(tx, quote, request, { actor: ACTOR, now: deps.now() });
  });
}
