import { formatMoney } from '@svc/core';
import type { Queryable } from '../db/database.js';
import { documentLocale, formatDay } from '../documents/document-locale.js';
import { INVOICE_MESSAGES } from '../i18n/invoice-page.js';
import type { Lang } from '../i18n/messages.js';
import { findClientById } from '../repositories/clients.js';
import type { InvoiceRow } from '../repositories/invoices.js';
import type { AppDeps } from '../types.js';
import { balanceOf, invoiceLink } from './invoice-view.js';
import type { Org } from './orgs.js';
import { type QueuedEmail, queueEmail } from './quote-email.js';

/**
 * Writes an invoice e-mail to the client into the outbox, inside the caller's transaction, in the
 * invoice's language: the invoice itself (`send`) or an overdue reminder. Like quotes' e-mails, it
 * goes out through SMTP only for live invoices with an SMTP server and a client address, after the
 * transaction commits; otherwise it stays in the outbox with the reason.
 */
export async function queueInvoiceEmail(
  tx: Queryable,
  deps: Pick<AppDeps, 'config'> & { mailer?: AppDeps['mailer'] },
  options: { invoice: InvoiceRow; org: Org; kind: 'invoice' | 'reminder' },
): Promise<QueuedEmail | null> {
  const { invoice, org } = options;
  const m = INVOICE_MESSAGES[invoice.language as Lang] ?? INVOICE_MESSAGES.es;
  const client = await findClientById(tx, { orgId: org.id, mode: invoice.mode }, invoice.cliente_id);
  const link = invoiceLink(deps.config.publicUrl, invoice) ?? '';
  // As the invoice's page and PDF write them: its language in the merchant's country.
  const locale = documentLocale(invoice.language, org.country);
  const money = (value: number) => formatMoney(value, invoice.moneda, locale);
  const due = invoice.vence ? formatDay(invoice.vence, locale) : '';
  const numero = invoice.numero ?? '';
  const subject =
    options.kind === 'invoice' ? m.emailSubject(numero, org.nombre) : m.reminderSubject(numero, org.nombre);
  const text =
    options.kind === 'invoice'
      ? m.emailBody(invoice.cliente_nombre, org.nombre, numero, money(invoice.total), due, link)
      : m.reminderBody(invoice.cliente_nombre, numero, money(balanceOf(invoice)), due, link);
  const { queued } = await queueEmail(tx, {
    orgId: org.id,
    mode: invoice.mode,
    quoteId: null,
    to: client?.email ?? null,
    subject,
    text,
    smtp: !!deps.mailer,
  });
  return queued;
}
