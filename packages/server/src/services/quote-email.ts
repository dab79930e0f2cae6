import { formatMoney } from '@svc/core';
import type { Database, Queryable } from '../db/database.js';
import { documentLocale } from '../documents/document-locale.js';
import { type Lang, MESSAGES } from '../i18n/messages.js';
import type { Proposal } from '../repositories/quote-messages.js';
import type { QuoteRow } from '../repositories/quotes.js';
import type { Mailer } from './mailer.js';
import type { Org } from './orgs.js';

/** What happened to the e-mail of a sent quote (the `email` of the creation result). */
export interface EmailOutcome {
  sent: boolean;
  /** Why not: the outbox's reasons, the SMTP server's refusal, or a quote held for approval, not sent. */
  skipped?: SkipReason | 'smtp_error' | 'needs_approval';
  /** Sent once the request's transaction commits (under an `Idempotency-Key`): see `GET /emails`. */
  queued?: true;
}

/** An e-mail queued in the outbox, to be sent after the transaction commits. */
export interface QueuedEmail {
  outboxId: string;
  to: string;
  subject: string;
  text: string;
}

/** Why an e-mail stays in the outbox instead of going out. */
export type SkipReason = 'no_client_email' | 'no_seller_email' | 'test_mode' | 'no_smtp';

/**
 * Writes an e-mail into the outbox, inside the caller's transaction. It is to go out (through SMTP,
 * after the transaction commits) only in live mode, to an address, with an SMTP server; otherwise it
 * stays in the outbox for the seller to read, with the reason (`missing` when there is no address).
 * @returns the reason it stays, or the e-mail to send after commit
 */
