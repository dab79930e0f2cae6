import type { Queryable } from '../db/database.js';
import { insertEvent } from '../repositories/events.js';
import { type QuoteRow, updateQuote } from '../repositories/quotes.js';
import type { AppDeps } from '../types.js';
import type { Org } from './orgs.js';
import { type EmailOutcome, type QueuedEmail, queueQuoteEmail } from './quote-email.js';
import { publicLink, quoteEventData } from './quote-view.js';

const DAY_MS = 86_400_000;
const FIRST_DATE_MS = Date.parse('0001-01-01T00:00:00Z');
const LAST_DATE_MS = Date.parse('9999-12-31T00:00:00Z');

/**
 * The date `days` after `now`, as YYYY-MM-DD (UTC), kept within years 1–9999: a quote may be
 * valid for any whole number of days the interface allows, and past either end the date would
 * have no four-digit year (or no date at all).
 */
export function addDays(now: Date, days: number): string {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const ms = Math.min(LAST_DATE_MS, Math.max(FIRST_DATE_MS, today + days * DAY_MS));
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Marks a quote sent inside the caller's transaction: validity counted from today, language fixed
 * from the draft's, event written, e-mail queued in the outbox.
 */
export async function sendQuoteInTx(
  tx: Queryable,
  deps: Pick<AppDeps, 'config' | 'mailer'>,
  options: {
    quote: QuoteRow;
    org: Org;
    actor: string;
    clientEmail: string | null;
    now: Date;
    type?: 'quote.sent' | 'quote.updated';
  },
): Promise<{ quote: QuoteRow; email: { outcome: EmailOutcome; queued: QueuedEmail | null } }> {
  const { org, now } = options;
  const quote = await updateQuote(tx, options.quote.id, {
    status: 'sent',
    vigencia: addDays(now, options.quote.vigencia_dias),
    language: options.quote.language ?? options.quote.draft_language,
    sent_at: 'now',
  });
  await insertEvent(tx, {
    orgId: org.id,
    mode: quote.mode,
    type: options.type ?? 'quote.sent',
    object: 'quote',
    objectId: quote.id,
    data: quoteEventData(quote),
    actor: options.actor,
  });
  const email = await queueQuoteEmail(tx, {
    quote,
    org,
    clientEmail: options.clientEmail,
    link: publicLink(deps.config.publicUrl, quote.token),
    smtp: deps.mailer !== null,
  });
  return { quote, email };
}
