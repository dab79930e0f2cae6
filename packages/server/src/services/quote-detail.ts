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
  const [items, payments, conversation] = await Promise.all([
    findQuoteItems(deps.db, quote.id),
    paymentFields(deps.db, quote),
    conversationFields(deps.db, quote),
  ]);
  return { ...quoteDetail(quote, items, org, deps.config.publicUrl, secret), ...payments, ...conversation };
}
