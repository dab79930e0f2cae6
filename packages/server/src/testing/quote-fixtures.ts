import { randomUUID } from 'node:crypto';
import type { NewQuote } from '../repositories/quotes.js';

/** A draft of `org_id` for `cliente_id` in test mode, as repository tests insert it: the rest given or a plain default. */
export function draftQuote(
  fields: Pick<NewQuote, 'org_id' | 'cliente_id' | 'cliente_nombre'> & Partial<NewQuote>,
): NewQuote {
  return {
    mode: 'test',
    status: 'draft',
    moneda: 'MXN',
    fiscal_currency: null,
    iva_incluido: false,
    terminos_codigo: null,
    vigencia_dias: 15,
    notas: null,
    descuento_solicitado: null,
    cupon: null,
    coupon_id: null,
    subtotal: 1,
    descuento: 0,
    impuestos: 0,
    total: 1,
    token: `${randomUUID().replaceAll('-', '')}abcdefgh`,
    draft_language: 'es',
    needs_approval: false,
    approval_status: null,
    motivo: null,
    created_by: 'system',
    ...fields,
  };
}