export async function queueEmail(
  tx: Queryable,
  email: {
    orgId: string;
    mode: string;
    quoteId: string | null;
    to: string | null;
    subject: string;
    text: string;
    smtp: boolean;
    missing?: SkipReason;
  },
): Promise<{ skipped: SkipReason; queued: null } | { skipped: null; queued: QueuedEmail }> {
  const skipped: SkipReason | null = !email.to
    ? (email.missing ?? 'no_client_email')
    : email.mode === 'test'
      ? 'test_mode'
      : !email.smtp
        ? 'no_smtp'
        : null;
  const [row] = await tx.query<{ id: string }>(
    `INSERT INTO email_outbox (org_id, mode, quote_id, to_email, subject, body, status, skipped_reason)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [
      email.orgId,
      email.mode,
      email.quoteId,
      email.to,
      email.subject,
      email.text,
      skipped ? 'skipped' : 'pending',
      skipped,
    ],
  );
  if (skipped) return { skipped, queued: null };
  return {
    skipped: null,
    queued: { outboxId: row!.id, to: email.to!, subject: email.subject, text: email.text },
  };
}

/**
 * Writes the client's e-mail for a sent quote into the outbox, in the quote's language, inside
 * the sending transaction. It goes out through SMTP only for live quotes with an SMTP server and a
 * client address; otherwise it stays in the outbox for the seller to read, with the reason.
 */
export async function queueQuoteEmail(
  tx: Queryable,
  options: { quote: QuoteRow; org: Org; clientEmail: string | null; link: string; smtp: boolean },
): Promise<{ outcome: EmailOutcome; queued: QueuedEmail | null }> {
  const { quote, org, clientEmail, link } = options;
  const lang = (quote.language ?? quote.draft_language) as Lang;
  const m = MESSAGES[lang] ?? MESSAGES.es;
  const subject = m.emailSubject(quote.folio, org.nombre);
  const text = m.emailBody(
    quote.cliente_nombre,
    org.nombre,
    quote.folio,
    formatMoney(quote.total, quote.moneda, documentLocale(lang, org.country)),
    link,
  );
  const { skipped, queued } = await queueEmail(tx, {
    orgId: org.id,
    mode: quote.mode,
    quoteId: quote.id,
    to: clientEmail,
    subject,
    text,
    smtp: options.smtp,
  });
  return { outcome: skipped ? { sent: false, skipped } : { sent: false }, queued };
}

/**
 * Sends a queued e-mail once nothing holds the database for it: at once after the caller's own
 * transaction, or, inside a request's ambient transaction (an `Idempotency-Key`), once that one
 * commits. An SMTP exchange never runs inside a transaction: on PGlite's one connection every other
 * request would wait for it (30 s with an SMTP server that does not answer), and a rolled-back
 * request must not have sent anything. The stored response then says the e-mail is queued.
 */
export async function sendQueuedEmail(
  db: Database,
  mailer: Mailer,
  email: QueuedEmail,
): Promise<EmailOutcome> {
  if (!db.inTransaction()) return deliverQueuedEmail(db, mailer, email);
  await db.afterCommit(() => deliverQueuedEmail(db, mailer, email));
  return { sent: false, queued: true };
}

/**
 * How long a claim on an outbox e-mail holds: far longer than an SMTP exchange can take (the
 * mailer's timeouts), so a claimed e-mail is never sent twice, and short enough that one whose
 * process died mid-send goes out within minutes.
 */
const CLAIM_MINUTES = 5;
/** How old an unclaimed pending e-mail must be before housekeeping sends it: its own process had time to. */
const STRANDED_AFTER_SECONDS = 60;
/** An outbox row nobody is sending: pending, and unclaimed or claimed longer ago than a claim holds. */
const CLAIMABLE = `status = 'pending'
  AND (claimed_at IS NULL OR claimed_at < now() - make_interval(mins => ${CLAIM_MINUTES}))`;

/**
 * Sends a queued e-mail after commit and records the result in the outbox. It claims the row
 * first: an e-mail that housekeeping is sending already ({@link sendStrandedEmails}) is left to it.
 */
export async function deliverQueuedEmail(
  db: Database,
  mailer: Mailer,
  email: QueuedEmail,
): Promise<EmailOutcome> {
  const [claimed] = await db.query(
    `UPDATE email_outbox SET claimed_at = now()
     WHERE id = $1 AND ${CLAIMABLE}
     RETURNING id`,
    [email.outboxId],
  );
  if (!claimed) return { sent: false, queued: true };
  return sendClaimed(db, mailer, email);
}

/**
 * Sends the pending e-mails whose process wrote them and never sent them (it died between the
 * commit and the SMTP exchange, or during it): unclaimed for a minute, or claimed longer ago than
 * a claim holds. Each is claimed first, so processes running this at once send each once.
 * Returns how many went out.
 */
export async function sendStrandedEmails(db: Database, mailer: Mailer, limit = 50): Promise<number> {
  const stranded = await db.query<{ id: string; to_email: string; subject: string; body: string }>(
    `UPDATE email_outbox SET claimed_at = now()
     WHERE id IN (
       SELECT id FROM email_outbox
       WHERE ${CLAIMABLE} AND to_email IS NOT NULL
         AND created_at < now() - make_interval(secs => ${STRANDED_AFTER_SECONDS})
       ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING id, to_email, subject, body`,
    [limit],
  );
  let sent = 0;
  for (const row of stranded) {
    const outcome = await sendClaimed(db, mailer, {
      outboxId: row.id,
      to: row.to_email,
      subject: row.subject,
      text: row.body,
    });
    if (outcome.sent) sent++;
  }
  return sent;
}

/** The SMTP exchange of an e-mail this process claimed, and its result in the outbox. */
async function sendClaimed(db: Database, mailer: Mailer, email: QueuedEmail): Promise<EmailOutcome> {
  try {
    await mailer.send({ to: email.to, subject: email.subject, text: email.text });
    await db.query(`UPDATE email_outbox SET status = 'sent', sent_at = now() WHERE id = $1`, [
      email.outboxId,
    ]);
    return { sent: true };
  } catch (error) {
    await db.query(`UPDATE email_outbox SET status = 'failed', error = $2 WHERE id = $1`, [
      email.outboxId,
      String((error as Error).message).slice(0, 500),
    ]);
    return { sent: false, skipped: 'smtp_error' };
  }
}

/** The seller's notice of a client's message, in the organization's language. */
const SELLER_NOTICE: Record<
  Lang,
  { subject: (client: string, folio: string) => string; offer: string; kinds: Record<keyof Proposal, string> }
> = {
  es: {
    subject: (client, folio) => `Nuevo mensaje de ${client} sobre ${folio}`,
    offer: 'Contraoferta',
    kinds: { precio_unitario: 'precio unitario', cantidad: 'cantidad', total: 'total' },
  },
  en: {
    subject: (client, folio) => `New message from ${client} about ${folio}`,
    offer: 'Counteroffer',
    kinds: { precio_unitario: 'unit price', cantidad: 'quantity', total: 'total' },
  },
  pt: {
    subject: (client, folio) => `Nova mensagem de ${client} sobre ${folio}`,
    offer: 'Contraproposta',
    kinds: { precio_unitario: 'preço unitário', cantidad: 'quantidade', total: 'total' },
  },
  fr: {
    subject: (client, folio) => `Nouveau message de ${client} sur ${folio}`,
    offer: 'Contre-offre',
    kinds: { precio_unitario: 'prix unitaire', cantidad: 'quantité', total: 'total' },
  },
  de: {
    subject: (client, folio) => `Neue Nachricht von ${client} zu ${folio}`,
    offer: 'Gegenangebot',
    kinds: { precio_unitario: 'Stückpreis', cantidad: 'Menge', total: 'Gesamtbetrag' },
  },
};

/**
 * Writes the seller's e-mail about a client's new message into the outbox, in the message's
 * transaction (design.md section 14). It goes out after commit for live quotes with an SMTP server
 * and the organization's notice address (`email_avisos`); otherwise it stays in the outbox with the
 * reason. The message is plain text and stays so: the e-mail has no HTML part.
 */
export async function queueSellerNotice(
  tx: Queryable,
  options: {
    quote: QuoteRow;
    org: Org;
    mensaje: string;
    /** A counteroffer's proposal, and the line it is about. */
    propuesta: Proposal | null;
    linea: string | null;
    smtp: boolean;
  },
): Promise<QueuedEmail | null> {
  const { quote, org } = options;
  const notice = SELLER_NOTICE[org.locale as Lang] ?? SELLER_NOTICE.es;
  const subject = notice.subject(quote.cliente_nombre, quote.folio);
  // In the seller's words and formats ("precio unitario $20,000.00"), never the API's field names.
  const locale = documentLocale(org.locale, org.country);
  const offer = Object.entries(options.propuesta ?? {})
    .map(([kind, value]: [string, number]) => {
      const amount =
        kind === 'cantidad'
          ? new Intl.NumberFormat(locale).format(value)
          : formatMoney(value, quote.moneda, locale);
      return `${notice.kinds[kind as keyof Proposal]} ${amount}`;
    })
    .join(', ');
  const about = options.linea ? ` (${options.linea})` : '';
  const text = `${subject}\n\n${options.mensaje}\n${offer ? `\n${notice.offer}${about}: ${offer}\n` : ''}`;
  const { queued } = await queueEmail(tx, {
    orgId: org.id,
    mode: quote.mode,
    quoteId: quote.id,
    to: org.email_avisos,
    subject,
    text,
    smtp: options.smtp,
    missing: 'no_seller_email',
  });
  return queued;
}
