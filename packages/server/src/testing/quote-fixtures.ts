import { randomUUID } from 'node:crypto';
import type { NewQuote } from '../repositories/quotes.js';
import type { TestContext } from './harness.js';

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

/**
 * Creates a quote of one laptop through the API with `key`, for `cliente` (new or found by the
 * API), and returns the id of the client it was written for: the client that repository tests
 * then insert quotes for directly.
 */
export async function clientOfNewQuote(
  t: TestContext,
  key: string,
  cliente: { empresa: string; email: string },
): Promise<string> {
  const created = await t.call('POST', '/api/v1/cotizaciones', {
    key,
    body: { items: [{ descripcion: 'Laptop', cantidad: 1, precio_unitario: 24500 }], cliente },
  });
  const { data } = (await created.json()) as { data: { id: string } };
  const [row] = await t.db.query<{ cliente_id: string }>('SELECT cliente_id FROM quotes WHERE id = $1', [
    data.id,
  ]);
  return row!.cliente_id;
}
