import type { Database } from '../db/database.js';
import type { Logger } from '../logger.js';
import { countInMemory, rateLimited, readInMemory, windowAt } from '../middleware/rate-limit.js';

/** How often a process adds its counts to PostgreSQL and reads back the shared totals. */
export const VISITOR_FLUSH_MS = 500;
/** Counters a flush sends in one statement; more wait for the next one, which follows at once. */
const FLUSH_BATCH = 5_000;
/** How often windows that ended are dropped from memory. */
const SWEEP_MS = 10_000;

interface Entry {
  bucket: string;
  windowStart: number;
  endsAt: number;
  /** The shared total as the last flush read it back (every process's flushed counts). */
  shared: number;
  /** This process's counts not yet in the shared total: not sent, or sent and not yet answered. */
  unflushed: number;
}

/**
 * The per-IP allowances of publishable keys that the widget's basket preview counts: each
 * request's count and check in this process's memory, never a statement on the request's path.
 *
 * PGlite is one process's database, so memory is exact there (the counts of `rate-limit.ts`,
 * shared with {@link countRequest}). On PostgreSQL several processes share the limits: each
 * process counts in memory and, every {@link VISITOR_FLUSH_MS}, adds its new counts to
 * `rate_counters` and reads back the totals of the counters it used since the last flush, in one
 * statement. A process sees its own requests at once and the others' within a flush, so a limit
 * holds across processes to within what a visitor can send during one flush interval.
 */
export class VisitorCounters {
  readonly #db: Database;
  readonly #logger: Logger;
  readonly #flushMs: number;
  readonly #entries = new Map<string, Entry>();
  /** Entries counted or read since the last flush: their counts go out, their totals come back. */
  readonly #dirty = new Set<Entry>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #sweptAt = 0;
  #closed = false;

  constructor(db: Database, logger: Logger, options: { flushMs?: number } = {}) {
    this.#db = db;
    this.#logger = logger;
    this.#flushMs = options.flushMs ?? VISITOR_FLUSH_MS;
  }

  /** Counts one request in `bucket`'s current window and returns the count as this process knows it. */
  count(bucket: string, now: Date, windowMs: number): number {
    if (this.#db.kind === 'pglite') return countInMemory(this.#db, bucket, now, windowMs);
    const entry = this.#entry(bucket, now, windowMs);
    entry.unflushed++;
    this.#touch(entry);
    return entry.shared + entry.unflushed;
  }

  /** Counts one request and throws 429 `rate_limited` (with `Retry-After`) once over `limit`. */
  enforce(bucket: string, limit: number, now: Date, windowMs: number): void {
    if (this.count(bucket, now, windowMs) > limit) throw rateLimited(limit, now, windowMs);
  }

  /** The count of `bucket`'s current window as this process knows it, without counting. */
  read(bucket: string, now: Date, windowMs: number): number {
    if (this.#db.kind === 'pglite') return readInMemory(this.#db, bucket, now, windowMs);
    const entry = this.#entry(bucket, now, windowMs);
    // Read back at the next flush: another process may have counted it.
    this.#touch(entry);
    return entry.shared + entry.unflushed;
  }

  /**
   * Takes a total counted in the database by a statement of its own (at least this one, on
   * PostgreSQL): this process's next reads see it at once.
   */
  learn(bucket: string, now: Date, windowMs: number, total: number): void {
    if (this.#db.kind === 'pglite') return;
    const entry = this.#entry(bucket, now, windowMs);
    entry.shared = Math.max(entry.shared, total);
  }

  /** Sends the counts not yet sent and reads back the totals; PostgreSQL only. */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.#dirty.size === 0) return;
    this.#flushing = this.#flushBatch().finally(() => {
      this.#flushing = undefined;
    });
    await this.#flushing;
    if (this.#dirty.size > 0 && this.#dirty.size >= FLUSH_BATCH) await this.flush();
  }

  /** Stops the timer and sends what is left. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  #entry(bucket: string, now: Date, windowMs: number): Entry {
    const { start } = windowAt(now, windowMs);
    const id = `${bucket}@${start}`;
    let entry = this.#entries.get(id);
    if (!entry) {
      this.#sweep(now.getTime());
      entry = { bucket, windowStart: start, endsAt: start + windowMs, shared: 0, unflushed: 0 };
      this.#entries.set(id, entry);
    }
    return entry;
  }

  #touch(entry: Entry): void {
    this.#dirty.add(entry);
    if (!this.#timer && !this.#closed) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.flush().catch(() => {});
      }, this.#flushMs);
      this.#timer.unref();
    }
  }

  /** Drops windows that ended, at most once per {@link SWEEP_MS}. */
  #sweep(now: number): void {
    if (now - this.#sweptAt < SWEEP_MS) return;
    this.#sweptAt = now;
    for (const [id, entry] of this.#entries) {
      if (entry.endsAt <= now && !this.#dirty.has(entry) && entry.unflushed === 0) this.#entries.delete(id);
    }
  }

  async #flushBatch(): Promise<void> {
    const batch: Entry[] = [];
    for (const entry of this.#dirty) {
      batch.push(entry);
      this.#dirty.delete(entry);
      if (batch.length >= FLUSH_BATCH) break;
    }
    // One order for every process: two flushes that upsert the same rows take their locks alike.
    batch.sort((a, b) =>
      a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : a.windowStart - b.windowStart,
    );
    const sent = batch.map((entry) => entry.unflushed);
    try {
      const rows = await this.#db.query<{ bucket: string; window_start: string; count: number }>(FLUSH_SQL, [
        batch.map((e) => e.bucket),
        batch.map((e) => e.windowStart),
        sent,
      ]);
      const totals = new Map(rows.map((row) => [`${row.bucket}@${row.window_start}`, row.count]));
      batch.forEach((entry, i) => {
        const total = totals.get(`${entry.bucket}@${entry.windowStart}`);
        entry.unflushed -= sent[i]!;
        if (total !== undefined) entry.shared = total;
        // A counter nobody has counted is nothing to remember.
        else if (entry.shared === 0 && entry.unflushed === 0 && !this.#dirty.has(entry))
          this.#entries.delete(`${entry.bucket}@${entry.windowStart}`);
      });
    } catch (error) {
      // Kept for the next flush: the counts are not lost while the database is away.
      for (const entry of batch) this.#dirty.add(entry);
      this.#logger.warn('visitor counters: flush failed', { error: String(error) });
    }
    if (this.#dirty.size > 0 && !this.#timer && !this.#closed) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.flush().catch(() => {});
      }, this.#flushMs);
      this.#timer.unref();
    }
  }
}

// Adds each counter's new counts (`delta` > 0) and reads back its total; a counter only read
// (`delta` = 0) is read. The rows are upserted in the order given (sorted by the caller).
const FLUSH_SQL = `WITH d AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::int[]) WITH ORDINALITY AS d(bucket, window_start, delta, n)
  ), counted AS (
    INSERT INTO rate_counters (bucket, window_start, count)
    SELECT bucket, window_start, delta FROM d WHERE delta > 0 ORDER BY n
    ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_counters.count + EXCLUDED.count
    RETURNING bucket, window_start, count
  )
  SELECT bucket, window_start::text, count FROM counted
  UNION ALL
  SELECT r.bucket, r.window_start::text, r.count FROM d JOIN rate_counters r USING (bucket, window_start)
  WHERE d.delta = 0`;
