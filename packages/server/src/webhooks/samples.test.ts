import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../services/event-catalog.js';
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
    // The quote family's table holds `mensaje`, "only in the ping event".
    expect(keys('ping')).toEqual([...QUOTE_EVENT_FIELDS, 'mensaje'].sort());
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

  it('gives each event of the catalog the status or estado it implies', () => {
    // The quote's status after each event of the quote family (the spec's quote statuses).
    const status: Record<string, string> = {
      'quote.created': 'draft',
      'quote.sent': 'sent',
      'quote.viewed': 'viewed',
      'quote.approved': 'approved',
      'quote.rejected': 'rejected',
      'quote.updated': 'sent',
      'quote.expired': 'expired',
      'quote.deleted': 'draft',
      'quote.paid': 'paid',
      'quote.approval_requested': 'draft',
      'quote.approval_decided': 'draft',
      'quote.comment_added': 'viewed',
      'payment.partial': 'approved',
      'payment.failed': 'approved',
      'invoice.stamped': 'invoiced',
      'invoice.issued': 'invoiced',
      // A ping stands for no change: its made-up quote is simply sent.
      ping: 'sent',
    };
    // The invoice's estado (and, in Mexico, estado_fiscal) after each standalone invoice event.
    const estado: Record<string, [string, string]> = {
      'invoice.finalized': ['open', 'stamped'],
      'invoice.sent': ['open', 'stamped'],
      'invoice.paid': ['paid', 'stamped'],
      'invoice.payment_failed': ['open', 'stamped'],
      'invoice.voided': ['void', 'cancelled'],
      'invoice.marked_uncollectible': ['uncollectible', 'stamped'],
      'invoice.overdue': ['open', 'stamped'],
    };
    const today = new Date().toISOString().slice(0, 10);
    for (const type of EVENT_TYPES) {
      const data = sampleEventData(type, org);
      if ('folio' in data) {
        expect({ type, status: data.status }).toEqual({ type, status: status[type] });
      } else if (data.object === 'invoice') {
        expect({ type, estado: [data.estado, data.estado_fiscal] }).toEqual({ type, estado: estado[type] });
        // Paid in full exactly when paid; overdue exactly when its due date has passed.
        expect({ type, saldo: data.saldo }).toEqual({ type, saldo: data.estado === 'paid' ? 0 : data.total });
        expect({ type, overdue: String(data.vence) < today }).toEqual({
          type,
          overdue: type === 'invoice.overdue',
        });
      }
    }
    // Every quote and invoice event of the catalog was checked.
    const checked = EVENT_TYPES.filter((type) => {
      const data = sampleEventData(type, org);
      return 'folio' in data || data.object === 'invoice';
    });
    expect(checked.sort()).toEqual([...Object.keys(status), ...Object.keys(estado)].sort());
    // Outside Mexico there is no fiscal state to cancel.
    expect(sampleEventData('invoice.voided', { country: 'US', currency: 'USD' } as Org)).toMatchObject({
      estado: 'void',
      estado_fiscal: 'not_applicable',
    });
  });
});
