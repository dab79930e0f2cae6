import { termLabel } from '@svc/core';
import type { QuoteItemRow, QuoteRow } from '../repositories/quotes.js';
import { lineView } from './line-view.js';
import type { Org } from './orgs.js';

/** The absolute public link of a quote. */
export const publicLink = (publicUrl: string, token: string): string => `${publicUrl}/q/${token}`;

const termText = (code: string | null, org: Org): string | null =>
  code
    ? termLabel(
        code as Parameters<typeof termLabel>[0],
        (org.locale as Parameters<typeof termLabel>[1]) ?? 'es',
      )
    : null;

/** A quote as GET /cotizaciones lists it (every field of the spec's list item). */
export function quoteListItem(quote: QuoteRow, org: Org, publicUrl: string) {
  return {
    id: quote.id,
    folio: quote.folio,
    cliente: quote.cliente_nombre,
    status: quote.status,
    total: quote.total,
    moneda: quote.moneda,
    terminos: termText(quote.terminos_codigo, org),
    terminos_codigo: quote.terminos_codigo,
    vigencia: quote.vigencia,
    creada: quote.created_at,
    link_publico: publicLink(publicUrl, quote.token),
    language: quote.status === 'draft' ? null : quote.language,
  };
}

/**
 * A quote as GET /cotizaciones/{id} returns it: the list item and the amounts, lines and approval
 * state. Costs and internal notes only for secret keys.
 */
export function quoteDetail(
  quote: QuoteRow,
  items: QuoteItemRow[],
  org: Org,
  publicUrl: string,
  secret: boolean,
) {
  return {
    ...quoteListItem(quote, org, publicUrl),
    cliente_id: quote.cliente_id,
    subtotal: quote.subtotal,
    descuento: quote.descuento,
    impuestos: quote.impuestos,
    cupon: quote.cupon,
    iva_incluido: quote.iva_incluido,
    fiscal_currency: quote.fiscal_currency,
    vigencia_dias: quote.vigencia_dias,
    // Held now (spec: "held for internal approval before it is sent"): no longer once approved;
    // `approval_status` keeps that it was asked for.
    needs_approval: quote.needs_approval && quote.approval_status !== 'approved',
    approval_status: quote.approval_status,
    motivo: quote.motivo,
    // Who made it: the agent interface (MCP) or another API client (the widget included).
    origen: quote.created_by.startsWith('mcp:') ? 'agente' : 'api',
    enviada: quote.sent_at,
    ...(secret ? { notas: quote.notas } : {}),
    items: items.map((item) => ({
      id: item.id,
      declinada: item.declinada ?? false,
      ...lineView(item, secret),
    })),
  };
}

/** The quote's summary in `quote.*` events (the event history never stores `link_publico`). */
export function quoteEventData(quote: QuoteRow) {
  return { id: quote.id, folio: quote.folio, ...quoteEventSummary(quote) };
}

/**
 * {@link quoteEventData} without `id` and `folio`, for a quote not yet stored: the statement that
 * inserts it adds those two (see `insertQuote`).
 */
export function quoteEventSummary(
  quote: Pick<QuoteRow, 'status' | 'moneda' | 'total' | 'cliente_nombre' | 'cliente_id'>,
) {
  return {
    status: quote.status,
    moneda: quote.moneda,
    total: quote.total,
    cliente: quote.cliente_nombre,
    cliente_id: quote.cliente_id,
  };
}
