import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.js';
import type { Logger } from '../logger.js';
import { EVENTS_CHANNEL } from '../repositories/events.js';
import type { Mailer } from '../services/mailer.js';
import { deliverQueuedEmail, type QueuedEmail, queueEmail } from '../services/quote-email.js';
import { publicLink } from '../services/quote-view.js';
import type { EndpointRow } from './repository.js';
import { sampleLink } from './samples.js';
import { MAX_ATTEMPTS, nextAttemptAt } from './schedule.js';
import { sendDelivery } from './sender.js';
import { signatureHeaders } from './signing.js';
import { type Resolver, systemResolver } from './url-guard.js';

/** What the worker needs. */
export interface WorkerDeps {
  db: Database;
  logger: Logger;
  now: () => Date;
  publicUrl: string;
  allowLoopback: boolean;
  /** Sends the endpoint-health e-mails of live endpoints; without it they stay in the outbox. */
  mailer?: Mailer | null;
  resolve?: Resolver;
  timeoutMs?: number;
  /** Deliveries this worker has in flight at most. @defaultValue 20 */
  concurrency?: number;
  /**
   * Deliveries to one endpoint this worker has in flight at most, so that an endpoint that hangs
   * until the timeout, with a backlog due, holds a few slots and never all of them.
   * @defaultValue 4
   */
  perEndpoint?: number;
  /** How long a claim holds before another worker may retry it. @defaultValue 60 */
  leaseSeconds?: number;
}

interface ClaimedJob {
  id: string;
  endpoint_id: string;
  event_id: string;
  /** Attempts counted so far, the one this claim makes included. */
  attempts: number;
  /** Attempts made before this round of retries (see migration 027). */
  attempt_base: number;
  manual: boolean;
}

/** The event body of a delivery, identical on every attempt and manual retry. */
export async function deliveryBody(
  db: Database,
  eventId: string,
  publicUrl: string,
): Promise<string | undefined> {
  const [event] = await db.query<{
    id: string;
    type: string;
    object: string;
    object_id: string;
    data: Record<string, unknown>;
    created_at: string;
  }>(
    `SELECT id, type, object, object_id, data,
            to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
     FROM events WHERE id = $1`,
    [eventId],
  );
  if (!event) return undefined;
  const data = { ...event.data };
  if (event.object === 'quote') {
    // The history never stores the credential; the subscriber gets the link it needs, the same
    // on every attempt, also once a draft was deleted.
    const [quote] = await db.query<{ token: string }>(
      `SELECT token FROM quotes WHERE id = $1
       UNION ALL SELECT token FROM removed_quote_links WHERE quote_id = $1 LIMIT 1`,
      [event.object_id],
    );
    if (quote) data.link_publico = publicLink(publicUrl, quote.token);
  } else if (event.object === 'invoice') {
    const [invoice] = await db.query<{ token: string }>('SELECT token FROM invoices WHERE id = $1', [
      event.object_id,
    ]);
    if (invoice) data.link_publico = `${publicUrl}/i/${invoice.token}`;
  } else if (event.object === 'webhook_endpoint') {
    // A test helper's sample of a quote or invoice event: a link of the same shape.
    const link = sampleLink(data, publicUrl);
    if (link) data.link_publico = link;
  }
  return JSON.stringify({
    id: `evt_${event.id.replaceAll('-', '')}`,
    event: event.type,
    created_at: event.created_at,
    data,
  });
}

/**
 * Delivers webhook jobs. Several workers on several processes share the queue: each claim takes
 * due jobs with `FOR UPDATE SKIP LOCKED` and a lease, so an attempt is never made twice at once,
 * and a job whose worker died (its lease expired) is claimed again and retried. The attempt is
 * counted when it is claimed: a worker that dies mid-delivery may have reached the endpoint, so
 * the retry after its lease is the next attempt, and no (event, attempt) pair is ever sent twice.
 *
 * Each claimed delivery runs on its own: the worker keeps up to `concurrency` in flight and claims
 * again whenever one ends or it is woken (a new event, the timer), so an endpoint that answers
 * slowly or not at all holds only its own deliveries (at most `perEndpoint` of them), never the
 * other endpoints' until its timeout.
 */
