import { randomUUID } from 'node:crypto';
import type { Org } from '../services/orgs.js';

/** What every sample says of the quote it stands for: made up, in the organization's currency. */
const SAMPLE_QUOTE = { folio: 'COT-000000', cliente: 'Cliente de ejemplo', total: 1160 };

/**
 * The data of a sample event fired by `POST /test_helpers/webhooks`: the shape of its family
 * (the spec's "Shape of data"), with made-up values and ids that name no record, so a receiver
 * can test its parsing on the real shape. Its `link_publico`, which events never store, is added
 * at delivery by {@link sampleLink}, pointing at no quote or invoice. Disputes, refunds, payouts
 * and the account, which the service has no records of, get the fields the catalog gives them.
 */
export function sampleEventData(type: string, org: Org): Record<string, unknown> {
  const id = randomUUID();
  const family = type.split('.')[0];
  // The spec's quote family table holds the ping's `mensaje`: a ping is shaped as that family.
  const ping = type === 'ping';
  if (
    ping ||
    family === 'quote' ||
    family === 'payment' ||
    type === 'invoice.stamped' ||
    type === 'invoice.issued'
  ) {
    const quote = {
      id,
      folio: SAMPLE_QUOTE.folio,
      status: QUOTE_STATUS[type] ?? 'sent',
      moneda: org.currency,
      total: SAMPLE_QUOTE.total,
      cliente: SAMPLE_QUOTE.cliente,
      cliente_id: randomUUID(),
    };
    if (ping) return { ...quote, mensaje: 'Ping de prueba del servicio de cotizaciones' };
    return { ...quote, ...(QUOTE_EXTRAS[type] ?? {}) };
  }
  if (family === 'invoice') {
    const mexican = org.country === 'MX';
    const estado = INVOICE_ESTADO[type] ?? 'open';
    return {
      id,
      object: 'invoice',
      numero: 'F-000000',
      folio_fiscal: mexican ? randomUUID().toUpperCase() : null,
      estado,
      // A stamped CFDI is cancelled with its voiding.
      estado_fiscal: mexican ? (estado === 'void' ? 'cancelled' : 'stamped') : 'not_applicable',
      pais: org.country,
      tipo: mexican ? 'cfdi' : 'commercial',
      moneda: org.currency,
      total: SAMPLE_QUOTE.total,
      pagado: estado === 'paid' ? SAMPLE_QUOTE.total : 0,
      saldo: estado === 'paid' ? 0 : SAMPLE_QUOTE.total,
      // An overdue invoice's due date has passed.
      vence: inDays(type === 'invoice.overdue' ? -5 : 30),
      cliente: SAMPLE_QUOTE.cliente,
      cotizacion_id: null,
    };
  }
  if (family === 'client') {
    return type === 'client.deleted'
      ? { id, object: 'client', empresa: SAMPLE_QUOTE.cliente }
      : {
          id,
          object: 'client',
          empresa: SAMPLE_QUOTE.cliente,
          contacto: 'Ana Pérez',
          email: 'ana@cliente.example',
          telefono: '+52 55 1234 5678',
          rfc: null,
          terminos: 'net30',
          country_code: org.country,
        };
  }
  if (family === 'product') {
    return type === 'product.deleted'
      ? { id, object: 'product', nombre: 'Producto de ejemplo' }
      : {
          id,
          object: 'product',
          sku: 'EJEMPLO-1',
          nombre: 'Producto de ejemplo',
          unidad: 'pieza',
          precio_lista: 1000,
          activo: true,
        };
  }
  if (family === 'task') {
    return {
      id,
      object: 'task',
      titulo: `Seguimiento ${SAMPLE_QUOTE.folio}`,
      due_date: null,
      done: type === 'task.completed',
      cotizacion_id: null,
    };
  }
  if (family === 'promise') {
    const estado = type === 'promise.kept' ? 'kept' : type === 'promise.broken' ? 'broken' : 'pending';
    return {
      id,
      object: 'promise',
      cotizacion_id: randomUUID(),
      fecha_promesa: new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10),
      monto: 580,
      estado,
    };
  }
  const movement = movements()[type];
  if (movement) {
    const outcome = type.endsWith('.failed') ? { motivo_falla: 'Fondos insuficientes (ejemplo)' } : {};
    return { id, referencia: `ejemplo_${id.slice(0, 8)}`, moneda: org.currency, ...movement, ...outcome };
  }
  if (type === 'account.updated') {
    return {
      puede_cobrar: true,
      puede_depositar: false,
      pendientes: ['cuenta_bancaria'],
      motivo_bloqueo: null,
    };
  }
  return { sample: true, type };
}

/**
 * The quote's `status` each event of the quote family leaves it in (the spec's quote statuses):
 * a deleted quote was a draft never sent, one held for internal approval (and its decision) is
 * still a draft, a client writes in the conversation of a quote it has opened, payments come on
 * an approved quote, and invoicing one makes it `invoiced`.
 */
const QUOTE_STATUS: Record<string, string> = {
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
};

/** The invoice's `estado` after each standalone invoice event; the others leave it `open`. */
const INVOICE_ESTADO: Record<string, string> = {
  'invoice.paid': 'paid',
  'invoice.voided': 'void',
  'invoice.marked_uncollectible': 'uncollectible',
};

/** What the catalog adds to the quote family's data for some events. */
const QUOTE_EXTRAS: Record<string, Record<string, unknown>> = {
  'quote.approved': { parcial: false },
  'quote.rejected': { motivo_rechazo: null },
  'quote.approval_requested': { motivo: 'Descuento mayor al umbral de aprobación (ejemplo)' },
  'quote.approval_decided': { decision: 'approved' },
  'quote.comment_added': { autor: 'cliente', mensaje: '¿Pueden entregar el lunes? (ejemplo)', item_id: null },
  'payment.partial': {
    tipo: 'anticipo',
    monto: 580,
    numero_cuota: null,
    saldo_pendiente: 580,
    payment_method: 'transferencia',
  },
};

/**
 * The catalog's fields of disputes, refunds and payouts (besides id, referencia and moneda), with
 * dates counted from now: a sample fired after weeks of uptime still has a deadline ahead.
 */
const movements = (): Record<string, Record<string, unknown>> => ({
  'dispute.created': { monto: 580, motivo: 'fraudulent', fecha_limite: inDays(14), estado: 'needs_response' },
  'dispute.closed': { monto: 580, motivo: 'fraudulent', fecha_limite: inDays(14), estado: 'won' },
  'refund.succeeded': { monto: 580, motivo: 'requested_by_customer' },
  'refund.failed': { monto: 580, motivo: 'requested_by_customer' },
  'payout.paid': { monto: 580, llegada: inDays(2) },
  'payout.failed': { monto: 580, llegada: inDays(2) },
});

function inDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/** The `link_publico` of a sample's delivery: a quote's or an invoice's shape, naming none. */
export function sampleLink(data: Record<string, unknown>, publicUrl: string): string | undefined {
  if (data.object === 'invoice') return `${publicUrl}/i/ejemplo`;
  return 'folio' in data ? `${publicUrl}/q/ejemplo` : undefined;
}
