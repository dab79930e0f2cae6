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
