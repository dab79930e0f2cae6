import type { Queryable } from '../db/database.js';
import { ApiError } from '../errors.js';

/** Requests per window per secret or restricted key. */
export const KEY_RATE_LIMIT = 600;
export const RATE_WINDOW_MS = 60_000;

/**
 * Counts one request in `bucket`'s fixed window, in the database so that every server process
 * shares the count, and returns the count and the seconds until the window ends.
 */
export async function countRequest(
  db: Queryable,
  bucket: string,
  now: Date,
  windowMs = RATE_WINDOW_MS,
): Promise<{ count: number; resetSeconds: number }> {
  const windowStart = Math.floor(now.getTime() / windowMs) * windowMs;
  const [row] = await db.query<{ count: number }>(
    `INSERT INTO rate_counters (bucket, window_start, count) VALUES ($1, $2, 1)
     ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_counters.count + 1
     RETURNING count`,
    [bucket, windowStart],
  );
  return {
    count: row?.count ?? 1,
    resetSeconds: Math.max(1, Math.ceil((windowStart + windowMs - now.getTime()) / 1000)),
  };
}

/** 429 `rate_limited` with `Retry-After` once `bucket` has had more than `limit` requests this window. */
export async function enforceRateLimit(
  db: Queryable,
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
