import type { Database } from '../db/database.js';
import type { Logger } from '../logger.js';
import { countInMemory, rateLimited, readInMemory } from '../middleware/rate-limit.js';

/** How often a process adds its counts to PostgreSQL and reads back the shared totals. */
export const VISITOR_FLUSH_MS = 500;
/** Counters a flush sends in one statement; more wait for the next one, which follows at once. */
const FLUSH_BATCH = 5_000;

interface Entry {
  bucket: string;
  window: Window;
  /** The shared total as the last flush read it back (every process's flushed counts). */
  shared: number;
  /** This process's counts not yet in the shared total: not sent, or sent and not yet answered. */
  unflushed: number;
}

/** One fixed window of one length, with its counters by bucket: dropped whole once it has ended. */
interface Window {
  start: number;
  endsAt: number;
  entries: Map<string, Entry>;
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
  /** Running windows by their start, per window length. */
  readonly #windows = new Map<number, Map<number, Window>>();
  /** Entries counted or read since the last flush: their counts go out, their totals come back. */
  readonly #dirty = new Set<Entry>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
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

  /** How many counters memory keeps (PostgreSQL), for tests and diagnostics. */
  get kept(): number {
    let kept = 0;
    for (const windows of this.#windows.values()) for (const w of windows.values()) kept += w.entries.size;
    return kept;
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
    let windows = this.#windows.get(windowMs);
    if (!windows) {
      windows = new Map();
      this.#windows.set(windowMs, windows);
    }
    const start = Math.floor(now.getTime() / windowMs) * windowMs;
    let window = windows.get(start);
    if (!window) {
      // A new window: those that ended are dropped whole, once what they counted has been sent.
      for (const [old, ended] of windows) {
        if (ended.endsAt <= now.getTime() && this.#settled(ended)) windows.delete(old);
      }
      window = { start, endsAt: start + windowMs, entries: new Map() };
      windows.set(start, window);
    }
    let entry = window.entries.get(bucket);
    if (!entry) {
      entry = { bucket, window, shared: 0, unflushed: 0 };
      window.entries.set(bucket, entry);
    }
    return entry;
  }

  /** True when nothing a window counted is left to send. */
  #settled(window: Window): boolean {
    for (const entry of window.entries.values()) {
      if (entry.unflushed > 0 || this.#dirty.has(entry)) return false;
    }
    return true;
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

  async #flushBatch(): Promise<void> {
    const batch: Entry[] = [];
    for (const entry of this.#dirty) {
      batch.push(entry);
      this.#dirty.delete(entry);
      if (batch.length >= FLUSH_BATCH) break;
    }
    const sent = batch.map((entry) => entry.unflushed);
    try {
      const rows = await this.#db.query<{ bucket: string; window_start: string; count: number }>(FLUSH_SQL, [
        batch.map((e) => e.bucket),
        batch.map((e) => e.window.start),
        sent,
      ]);
      const totals = new Map(rows.map((row) => [`${row.bucket}@${row.window_start}`, row.count]));
      batch.forEach((entry, i) => {
        const total = totals.get(`${entry.bucket}@${entry.window.start}`);
        entry.unflushed -= sent[i]!;
        if (total !== undefined) entry.shared = total;
        // A counter nobody has counted is nothing to remember.
        else if (entry.shared === 0 && entry.unflushed === 0 && !this.#dirty.has(entry))
          entry.window.entries.delete(entry.bucket);
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
// (`delta` = 0) is read. Rows are upserted in one order, the key's (bytewise, cheap), so that two
// processes' flushes touching the same counters lock them alike and never deadlock.
const FLUSH_SQL = `WITH d AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::int[]) AS d(bucket, window_start, delta)
  ), counted AS (
    INSERT INTO rate_counters (bucket, window_start, count)
    SELECT bucket, window_start, delta FROM d WHERE delta > 0 ORDER BY bucket COLLATE "C", window_start
    ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_counters.count + EXCLUDED.count
    RETURNING bucket, window_start, count
  )
  SELECT bucket, window_start::text, count FROM counted
  UNION ALL
  SELECT r.bucket, r.window_start::text, r.count FROM d JOIN rate_counters r USING (bucket, window_start)
  WHERE d.delta = 0`;
