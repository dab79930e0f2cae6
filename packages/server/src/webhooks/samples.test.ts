import { describe, expect, it } from 'vitest';
import type { Org } from '../services/orgs.js';
import { INVOICE_EVENT_FIELDS, QUOTE_EVENT_FIELDS } from '../testing/event-fields.js';
import { sampleEventData, sampleLink } from './samples.js';

const org = { country: 'MX', currency: 'MXN' } as Org;
const keys = (type: string) => {
  const data = sampleEventData(type, org);
  const link = sampleLink(data, 'https://svc.example');
  return Object.keys(link ? { ...data, link_publico: link } : data).sort();
};

describe('sampleEventData', () => {
  it('gives each family the spec’s fields', () => {
    expect(keys('quote.created')).toEqual([...QUOTE_EVENT_FIELDS].sort());
    expect(keys('payment.partial')).toEqual(
      [...QUOTE_EVENT_FIELDS, 'tipo', 'monto', 'numero_cuota', 'saldo_pendiente', 'payment_method'].sort(),
    );
    expect(keys('invoice.overdue')).toEqual([...INVOICE_EVENT_FIELDS].sort());
    expect(keys('client.deleted')).toEqual(['empresa', 'id', 'object']);
    expect(keys('product.created')).toEqual([
      'activo',
      'id',
      'nombre',
      'object',
      'precio_lista',
      'sku',
      'unidad',
    ]);
    expect(keys('task.completed')).toEqual(['cotizacion_id', 'done', 'due_date', 'id', 'object', 'titulo']);
    expect(keys('promise.kept')).toEqual([
      'cotizacion_id',
      'estado',
      'fecha_promesa',
      'id',
      'monto',
      'object',
    ]);
    expect(keys('ping')).toEqual(['mensaje']);
  });

  it('carries what the catalog adds for some events, and the fields of payment movements', () => {
    const extra = (type: string) => keys(type).filter((key) => !QUOTE_EVENT_FIELDS.includes(key as never));
    expect(extra('quote.approval_requested')).toEqual(['motivo']);
    expect(extra('quote.approval_decided')).toEqual(['decision']);
    expect(extra('quote.comment_added')).toEqual(['autor', 'item_id', 'mensaje']);
    expect(extra('quote.approved')).toEqual(['parcial']);
    expect(extra('quote.rejected')).toEqual(['motivo_rechazo']);
    const movement = ['id', 'moneda', 'monto', 'referencia'];
    expect(keys('dispute.closed')).toEqual([...movement, 'estado', 'fecha_limite', 'motivo'].sort());
    expect(sampleEventData('dispute.closed', org).estado).toBe('won');
    expect(keys('refund.failed')).toEqual([...movement, 'motivo', 'motivo_falla'].sort());
    expect(keys('refund.succeeded')).toEqual([...movement, 'motivo'].sort());
    expect(keys('payout.failed')).toEqual([...movement, 'llegada', 'motivo_falla'].sort());
    expect(keys('account.updated')).toEqual([
      'motivo_bloqueo',
      'pendientes',
      'puede_cobrar',
      'puede_depositar',
    ]);
  });
});
