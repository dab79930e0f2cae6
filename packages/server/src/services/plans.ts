import type { Queryable } from '../db/database.js';
import { ApiError } from '../errors.js';

/** The plans of the service and what each allows. */
export const PLANS = {
  free: { monthlyQuota: 100, maxKeys: 2, maxClients: 50, maxProducts: 50 },
  starter: { monthlyQuota: 1_000, maxKeys: 10, maxClients: 1_000, maxProducts: 500 },
  professional: { monthlyQuota: 5_000, maxKeys: 25, maxClients: 10_000, maxProducts: 5_000 },
  scale: { monthlyQuota: 10_000, maxKeys: 50, maxClients: 100_000, maxProducts: 50_000 },
  developer: { monthlyQuota: 50_000, maxKeys: 200, maxClients: 1_000_000, maxProducts: 1_000_000 },
} as const;

/** 402 `plan_limit_reached` for a resource the plan has no room left for. */
export function planLimitError(resource: 'clients' | 'products' | 'api_keys', plan: Plan, limit: number) {
  return new ApiError(
    402,
    'plan_limit_reached',
    `The ${plan} plan allows ${limit} ${resource.replace('_', ' ')}.`,
    {
      resource,
      limit,
      plan,
    },
  );
}

export type Plan = keyof typeof PLANS;

export const isPlan = (value: string): value is Plan => Object.hasOwn(PLANS, value);

/** Creations in flight at once, at most (the connection pools bound them), with room to spare. */
const IN_FLIGHT_AT_MOST = 256;

/**
 * The limit of `resource` a creation that counts without {@link assertRoomFor}'s lock may check
 * (the widget's batch statement, for a client it presumes new): far enough below the plan's that
 * the creations in flight, each counting without the others, cannot pass it. Null: no room for that.
 */
export function unlockedLimit(resource: 'clients' | 'products', plan: Plan): number | null {
  const limit = planLimit(resource, plan) - IN_FLIGHT_AT_MOST;
  return limit > 0 ? limit : null;
}

/** How many clients or products the plan allows in one organization and mode. */
const planLimit = (resource: 'clients' | 'products', plan: Plan): number =>
  PLANS[plan][resource === 'clients' ? 'maxClients' : 'maxProducts'];

/** Whether a creation with `counted` of `resource` already must count again under the lock. */
export const nearLimit = (resource: 'clients' | 'products', plan: Plan, counted: number): boolean =>
  counted >= (unlockedLimit(resource, plan) ?? 0);

/**
 * 402 unless the plan has room for one more `resource` in this organization and mode. Within reach
 * of the limit the creations are serialised by a transaction-scoped advisory lock and counted again
 * under it, so concurrent creations on any number of processes never pass the limit (each counted
 * without the others' uncommitted rows, eight at once took a Free plan's 48 clients to 53). Far from
 * it nothing is locked. `counted`: the count the caller read already (then `count` runs only under
 * the lock); `always` locks in any case, for a creation that checks more under the lock (a product's
 * SKU, unique in any case).
 */
export async function assertRoomFor(
  tx: Queryable,
  resource: 'clients' | 'products',
  scope: { orgId: string; mode: string },
  plan: Plan,
  count: () => Promise<number>,
  options: { counted?: number; always?: boolean } = {},
): Promise<void> {
  const { always = false } = options;
  const limit = planLimit(resource, plan);
  let counted = options.counted ?? (await count());
  if (always || nearLimit(resource, plan, counted)) {
    await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `${resource}:${scope.orgId}:${scope.mode}`,
    ]);
    counted = await count();
  }
  if (counted >= limit) throw planLimitError(resource, plan, limit);
}
