import { CountTogether } from '../db/count-together.js';
import type { Database } from '../db/database.js';
import { ApiError } from '../errors.js';

/** Requests per window per secret or restricted key. */
export const KEY_RATE_LIMIT = 600;
export const RATE_WINDOW_MS = 60_000;
/** The longest window any counter uses (failed coupon codes): older windows can be dropped. */
export const LONGEST_RATE_WINDOW_MS = 10 * 60_000;

interface LocalWindow {
  count: number;
  endsAt: number;
}
/** Windows counted in memory before ended ones are dropped. */
export const MAX_LOCAL_WINDOWS = 100_000;
// Windows counted in memory, per database. PGlite can be opened by one process only (a lock file
// guards its directory), so memory is exact there and spares every request a write and a commit.
// On PostgreSQL every process shares the counters through the database.
const localWindows = new WeakMap<Database, LocalWindows>();

interface LocalWindows {
  byId: Map<string, LocalWindow>;
  /** When ended windows were last dropped. */
  sweptAt: number;
}

function windowsOf(db: Database): LocalWindows {
  let windows = localWindows.get(db);
  if (!windows) {
    windows = { byId: new Map(), sweptAt: 0 };
    localWindows.set(db, windows);
  }
  return windows;
}

function countLocally(db: Database, id: string, endsAt: number, now: number): number {
  const windows = windowsOf(db);
  const window = windows.byId.get(id);
  if (window) return ++window.count;
  // Ended windows are dropped once there are many, at most once a second: while they are all
  // still running (many visitors within one window), sweeping for every new visitor would read
  // the whole map on each request.
  if (windows.byId.size >= MAX_LOCAL_WINDOWS && now - windows.sweptAt >= 1000) {
    windows.sweptAt = now;
    for (const [key, old] of windows.byId) if (old.endsAt <= now) windows.byId.delete(key);
  }
  windows.byId.set(id, { count: 1, endsAt });
  return 1;
}

/** The fixed window `now` falls in: its start, and the whole seconds until it ends (at least 1). */
export function windowAt(now: Date, windowMs: number): { start: number; resetSeconds: number } {
  const start = Math.floor(now.getTime() / windowMs) * windowMs;
  return { start, resetSeconds: Math.max(1, Math.ceil((start + windowMs - now.getTime()) / 1000)) };
}

const localId = (bucket: string, windowStart: number) => `${bucket}@${windowStart}`;

const COUNT_SQL = (bucket: string, windowStart: string) =>
  `INSERT INTO rate_counters (bucket, window_start, count) VALUES (${bucket}, ${windowStart}, 1)
   ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_counters.count + 1
   RETURNING count`;
const READ_SQL = (bucket: string, windowStart: string) =>
  `SELECT count FROM rate_counters WHERE bucket = ${bucket} AND window_start = ${windowStart}`;

/**
 * A rate counter on PostgreSQL that the first statement of an operation counts (or only reads)
 * along with its own work, sparing the request a round trip: each one costs the server and the
 * database more than the counting does. PGlite counts in memory and has no use for this.
 */
export interface FoldedCounter extends CounterClaim {
  /** The operation's refusal, once the count is over `allowed`. */
  refusal(): ApiError;
}

/** A counter as a statement counts (or reads) and checks it: by itself, or in a batch of quotes. */
export interface CounterClaim {
  bucket: string;
  windowStart: number;
  /** Counts this request when set; otherwise only reads the count. */
  increment: boolean;
  /** The highest count that lets the request through. */
  allowed: number;
}

/** Throws the counter's refusal when `count` is over what it allows. */
export function checkCount(counter: FoldedCounter, count: number): void {
  if (count > counter.allowed) throw counter.refusal();
}

/**
 * The SQL of a folded counter (one that counts when `increment`, else only reads) whose bucket and
 * window start are the parameters named: a CTE to add to the statement's WITH list (when it
 * counts), and the scalar expression that reads it.
 */
export function foldedCounterSql(
  increment: boolean,
  name: string,
  params: { bucket: string; windowStart: string },
): { cte: string | undefined; count: string } {
  if (!increment) return { cte: undefined, count: `(${READ_SQL(params.bucket, params.windowStart)})` };
  return {
    cte: `${name} AS (${COUNT_SQL(params.bucket, params.windowStart)})`,
    count: `(SELECT count FROM ${name})`,
  };
}

/**
 * Counts one request in `bucket`'s fixed window, shared by every server process (see above), and
 * returns the count and the seconds until the window ends.
 */
