import { invalidState, notFound } from '../errors.js';
import { authorize } from '../middleware/authorize.js';
import { insertEvent } from '../repositories/events.js';
import { findQuote, findQuoteItems, updateQuote } from '../repositories/quotes.js';
import type { AppDeps } from '../types.js';
import { fiscalRejected, invoiceFromQuote, quoteInvoiceProvider, StampRefused } from './invoices.js';
import type { KeyWithOrg } from './key-store.js';
import { fullQuoteDetail } from './quote-detail.js';
import { quoteEventData } from './quote-view.js';
import { apiActor } from './quotes.js';

/**
 * Quote action `invoice` (from `approved` or `paid`): the invoice is created from the quote and
 * finalized (stamped in Mexico) in the same transaction that moves the quote to `invoiced`, with
 * `invoice.stamped` (MX) or `invoice.issued` (elsewhere) carrying the quote family's data. A
 * refused stamping rolls it all back: 400 `fiscal_rejected`, the quote unchanged, no invoice.
 */
export async function invoiceQuote(deps: AppDeps, auth: KeyWithOrg, id: string) {
  // It issues (and stamps) an invoice: a restricted key needs that permission too, not only the
  // quote's (design.md §11), as a workflow's steps do.
  authorize(auth, { resource: 'facturas', level: 'write' });
  const scope = { orgId: auth.org.id, mode: auth.key.mode };
  const peek = await findQuote(deps.db, scope, id);
  if (!peek) throw notFound('Quote');
  const allowed = ['approved', 'paid'];
  const wrong = (status: string) =>
    invalidState(
      `Cannot invoice a quote in status ${status}; allowed from: ${allowed.join(', ')}. Nothing was changed.`,
    );
  if (!allowed.includes(peek.status)) throw wrong(peek.status);
  const provider = await quoteInvoiceProvider(deps, auth, peek);
  try {
    const quote = await deps.db.transaction(async (tx) => {
      const current = await findQuote(tx, scope, id, true);
      if (!current) throw notFound('Quote');
      if (!allowed.includes(current.status)) throw wrong(current.status);
      // Lines the client declined in a partial approval are not invoiced.
      const items = (await findQuoteItems(tx, current.id)).filter((item) => !item.declinada);
      const invoice = await invoiceFromQuote(deps, auth, tx, current, items, provider);
      const quote = await updateQuote(tx, current.id, { status: 'invoiced' });
      await insertEvent(tx, {
        orgId: scope.orgId,
        mode: scope.mode,
        type: invoice.tipo === 'cfdi' ? 'invoice.stamped' : 'invoice.issued',
        object: 'quote',
        objectId: quote.id,
        data: quoteEventData(quote),
        actor: apiActor(auth),
      });
      return quote;
    });
    // The quote is invoiced now, so its detail names the invoice (`factura`).
    return await fullQuoteDetail(deps, quote, auth.org, auth.key.kind === 'secret');
  } catch (error) {
    if (error instanceof StampRefused) throw fiscalRejected(error.motivo);
    throw error;
  }
}
