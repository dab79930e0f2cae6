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
const MAX_LOCAL_WINDOWS = 100_000;
// Windows counted in memory, per database. PGlite can be opened by one process only (a lock file
// guards its directory), so memory is exact there and spares every request a write and a commit.
// On PostgreSQL every process shares the counters through the database.
const localWindows = new WeakMap<Database, Map<string, LocalWindow>>();

function windowsOf(db: Database): Map<string, LocalWindow> {
  let windows = localWindows.get(db);
  if (!windows) {
    windows = new Map();
    localWindows.set(db, windows);
  }
  return windows;
}

function countLocally(db: Database, id: string, endsAt: number, now: number): number {
  const windows = windowsOf(db);
  const window = windows.get(id);
  if (window) return ++window.count;
  if (windows.size >= MAX_LOCAL_WINDOWS) {
    for (const [key, old] of windows) if (old.endsAt <= now) windows.delete(key);
  }
  windows.set(id, { count: 1, endsAt });
  return 1;
}

/** The fixed window `now` falls in: its start, and the whole seconds until it ends (at least 1). */
export function windowAt(now: Date, windowMs: number): { start: number; resetSeconds: number } {
  const start = Math.floor(now.getTime() / windowMs) * windowMs;
  return { start, resetSeconds: Math.max(1, Math.ceil((start + windowMs - now.getTime()) / 1000)) };
}

const localId = (bucket: string, windowStart: number) => `${bucket}@${windowStart}`;

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
  } else {
    const [row] = await db.query<{ count: number }>(
      `INSERT INTO rate_counters (bucket, window_start, count) VALUES ($1, $2, 1)
       ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_counters.count + 1
       RETURNING count`,
      [bucket, start],
    );
    count = row?.count ?? 1;
  }
  return { count, resetSeconds };
}

/** How many requests `bucket` has counted in the current window, without counting one. */
export async function currentCount(
  db: Database,
  bucket: string,
  now: Date,
  windowMs: number,
): Promise<number> {
  const { start } = windowAt(now, windowMs);
  if (db.kind === 'pglite') return windowsOf(db).get(localId(bucket, start))?.count ?? 0;
  const [row] = await db.query<{ count: number }>(
    'SELECT count FROM rate_counters WHERE bucket = $1 AND window_start = $2',
    [bucket, start],
  );
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
  const { count, resetSeconds } = await countRequest(db, bucket, now, windowMs);
  if (count > limit) {
    throw new ApiError(
      429,
      'rate_limited',
      `Too many requests: the limit is ${limit} per ${windowMs / 1000} seconds. Retry after ${resetSeconds} s.`,
      { limit },
      { 'Retry-After': String(resetSeconds) },
    );
  }
}