export class DeliveryWorker {
  readonly #deps: WorkerDeps;
  #timer: ReturnType<typeof setInterval> | undefined;
  #stopping = false;
  #unlisten: (() => Promise<void>) | undefined;
  /** Deliveries in flight, by endpoint id. */
  readonly #busy = new Map<string, number>();
  /** The jobs in flight: never claimed again here, even once their lease has run out. */
  readonly #jobs = new Set<string>();
  #inFlight = 0;
  /** The claim running now: one at a time, each for as many jobs as there are free slots. */
  #claiming: Promise<void> | undefined;
  /** Asked to claim while a claim ran: it claims once more when done. */
  #again = false;
  /** Attempts made since the worker was last idle, told to whoever waits for it to be idle. */
  #made = 0;
  #idle: { promise: Promise<number>; resolve: (made: number) => void } | undefined;

  constructor(deps: WorkerDeps) {
    this.#deps = deps;
  }

  async start(intervalMs = 1000): Promise<void> {
    this.#unlisten = await this.#deps.db.listen(EVENTS_CHANNEL, () => void this.tick());
    this.#timer = setInterval(() => void this.tick(), intervalMs);
    this.#timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    // The deliveries in flight finish and no more are claimed: what is left waits in the queue
    // for the next process (a backlog would otherwise hold the shutdown).
    this.#stopping = true;
    clearInterval(this.#timer);
    await this.#unlisten?.();
    await this.#idle?.promise;
  }

  /**
   * Claims what is due into the free slots, at once. The promise settles once the worker is idle
   * (nothing in flight and nothing left due), with the number of attempts made meanwhile.
   */
  tick(): Promise<number> {
    if (!this.#idle) {
      let resolve!: (made: number) => void;
      const promise = new Promise<number>((r) => {
        resolve = r;
      });
      this.#idle = { promise, resolve };
    }
    const { promise } = this.#idle;
    this.#pump();
    return promise;
  }

  #pump(): void {
    if (this.#claiming) {
      this.#again = true;
      return;
    }
    this.#claiming = this.#fill().finally(() => {
      this.#claiming = undefined;
      if (this.#again) {
        this.#again = false;
        this.#pump();
      } else this.#settle();
    });
  }

  /** Claims until the slots are full or nothing more is due. */
  async #fill(): Promise<void> {
    const concurrency = this.#deps.concurrency ?? 20;
    while (!this.#stopping && this.#inFlight < concurrency) {
      const jobs = await this.#claim(concurrency - this.#inFlight).catch((error) => {
        this.#deps.logger.warn('webhook claim failed', { error: String(error) });
        return [] as ClaimedJob[];
      });
      if (jobs.length === 0) return;
      // Claimed is delivered, also by a worker asked to stop meanwhile.
      for (const job of jobs) this.#run(job);
    }
  }

  #run(job: ClaimedJob): void {
    this.#made++;
    this.#inFlight++;
    this.#jobs.add(job.id);
    this.#busy.set(job.endpoint_id, (this.#busy.get(job.endpoint_id) ?? 0) + 1);
    void this.#deliver(job)
      .catch((error) => this.#deps.logger.error('webhook delivery crashed', { error: String(error) }))
      .finally(() => {
        this.#inFlight--;
        this.#jobs.delete(job.id);
        const left = (this.#busy.get(job.endpoint_id) ?? 1) - 1;
        if (left > 0) this.#busy.set(job.endpoint_id, left);
        else this.#busy.delete(job.endpoint_id);
        // A slot is free: what is due goes out now, not after the slowest delivery in flight.
        this.#pump();
      });
  }

  #settle(): void {
    if (this.#claiming || this.#inFlight > 0 || !this.#idle) return;
    const { resolve } = this.#idle;
    const made = this.#made;
    this.#idle = undefined;
    this.#made = 0;
    resolve(made);
  }

  /**
   * Claims up to `limit` due jobs, oldest due first, at most `perEndpoint` in flight per endpoint
   * counting those this worker has: an endpoint at its limit is skipped, so its backlog cannot
   * fill the slots (the look-ahead is bounded, so one claim stays cheap whatever the backlog).
   */
  async #claim(limit: number): Promise<ClaimedJob[]> {
    const now = this.#deps.now();
    const perEndpoint = this.#deps.perEndpoint ?? 4;
    const busy = [...this.#busy];
    return this.#deps.db.query<ClaimedJob>(
      `WITH busy AS (
         SELECT endpoint_id, $6::int - n AS room FROM unnest($4::uuid[], $5::int[]) AS b (endpoint_id, n)
       ), head AS (
         SELECT id, endpoint_id, next_at FROM webhook_jobs
         WHERE ((state = 'pending' AND next_at <= $1) OR (state = 'delivering' AND lease_until < $1))
           AND endpoint_id NOT IN (SELECT endpoint_id FROM busy WHERE room <= 0)
           AND NOT (id = ANY ($8::uuid[]))
         ORDER BY next_at LIMIT $7
       ), allowed AS (
         SELECT h.id FROM (
           SELECT id, endpoint_id, row_number() OVER (PARTITION BY endpoint_id ORDER BY next_at, id) AS n
           FROM head) h
         LEFT JOIN busy b ON b.endpoint_id = h.endpoint_id
         WHERE h.n <= coalesce(b.room, $6::int)
       )
       UPDATE webhook_jobs SET state = 'delivering', attempts = attempts + 1,
         lease_until = $1::timestamptz + make_interval(secs => $3)
       WHERE id IN (
         SELECT id FROM webhook_jobs
         WHERE id IN (SELECT id FROM allowed)
           AND ((state = 'pending' AND next_at <= $1) OR (state = 'delivering' AND lease_until < $1))
         ORDER BY next_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id, endpoint_id, event_id, attempts, attempt_base, manual`,
      [
        now,
        limit,
        this.#deps.leaseSeconds ?? 60,
        busy.map(([id]) => id),
        busy.map(([, n]) => n),
        perEndpoint,
        Math.max(100, limit * perEndpoint * 4),
        [...this.#jobs],
      ],
    );
  }

  async #deliver(job: ClaimedJob): Promise<void> {
    const { db } = this.#deps;
    const [endpoint] = await db.query<EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = $1', [
      job.endpoint_id,
    ]);
    const body = await deliveryBody(db, job.event_id, this.#deps.publicUrl);
    if (!endpoint || !body || endpoint.status !== 'active') {
      // Nothing is sent, so the attempt counted by the claim is given back.
      await db.query(
        `UPDATE webhook_jobs SET state = 'cancelled', attempts = $2, finished_at = now() WHERE id = $1`,
        [job.id, job.attempts - 1],
      );
      return;
    }
    const now = this.#deps.now();
    const attempt = job.attempts;
    const deliveryId = randomUUID();
    const eventId = (JSON.parse(body) as { id: string }).id;
    const secrets = [endpoint.secret];
    if (
      endpoint.previous_secret &&
      endpoint.previous_secret_expires_at &&
      endpoint.previous_secret_expires_at > now
    ) {
      secrets.push(endpoint.previous_secret);
    }
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': 'svc-webhooks/1',
      ...signatureHeaders(secrets, body, Math.floor(now.getTime() / 1000)),
      'X-Service-Event-Id': eventId,
      'X-Service-Delivery-Id': deliveryId,
      'X-Service-Attempt': String(attempt),
      'Idempotency-Key': eventId,
    };
    const result = await sendDelivery(new URL(endpoint.url), body, headers, {
      resolve: this.#deps.resolve ?? systemResolver,
      allowLoopback: this.#deps.allowLoopback,
      timeoutMs: this.#deps.timeoutMs ?? 10_000,
    });
    // The wait before a retry counts from when this attempt ended: one that ran into the timeout
    // has already taken as long as the first wait.
    const ended = this.#deps.now();
    const notice = await db.transaction(async (tx): Promise<QueuedEmail | null> => {
      // The endpoint's row is locked first, so its health moves one outcome at a time, and a
      // disable that committed meanwhile (by another delivery to it) is seen here. NO KEY: every
      // statement that queues a delivery to it holds a key share on the row (the jobs' foreign
      // key) until it commits, an invoice's finalization with its number's lock among them; a
      // full FOR UPDATE would queue those behind this bookkeeping, and this behind them.
      const [health] = await tx.query<{ status: string; failure_streak: number; warned_at: Date | null }>(
        'SELECT status, failure_streak, warned_at FROM webhook_endpoints WHERE id = $1 FOR NO KEY UPDATE',
        [endpoint.id],
      );
      // Deleted meanwhile: its jobs went with it, and there is nothing to record.
      if (!health) return null;
      // A claim whose lease ran out while this attempt was in flight may have been claimed again
      // (the next attempt): that claim records the job's outcome, and this one is only logged.
      const [current] = await tx.query(
        `SELECT 1 FROM webhook_jobs WHERE id = $1 AND state = 'delivering' AND attempts = $2 FOR UPDATE`,
        [job.id, attempt],
      );
      const active = health.status === 'active';
      await tx.query(
        `INSERT INTO webhook_attempts (id, job_id, attempt, status_code, ok, duration_ms, response_excerpt, error)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          deliveryId,
          job.id,
          attempt,
          result.status,
          result.ok,
          result.durationMs,
          result.excerpt,
          result.error,
        ],
      );
      if (!current) return null;
      if (result.ok) {
        await tx.query(
          `UPDATE webhook_jobs SET state = 'succeeded', attempts = $2, finished_at = now(), lease_until = NULL WHERE id = $1`,
          [job.id, attempt],
        );
        if (active) {
          await tx.query('UPDATE webhook_endpoints SET failure_streak = 0 WHERE id = $1', [endpoint.id]);
        }
        return null;
      }
      // Only an event that used up its retries, or a failed manual test or replay, counts.
      const round = attempt - job.attempt_base;
      const final = round >= MAX_ATTEMPTS || job.manual;
      if (!final) {
        // An endpoint disabled while this attempt was in flight has its pending retries cancelled:
        // this one too.
        await tx.query(
          active
            ? `UPDATE webhook_jobs SET state = 'pending', attempts = $2, next_at = $3, lease_until = NULL WHERE id = $1`
            : `UPDATE webhook_jobs SET state = 'cancelled', attempts = $2, finished_at = now(), lease_until = NULL WHERE id = $1`,
          active ? [job.id, attempt, nextAttemptAt(ended, round)] : [job.id, attempt],
        );
        return null;
      }
      await tx.query(
        `UPDATE webhook_jobs SET state = 'failed', attempts = $2, finished_at = now(), lease_until = NULL WHERE id = $1`,
        [job.id, attempt],
      );
      // An endpoint already disabled (by deliveries in flight beside this one, or its key's
      // revocation) is not disabled again: the failure does not count, and no second e-mail goes.
      if (!active) return null;
      const streak = health.failure_streak + 1;
      if (streak >= 5) {
        await tx.query(
          `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = 'failures', failure_streak = $2 WHERE id = $1`,
          [endpoint.id, streak],
        );
        await tx.query(
          `UPDATE webhook_jobs SET state = 'cancelled', finished_at = now() WHERE endpoint_id = $1 AND state = 'pending'`,
          [endpoint.id],
        );
        return this.#notifyOwner(
          tx,
          endpoint,
          `Webhook endpoint disabled after ${streak} failed deliveries: ${endpoint.url}`,
        );
      }
      await tx.query('UPDATE webhook_endpoints SET failure_streak = $2 WHERE id = $1', [endpoint.id, streak]);
      const { warned_at } = health;
      if (streak >= 3 && (!warned_at || ended.getTime() - new Date(warned_at).getTime() > 86_400_000)) {
        await tx.query('UPDATE webhook_endpoints SET warned_at = $2 WHERE id = $1', [endpoint.id, ended]);
        return this.#notifyOwner(
          tx,
          endpoint,
          `Webhook endpoint failing: ${streak} events in a row could not be delivered to ${endpoint.url}`,
        );
      }
      return null;
    });
    const { mailer } = this.#deps;
    if (notice && mailer) await deliverQueuedEmail(db, mailer, notice);
  }

  /**
   * The warning and disabling e-mails go to the organization's notice address (`email_avisos`)
   * through the outbox, like every e-mail: sent after commit for live endpoints with SMTP, kept in
   * the outbox with the reason otherwise.
   */
  async #notifyOwner(tx: Queryable, endpoint: EndpointRow, message: string): Promise<QueuedEmail | null> {
    const [org] = await tx.query<{ email_avisos: string | null }>(
      'SELECT email_avisos FROM orgs WHERE id = $1',
      [endpoint.org_id],
    );
    const { queued } = await queueEmail(tx, {
      orgId: endpoint.org_id,
      mode: endpoint.mode,
      quoteId: null,
      to: org?.email_avisos ?? null,
      subject: 'Webhook endpoint health',
      text: message,
      smtp: !!this.#deps.mailer,
      missing: 'no_seller_email',
    });
    return queued;
  }
}

type Queryable = Parameters<Parameters<Database['transaction']>[0]>[0];
