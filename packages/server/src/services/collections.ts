import { readCollections } from '../repositories/collections.js';
import type { AppDeps } from '../types.js';
import type { KeyWithOrg } from './key-store.js';
import { isoDay } from './payments.js';

/**
 * GET /cobranza (design.md section 12): accounts receivable as of today, per currency (never
 * converted), with aging buckets that add up to `por_cobrar`, and the clients ordered by overdue
 * then balance.
 */
export async function getCollections(
  deps: AppDeps,
  auth: KeyWithOrg,
  query: { limit: number; offset: number; clienteId?: string | undefined; moneda?: string | undefined },
) {
  const asOf = isoDay(deps.now());
  const result = await readCollections(
    deps.db,
    { orgId: auth.org.id, mode: auth.key.mode },
    { ...query, asOf },
  );
  return {
    data: { as_of: asOf, monedas: result.monedas, clientes: result.clientes },
    meta: { limit: query.limit, offset: query.offset, total: result.total },
  };
}
