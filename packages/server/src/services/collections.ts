import { readCollections, receivablesVersion } from '../repositories/collections.js';
import type { AppDeps } from '../types.js';
import type { KeyWithOrg } from './key-store.js';
import { isoDay } from './payments.js';

type Report = Awaited<ReturnType<typeof readCollections>>;

/** Reports computed by this process, per database, by organization, mode, day, filters and page. */
const cache = new WeakMap<object, Map<string, Report>>();
const MAX_REPORTS = 500;

/**
 * GET /cobranza (design.md section 12): accounts receivable as of today, per currency (never
 * converted), with aging buckets that add up to `por_cobrar`, and the clients ordered by overdue
 * then balance. A report computed at the book's current version (see migration 016) is served
 * from memory after one primary-key read; any change to the book, on any process, moves the
 * version and the next request computes it again.
 */
export async function getCollections(
  deps: AppDeps,
  auth: KeyWithOrg,
  query: { limit: number; offset: number; clienteId?: string | undefined; moneda?: string | undefined },
) {
  const asOf = isoDay(deps.now());
  const scope = { orgId: auth.org.id, mode: auth.key.mode };
  const key = [scope.orgId, scope.mode, asOf, query.limit, query.offset, query.clienteId, query.moneda].join(
    '|',
  );
  let reports = cache.get(deps.db);
  if (!reports) {
    reports = new Map();
    cache.set(deps.db, reports);
  }
  let report = reports.get(key);
  if (!report || report.version !== (await receivablesVersion(deps.db, scope))) {
    report = await readCollections(deps.db, scope, { ...query, asOf });
    // Inside a transaction (an MCP tool's, say) what it reads may not be committed: not kept.
    if (!deps.db.inTransaction()) {
      reports.delete(key);
      reports.set(key, report);
      if (reports.size > MAX_REPORTS) reports.delete(reports.keys().next().value!);
    }
  }
  return {
    data: { as_of: asOf, monedas: report.monedas, clientes: report.clientes },
    meta: { limit: query.limit, offset: query.offset, total: report.total },
  };
}