export async function countRequest(
  db: Database,
  bucket: string,
  now: Date,
  windowMs = RATE_WINDOW_MS,
): Promise<{ count: number; resetSeconds: number }> {
  const { start, resetSeconds } = windowAt(now, windowMs);
  let count: number;
  if (db.kind === 'pglite') {
    count = countLocally(db, localId(bucket, start), start + windowMs, now.getTime());
  } else if (db.inTransaction()) {
    count = await addToCount(db, bucket, start, 1);
  } else {
    count = await countTogether(db, bucket, start);
  }
  return { count, resetSeconds };
}

/** Adds `n` requests to a counter in the database and returns its new total. */
async function addToCount(db: Database, bucket: string, windowStart: number, n: number): Promise<number> {
  const [row] = await db.query<{ count: number }>(ADD_SQL, [bucket, windowStart, n]);
  return row?.count ?? n;
}
const ADD_SQL = `INSERT INTO rate_counters (bucket, window_start, count) VALUES ($1, $2, $3)
   ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_counters.count + EXCLUDED.count
   RETURNING count`;

/** The rate counters whose requests are counted together, per database (see {@link CountTogether}). */
const countedTogether = new WeakMap<Database, CountTogether>();

/**
 * Counts one request in a counter in the database together with this process's other requests
 * of that counter that come while a statement for it is under way ({@link CountTogether}): still
 * exact across processes, but a busy key's 50 concurrent requests no longer queue one by one for
 * the same row's lock.
 */
function countTogether(db: Database, bucket: string, windowStart: number): Promise<number> {
  let counters = countedTogether.get(db);
  if (!counters) {
    counters = new CountTogether();
    countedTogether.set(db, counters);
  }
  return counters.count(localId(bucket, windowStart), (n) => addToCount(db, bucket, windowStart, n));
}

/**
 * Counts one request in `bucket`'s window in this process's memory, the PGlite way (exact: one
 * process owns a PGlite database), and returns the count. Shares its counts with
 * {@link countRequest} and {@link currentCount} on the same database.
 */
export function countInMemory(db: Database, bucket: string, now: Date, windowMs: number): number {
  const { start } = windowAt(now, windowMs);
  return countLocally(db, localId(bucket, start), start + windowMs, now.getTime());
}

/** What {@link countInMemory} has counted in `bucket`'s current window, without counting. */
export function readInMemory(db: Database, bucket: string, now: Date, windowMs: number): number {
  return windowsOf(db).byId.get(localId(bucket, windowAt(now, windowMs).start))?.count ?? 0;
}

/** How many requests `bucket` has counted in the current window, without counting one. */
export async function currentCount(
  db: Database,
  bucket: string,
  now: Date,
  windowMs: number,
): Promise<number> {
  const { start } = windowAt(now, windowMs);
  if (db.kind === 'pglite') return windowsOf(db).byId.get(localId(bucket, start))?.count ?? 0;
  const [row] = await db.query<{ count: number }>(READ_SQL('$1', '$2'), [bucket, start]);
  return row?.count ?? 0;
}

/** 429 `rate_limited` with `Retry-After` once `bucket` has had more than `limit` requests this window. */
export async function enforceRateLimit(
  db: Database,
  bucket: string,
  limit: number,
  now: Date,
  windowMs = RATE_WINDOW_MS,
): Promise<void> {
  const { count } = await countRequest(db, bucket, now, windowMs);
  assertWithinLimit(count, limit, now, windowMs);
}

/** A limit an operation counts itself, in its first statement (see {@link FoldedCounter}). */
export interface DeferredLimit {
  bucket: string;
  limit: number;
  windowMs: number;
}

/** The folded counter that counts this request against a deferred limit. */
export function countingCounter(deferred: DeferredLimit, now: Date): FoldedCounter {
  return {
    bucket: deferred.bucket,
    windowStart: windowAt(now, deferred.windowMs).start,
    increment: true,
    allowed: deferred.limit,
    refusal: () => rateLimited(deferred.limit, now, deferred.windowMs),
  };
}

function assertWithinLimit(count: number, limit: number, now: Date, windowMs: number): void {
  if (count > limit) throw rateLimited(limit, now, windowMs);
}

/** 429 `rate_limited` for `limit` requests per window, with `Retry-After` until the window ends. */
export function rateLimited(limit: number, now: Date, windowMs: number): ApiError {
  const { resetSeconds } = windowAt(now, windowMs);
  return new ApiError(
    429,
    'rate_limited',
    `Too many requests: the limit is ${limit} per ${windowMs / 1000} seconds. Retry after ${resetSeconds} s.`,
    { limit },
    { 'Retry-After': String(resetSeconds) },
  );
}
