import type { Database } from '../db/database.js';
import { maintainPglite } from '../db/pglite-maintenance.js';
import type { Logger } from '../logger.js';
import { LONGEST_RATE_WINDOW_MS } from '../middleware/rate-limit.js';
import type { AppDeps } from '../types.js';
import { fireOverdueInvoices } from './invoices.js';
import { breakDuePromises } from './promises.js';
import { expireDueQuotes } from './quote-actions.js';
import { sendStrandedEmails } from './quote-email.js';

/**
 * One round of housekeeping: expires quotes past their validity, breaks promises to pay past their
 * date, sends the e-mails a process that died left in the outbox, and drops rate-limit windows that
 * have ended, idempotency keys past their 24 hours, and old delivery records. Safe to run on
 * several processes at once.
 */
export async function runHousekeeping(
  db: Database,
  logger: Logger,
  now: () => Date,
  app?: Pick<AppDeps, 'config' | 'mailer'>,
): Promise<void> {
  const expired = await expireDueQuotes(db, now());
  if (expired > 0) logger.info('quotes expired', { count: expired });
  if (app) {
    const overdue = await fireOverdueInvoices({ db, ...app }, now());
    if (overdue > 0) logger.info('invoices overdue', { count: overdue });
  }
  const broken = await breakDuePromises(db, now());
  if (broken > 0) logger.info('promises broken', { count: broken });
  if (app?.mailer) {
    const resent = await sendStrandedEmails(db, app.mailer);
    if (resent > 0) logger.info('stranded e-mails sent', { count: resent });
  }
  // Only windows that have ended: the longest (failed coupon codes) lasts ten minutes.
  await db.query('DELETE FROM rate_counters WHERE window_start < $1', [
    now().getTime() - LONGEST_RATE_WINDOW_MS,
  ]);
  await db.query(`DELETE FROM idempotency_keys WHERE created_at < now() - interval '25 hours'`);
  // Delivery log: 30 days; events that failed for good: 90 days, so manual retry keeps working.
  await db.query(`DELETE FROM webhook_attempts WHERE created_at < now() - interval '30 days'`);
  await db.query(
    `DELETE FROM webhook_jobs WHERE (state = 'succeeded' AND finished_at < now() - interval '30 days')
       OR (state IN ('failed', 'cancelled') AND finished_at < now() - interval '90 days')`,
  );
  await db.query(`DELETE FROM removed_quote_links WHERE removed_at < now() - interval '90 days'`);
}

/**
 * Runs {@link runHousekeeping} now and then every `everyMs`, one round at a time, and on PGlite
 * {@link maintainPglite} every `maintenanceMs`: more often, because a burst of writes leaves the
 * planner's statistics behind within seconds. Returns the stop.
 */
export function startScheduler(
  db: Database,
  logger: Logger,
  now: () => Date,
  everyMs = 60_000,
  maintenanceMs = 10_000,
  app?: Pick<AppDeps, 'config' | 'mailer'>,
): () => void {
  const timers = [every(everyMs, () => runHousekeeping(db, logger, now, app), logger)];
  if (db.kind === 'pglite') timers.push(every(maintenanceMs, () => maintainPglite(db), logger));
  return () => {
    for (const timer of timers) clearInterval(timer);
  };
}

/** Runs `job` now and then every `ms`, skipping a turn while the previous run is still going. */
function every(ms: number, job: () => Promise<unknown>, logger: Logger): NodeJS.Timeout {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      await job();
    } catch (error) {
      logger.warn('scheduled job failed', { error: String(error) });
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), ms);
  timer.unref();
  void tick();
  return timer;
}
