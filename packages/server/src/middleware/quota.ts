import { CountTogether } from '../db/count-together.js';
import type { Database, Queryable } from '../db/database.js';
import { ApiError } from '../errors.js';
import type { KeyWithOrg } from '../services/key-store.js';
import { PLANS } from '../services/plans.js';

/**
 * Counts one call against the organization's monthly quota. Only live secret and restricted keys
 * use the quota: test keys are free, and publishable keys are limited per client IP instead (a
 * merchant's page views must not use up its API calls). Over the quota: 429 `api_quota_exceeded`
 * with `Retry-After` until the first day of next month (UTC).
 */
export async function chargeQuota(db: Database, auth: KeyWithOrg, now: Date): Promise<void> {
  const used = quotaOf(auth, now);
  if (!used) return;
  const { org, period, limit } = used;
  // In a transaction (an idempotent call's) the charge is undone with it: counted alone.
  const place = db.inTransaction()
    ? (await chargeCalls(db, used, 1)) + 1
    : await chargedTogether(db).count(`${org}|${period}`, async (n) => (await chargeCalls(db, used, n)) + n);
  if (place > limit) throw quotaExceeded(auth.org, limit, now);
}

/** The month's quota a key's calls count against (its organization's), or none. */
function quotaOf({ key, org }: KeyWithOrg, now: Date) {
  if (key.mode !== 'live' || key.kind === 'publishable') return undefined;
  return { org: org.id, period: now.toISOString().slice(0, 7), limit: PLANS[org.plan].monthlyQuota };
}

/**
 * Refuses, like {@link chargeQuota}, a call when the month's quota is already used up, without
 * counting it or locking anything: so that an idempotent call, which is charged only at the end of
 * its transaction, does not run an operation it would then be refused.
 */
export async function refuseWhenQuotaUsed(db: Database, auth: KeyWithOrg, now: Date): Promise<void> {
  const used = quotaOf(auth, now);
  if (!used) return;
  const [row] = await db.query<{ count: number }>(
    'SELECT count FROM usage_counters WHERE org_id = $1 AND period = $2',
    [used.org, used.period],
  );
  if (row && row.count >= used.limit) throw quotaExceeded(auth.org, used.limit, now);
}

/** 429 `api_quota_exceeded`, with `Retry-After` until the first day of next month (UTC). */
function quotaExceeded(org: KeyWithOrg['org'], limit: number, now: Date): ApiError {
  const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  const retryAfter = Math.max(1, Math.ceil((nextMonth - now.getTime()) / 1000));
  return new ApiError(
    429,
    'api_quota_exceeded',
    `The monthly quota of the ${org.plan} plan (${limit} calls) is used up; it renews on ${new Date(nextMonth).toISOString().slice(0, 10)}.`,
    { limit, plan: org.plan },
    { 'Retry-After': String(retryAfter) },
  );
}

/** The organizations' quotas whose concurrent calls are charged together, per database. */
const charged = new WeakMap<Database, CountTogether>();

function chargedTogether(db: Database): CountTogether {
  let counters = charged.get(db);
  if (!counters) {
    counters = new CountTogether();
    charged.set(db, counters);
  }
  return counters;
}

/**
 * Charges up to `n` calls to the month's count, never past the quota (a refused call is not
 * counted), and returns the count before them: the first `limit - before` of them pass. The row
 * is locked and read, then raised, in one statement (read committed: the lock waits for any
 * other charge and the read sees what it wrote); a month's first charge inserts it.
 */
async function chargeCalls(
  db: Queryable,
  used: { org: string; period: string; limit: number },
  n: number,
): Promise<number> {
  // Twice at most: a row inserted meanwhile by another call is there for the second read.
  for (let attempt = 0; ; attempt++) {
    const [row] = await db.query<{ before: number }>(CHARGE_SQL, [used.org, used.period, n, used.limit]);
    if (row) return row.before;
    if (attempt > 0)
      throw new Error(`usage_counters: no row for ${used.org} ${used.period} after inserting it`);
    const inserted = await db.query(
      `INSERT INTO usage_counters (org_id, period, count) VALUES ($1, $2, LEAST($3::int, $4::int))
       ON CONFLICT (org_id, period) DO NOTHING RETURNING 1`,
      [used.org, used.period, n, used.limit],
    );
    if (inserted.length > 0) return 0;
  }
}
const CHARGE_SQL = `WITH before AS (
    SELECT count FROM usage_counters WHERE org_id = $1 AND period = $2 FOR UPDATE
  ), raised AS (
    UPDATE usage_counters u SET count = LEAST(before.count + $3::int, $4::int) FROM before
    WHERE u.org_id = $1 AND u.period = $2 AND before.count < $4::int
    RETURNING 1
  )
  SELECT count AS before FROM before`;
