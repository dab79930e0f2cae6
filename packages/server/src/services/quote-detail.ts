import type { Queryable } from '../db/database.js';
import { findQuoteItems, type QuoteRow } from '../repositories/quotes.js';
import type { AppDeps } from '../types.js';
import type { Org } from './orgs.js';
import { paymentFields } from './payments.js';
import { conversationFields } from './quote-conversation.js';
import { quoteDetail } from './quote-view.js';

/**
 * The whole quote detail as `GET /cotizaciones/{id}` and every action answer it: the record and
 * its lines, what it adds about getting paid, and the client's side (conversation, acceptance).
 * Costs and internal notes only for secret keys.
 */
export async function fullQuoteDetail(deps: AppDeps, quote: QuoteRow, org: Org, secret: boolean) {
  const [items, payments, conversation, factura] = await Promise.all([
    findQuoteItems(deps.db, quote.id),
    paymentFields(deps.db, quote),
    conversationFields(deps.db, quote),
    quote.status === 'invoiced' ? invoiceOfQuote(deps.db, quote.id) : undefined,
  ]);
  return {
    ...quoteDetail(quote, items, org, deps.config.publicUrl, secret),
    ...payments,
    ...conversation,
    // An invoiced quote names its invoice, as the action that invoiced it answered.
    ...(factura ? { factura } : {}),
  };
}

/** The invoice made from a quote (action `invoice`), as the quote names it. */
async function invoiceOfQuote(db: Queryable, quoteId: string) {
  const [invoice] = await db.query<{
    id: string;
    numero: string;
    folio_fiscal: string | null;
    estado: string;
  }>(
    `SELECT id, numero, folio_fiscal, estado FROM invoices
     WHERE cotizacion_id = $1 ORDER BY created_at DESC LIMIT 1`,
    [quoteId],
  );
  return invoice;
}
