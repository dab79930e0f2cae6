/** Every event name of the spec's catalog (GET /events `type`, webhook `eventos`). */
export const EVENT_TYPES = [
  'quote.created',
  'quote.sent',
  'quote.viewed',
  'quote.approved',
  'quote.rejected',
  'quote.updated',
  'quote.expired',
  'quote.deleted',
  'quote.paid',
  'quote.approval_requested',
  'quote.approval_decided',
  'quote.comment_added',
  'payment.partial',
  'payment.failed',
  'invoice.stamped',
  'invoice.issued',
  'invoice.finalized',
  'invoice.sent',
  'invoice.paid',
  'invoice.payment_failed',
  'invoice.voided',
  'invoice.marked_uncollectible',
  'invoice.overdue',
  'client.created',
  'client.updated',
  'client.deleted',
  'product.created',
  'product.updated',
  'product.deleted',
  'task.created',
  'task.completed',
  'promise.created',
  'promise.kept',
  'promise.broken',
  'dispute.created',
  'dispute.closed',
  'refund.succeeded',
  'refund.failed',
  'payout.paid',
  'payout.failed',
  'account.updated',
  'ping',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The resource a restricted key must be allowed to read to receive an event: its data is that
 * record's (and a quote's or invoice's carries the page link, a credential). `ping` carries none.
 */
export function eventResource(type: string): string | null {
  if (type === 'ping') return null;
  if (type === 'invoice.stamped' || type === 'invoice.issued') return 'cotizaciones';
  const family = type.split('.')[0]!;
  return (
    {
      quote: 'cotizaciones',
      payment: 'cotizaciones',
      promise: 'cotizaciones',
      invoice: 'facturas',
      client: 'clientes',
      product: 'productos',
      task: 'tareas',
    }[family] ?? 'cobranza'
  );
}

/** Whether a key may receive events of `type` (only restricted keys are limited). */
export function mayReceive(
  key: { kind: string; permissions?: Record<string, string> | null },
  type: string,
): boolean {
  const resource = eventResource(type);
  return key.kind !== 'restricted' || resource === null || !!key.permissions?.[resource];
}
