import { readCollections, receivablesVersion } from '../repositories/collections.js';
import type { AppDeps } from '../types.js';
import { freshReads } from './fresh-reads.js';
import type { KeyWithOrg } from './key-store.js';
import { isoDay } from './payments.js';

type Report = Awaited<ReturnType<typeof readCollections>>;

/** Reports computed by this process, per database, by organization, mode, day, filters and page. */
const cache = new WeakMap<object, Map<string, Report>>();
const MAX_REPORTS = 500;
/** The book's version, one read for the requests that ask while another is under way. */
const versionReads = new WeakMap<object, (scope: { orgId: string; mode: string }) => Promise<number>>();
/** Reports being computed, by the key and book version they were asked at (see below). */
const computing = new WeakMap<object, Map<string, Promise<Report>>>();

/**
 * GET /cobranza (design.md section 12): accounts receivable as of today, per currency (never
 * converted), with aging buckets that add up to `por_cobrar`, and the clients ordered by overdue
 * then balance. A report computed at the book's current version (see migration 016) is served
 * from memory after one primary-key read, which the requests that arrive while one is under way
 * share ({@link freshReads}); any change to the book, on any process, moves the
 * version and the next request computes it again. The requests that find the report stale at
 * one version wait for one computation of it: after a payment, 50 concurrent requests each ran
 * the whole report (120–480 ms each, in a burst measured on the bench's book of 10,000 invoices).
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
  // Read even with no report kept, so that a request never joins a computation begun before a
  // change it made; then the report, which one computed meanwhile may have replaced.
  const inTransaction = deps.db.inTransaction();
  const version = inTransaction
    ? await receivablesVersion(deps.db, scope)
    : await sharedVersionRead(deps)(scope);
  let report = reports.get(key);
  // Versions only grow (nothing deletes their row but the organization's deletion): a report
  // kept at a newer one than this request read is fresh enough for it.
  if (!report || report.version < version) {
    // Inside a transaction (an MCP tool's, say) what it reads may not be committed: neither kept
    // nor shared.
    report = inTransaction
      ? await readCollections(deps.db, scope, { ...query, asOf })
      : await computeOnce(deps, reports, key, version, () =>
          readCollections(deps.db, scope, { ...query, asOf }),
        );
  }
  return {
    data: { as_of: asOf, monedas: report.monedas, clientes: report.clientes },
    meta: { limit: query.limit, offset: query.offset, total: report.total },
  };
}

/**
 * The report of `key` computed once for every request that asked at the same book version (its
 * statement begins after they read it, so it is at least as new), then kept; a failure is not
 * kept, so the next request tries again.
 */
async function computeOnce(
  deps: AppDeps,
  reports: Map<string, Report>,
  key: string,
  version: number,
  compute: () => Promise<Report>,
): Promise<Report> {
  let pending = computing.get(deps.db);
  if (!pending) {
    pending = new Map();
    computing.set(deps.db, pending);
  }
  const asked = `${key}|${version}`;
  let computation = pending.get(asked);
  if (!computation) {
    computation = compute().finally(() => pending.delete(asked));
    pending.set(asked, computation);
  }
  const report = await computation;
  // Two versions' computations may finish out of order: keep the newer.
  if ((reports.get(key)?.version ?? -1) > report.version) return report;
  reports.delete(key);
  reports.set(key, report);
  if (reports.size > MAX_REPORTS) reports.delete(reports.keys().next().value!);
  return report;
}

/** The version reads of `deps.db`, shared per organization and mode. */
function sharedVersionRead(deps: AppDeps) {
  let read = versionReads.get(deps.db);
  if (!read) {
    read = freshReads(
      (scope: { orgId: string; mode: string }) => receivablesVersion(deps.db, scope),
      (scope) => `${scope.orgId}|${scope.mode}`,
    );
    versionReads.set(deps.db, read);
  }
  return read;
}
