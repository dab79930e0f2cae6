import type { Database } from '../db/database.js';
import { ApiError } from '../errors.js';
import {
  countingCounter,
  countRequest,
  currentCount,
  type DeferredLimit,
  type FoldedCounter,
  LONGEST_RATE_WINDOW_MS,
  windowAt,
} from '../middleware/rate-limit.js';
import type { VisitorCounters } from './visitor-counters.js';

/** Failed coupon attempts a client IP may make per window, so codes cannot be enumerated. */
export const COUPON_FAILURES_LIMIT = 10;
export const COUPON_FAILURES_WINDOW_MS = LONGEST_RATE_WINDOW_MS;

const bucket = (orgId: string, ip: string) => `coupon-fail:${orgId}:${ip}`;

/** 429 `rate_limited` when this IP has used up its failed coupon attempts for the window. */
export async function assertCouponAttemptsLeft(
  db: Database,
  orgId: string,
  ip: string,
  now: Date,
): Promise<void> {
  assertFailuresLeft(await currentCount(db, bucket(orgId, ip), now, COUPON_FAILURES_WINDOW_MS), now);
}

/** {@link assertCouponAttemptsLeft} as a counter read by the operation's first statement (PostgreSQL). */
export function couponAttemptsCounter(orgId: string, ip: string, now: Date): FoldedCounter {
  return {
    bucket: bucket(orgId, ip),
    windowStart: windowAt(now, COUPON_FAILURES_WINDOW_MS).start,
    increment: false,
    allowed: COUPON_FAILURES_LIMIT - 1,
    refusal: () => couponAttemptsRefusal(now),
  };
}

function assertFailuresLeft(failures: number, now: Date): void {
  if (failures >= COUPON_FAILURES_LIMIT) throw couponAttemptsRefusal(now);
}

/** 429 `rate_limited` for an address out of failed coupon attempts, until its window ends. */
function couponAttemptsRefusal(now: Date): ApiError {
  const retryAfter = windowAt(now, COUPON_FAILURES_WINDOW_MS).resetSeconds;
  return new ApiError(
    429,
    'rate_limited',
    `Too many invalid coupon codes from this address. Retry after ${retryAfter} s.`,
    { limit: COUPON_FAILURES_LIMIT },
    { 'Retry-After': String(retryAfter) },
  );
}

/**
 * Counts a failed attempt, outside the request's transaction so that rolling back the failed
 * request does not forget it.
 */
export function recordCouponFailure(db: Database, orgId: string, ip: string, now: Date): Promise<unknown> {
  return db.detached(() => countRequest(db, bucket(orgId, ip), now, COUPON_FAILURES_WINDOW_MS));
}

/**
 * {@link assertCouponAttemptsLeft} from this process's memory, for the basket preview (see
 * {@link VisitorCounters}: exact on PGlite, within a flush of the other processes' on PostgreSQL).
 */
export function assertCouponAttemptsLeftInMemory(
  counters: VisitorCounters,
  orgId: string,
  ip: string,
  now: Date,
): void {
  assertFailuresLeft(counters.read(bucket(orgId, ip), now, COUPON_FAILURES_WINDOW_MS), now);
}

/**
 * {@link recordCouponFailure} for the basket preview: counted where every process and quote
 * creation read it at once (a failed coupon is rare, so its write costs the hot path nothing),
 * and the total it reaches kept in this process's memory for its next previews.
 */
export async function recordCouponFailureShared(
  counters: VisitorCounters,
  db: Database,
  orgId: string,
  ip: string,
  now: Date,
): Promise<void> {
  const key = bucket(orgId, ip);
  const { count } = await db.detached(() => countRequest(db, key, now, COUPON_FAILURES_WINDOW_MS));
  counters.learn(key, now, COUPON_FAILURES_WINDOW_MS, count);
}

/**
 * The limits a publishable-key quote creation is held to (the preview counts its own in memory), as
 * counters its first statement counts on PostgreSQL: the per-IP allowance the endpoint left to
 * it, and the failed-coupon count when a coupon is asked for. PGlite, which counts in memory,
 * checks the failed coupons here and gets no counter for them.
 */
export async function basketCounters(
  db: Database,
  request: { deferred: DeferredLimit | undefined; orgId: string; ip: string; coupon: boolean; now: Date },
): Promise<FoldedCounter[]> {
  const counters: FoldedCounter[] = [];
  if (request.deferred) counters.push(countingCounter(request.deferred, request.now));
  if (!request.coupon) return counters;
  if (db.kind === 'postgres') counters.push(couponAttemptsCounter(request.orgId, request.ip, request.now));
  else await assertCouponAttemptsLeft(db, request.orgId, request.ip, request.now);
  return counters;
}
