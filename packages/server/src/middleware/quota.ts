import type { Queryable } from '../db/database.js';
import { ApiError } from '../errors.js';
import type { KeyWithOrg } from '../services/key-store.js';
import { PLANS } from '../services/plans.js';

/**
 * Counts one call against the organization's monthly quota. Only live secret and restricted keys
 * use the quota: test keys are free, and publishable keys are limited per client IP instead (a
 * merchant's page views must not use up its API calls). Over the quota: 429 `api_quota_exceeded`
 * with `Retry-After` until the first day of next month (UTC).
 */
export async function chargeQuota(db: Queryable, { key, org }: KeyWithOrg, now: Date): Promise<void> {
  if (key.mode !== 'live' || key.kind === 'publishable') return;
  const limit = PLANS[org.plan].monthlyQuota;
  const period = now.toISOString().slice(0, 7);
  const rows = await db.query(
    `INSERT INTO usage_counters (org_id, period, count) VALUES ($1, $2, 1)
     ON CONFLICT (org_id, period) DO UPDATE SET count = usage_counters.count + 1
       WHERE usage_counters.count < $3
     RETURNING count`,
    [org.id, period, limit],
  );
  if (rows.length > 0) return;
  const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  const retryAfter = Math.max(1, Math.ceil((nextMonth - now.getTime()) / 1000));
  throw new ApiError(
    429,
    'api_quota_exceeded',
    `The monthly quota of the ${org.plan} plan (${limit} calls) is used up; it renews on ${new Date(nextMonth).toISOString().slice(0, 10)}.`,
    { limit, plan: org.plan },
    { 'Retry-After': String(retryAfter) },
  );
}
