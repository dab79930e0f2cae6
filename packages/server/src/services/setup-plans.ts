import type { Queryable } from '../db/database.js';
import { ApiError, invalidRequest, notFound } from '../errors.js';
import { randomBase62 } from '../ids.js';
import { insertEvent } from '../repositories/events.js';
import { countProducts, type ProductRow, productEventData } from '../repositories/products.js';
import { upsertWorkflow } from '../repositories/workflows.js';
import { changesElements, type SetupPlanRequest } from '../schemas/setup-plans.js';
import type { AppDeps } from '../types.js';
import { normalizeOrigin } from './api-keys.js';
import { checkTaxRate } from './fiscal/tax-catalog.js';
import type { KeyWithOrg } from './key-store.js';
import { announceOrgChanged, findOrg, type Org } from './orgs.js';
import { exactMinor } from './payments.js';
import { PLANS, planLimitError } from './plans.js';
import { apiActor } from './quotes.js';

/** How long a proposal waits for a person's decision. */
export const PLAN_LIFETIME_DAYS = 7;

type Status = 'pending_review' | 'applied' | 'rejected' | 'expired' | 'conflict';

/** A stored setup plan. */
interface PlanRow {
  /** An applied plan's rows as they were just before (see {@link snapshotOf}), else null. */
  antes: CurrentSnapshot | null;
  id: string;
  org_id: string;
  mode: 'test' | 'live';
  token: string;
  status: Status;
  resumen: string | null;
  propuesta: SetupPlanRequest;
  cambios: Changes;
  versiones: Versions;
  created_by: string;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
}

interface Changes {
  productos: { crear: number; actualizar: number };
  cupones: { crear: number; actualizar: number };
  workflows: { crear: number };
  elements: boolean;
}

/** The version (`xmin`) of every row the plan would change, as read when it was proposed. */
interface Versions {
  productos: Record<string, string | null>;
  cupones: Record<string, string | null>;
  workflows: Record<string, string | null>;
  org: string | null;
  /** The publishable keys and their origins, when the plan sets origins (absent in older plans). */
  keys?: string | null;
}

const ISO = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${column}`;
const PLAN_COLUMNS = `id, org_id, mode, token, status, resumen, propuesta, cambios, versiones, antes, created_by,
  ${ISO('created_at')}, ${ISO('expires_at')}, ${ISO('decided_at')}`;

/** What the plan would change, as the rows are now: the "before" of the review page. */
export interface CurrentState {
  productos: Map<string, ProductRow & { version: string }>;
  cupones: Map<string, Record<string, unknown> & { version: string }>;
  workflows: Set<string>;
  org: {
    version: string;
    brand_color: string | null;
    widget: Record<string, unknown>;
    origins: string[];
    /** Each publishable key of the mode with its origins: a key made or edited since is a change. */
    keys: string;
  };
}

/** {@link CurrentState} as JSON. */
type CurrentSnapshot = {
  productos: [string, ProductRow & { version: string }][];
  cupones: [string, Record<string, unknown> & { version: string }][];
  workflows: string[];
  org: CurrentState['org'];
};

const snapshotOf = (current: CurrentState): CurrentSnapshot => ({
  productos: [...current.productos],
  cupones: [...current.cupones],
  workflows: [...current.workflows],
  org: current.org,
});

const fromSnapshot = (snapshot: CurrentSnapshot): CurrentState => ({
  productos: new Map(snapshot.productos),
  cupones: new Map(snapshot.cupones),
  workflows: new Set(snapshot.workflows),
  org: snapshot.org,
});

async function readCurrent(
  db: Queryable,
  orgId: string,
  mode: string,
  plan: SetupPlanRequest,
): Promise<CurrentState> {
  const skus = (plan.productos ?? []).map((p) => p.sku.toLowerCase());
  const codes = (plan.cupones ?? []).map((c) => c.code.toLowerCase());
  const names = (plan.workflows ?? []).map((w) => w.nombre);
  const [products, coupons, workflows, orgs, keys] = await Promise.all([
    skus.length
      ? db.query<ProductRow & { version: string }>(
          `SELECT id, sku, nombre, descripcion, unidad, precio_lista, moneda, tax_rate, costo, aliases, clave_sat,
             clave_unidad_sat, activo, fraccionable, xmin::text AS version
           FROM products WHERE org_id = $1 AND mode = $2 AND lower(sku) = ANY($3::text[])`,
          [orgId, mode, skus],
        )
      : [],
    codes.length
      ? db.query<Record<string, unknown> & { code: string; version: string }>(
          // Versioned by what a person edits, not by `xmin`: every use of the coupon rewrites its row
          // (`uses`), and a visitor applying it is no edit the plan conflicts with.
          `SELECT code, tipo, valor, moneda, max_uses, uses, active, ${ISO('expires_at')},
             md5(row(tipo, valor, moneda, max_uses, active, expires_at)::text) AS version
           FROM coupons WHERE org_id = $1 AND mode = $2 AND lower(code) = ANY($3::text[])`,
          [orgId, mode, codes],
        )
      : [],
    names.length
      ? db.query<{ nombre: string }>(
          'SELECT nombre FROM workflows WHERE org_id = $1 AND mode = $2 AND nombre = ANY($3::text[])',
          [orgId, mode, names],
        )
      : [],
    // The colour and features as this mode sees them (test mode's own over the organization's).
    db.query<{ version: string; brand_color: string | null; widget: Record<string, unknown> }>(
      `SELECT xmin::text AS version,
              CASE WHEN $2 = 'test' THEN coalesce(test_settings->>'brand_color', brand_color) ELSE brand_color END
                AS brand_color,
              CASE WHEN $2 = 'test' THEN widget || coalesce(test_settings->'widget', '{}') ELSE widget END AS widget
       FROM orgs WHERE id = $1`,
      [orgId, mode],
    ),
    // Every publishable key of the mode takes the plan's origins: before is all that they allow now,
    // so that the person approving sees each origin that would stop working.
    db.query<{ allowed_origins: string[]; keys: string }>(
      `SELECT coalesce((SELECT array_agg(DISTINCT o ORDER BY o) FROM unnest(k.origins) AS o WHERE o IS NOT NULL), '{}')
                AS allowed_origins,
              md5(coalesce(k.keys, '')) AS keys
       FROM (SELECT array_agg(o) AS origins,
                    string_agg(DISTINCT id::text || ':' || array_to_string(allowed_origins, ' '), ','
                               ORDER BY id::text || ':' || array_to_string(allowed_origins, ' ')) AS keys
             FROM api_keys LEFT JOIN LATERAL unnest(allowed_origins) AS o ON true
             WHERE org_id = $1 AND mode = $2 AND kind = 'publishable' AND revoked_at IS NULL) AS k`,
      [orgId, mode],
    ),
  ]);
  return {
    productos: new Map(products.map((p) => [p.sku.toLowerCase(), p])),
    cupones: new Map(coupons.map((c) => [c.code.toLowerCase(), c])),
    workflows: new Set(workflows.map((w) => w.nombre)),
    org: { ...orgs[0]!, origins: keys[0]?.allowed_origins ?? [], keys: keys[0]?.keys ?? '' },
  };
}

const versionsOf = (plan: SetupPlanRequest, current: CurrentState): Versions => ({
  productos: Object.fromEntries(
    (plan.productos ?? []).map((p) => [
      p.sku.toLowerCase(),
      current.productos.get(p.sku.toLowerCase())?.version ?? null,
    ]),
  ),
  cupones: Object.fromEntries(
    (plan.cupones ?? []).map((c) => [
      c.code.toLowerCase(),
      current.cupones.get(c.code.toLowerCase())?.version ?? null,
    ]),
  ),
  workflows: Object.fromEntries((plan.workflows ?? []).map((w) => [w.nombre, null])),
  org: plan.elements ? current.org.version : null,
  keys: plan.elements?.origins ? current.org.keys : null,
});

/** POST /setup/plans: validates the whole proposal now, stores it, and answers the review URL. */
export async function proposeSetupPlan(deps: AppDeps, auth: KeyWithOrg, body: SetupPlanRequest) {
  if (auth.key.kind !== 'secret') {
    throw new ApiError(403, 'insufficient_scope', 'Setup plans are proposed with a secret key.');
  }
  const { org } = auth;
  const plan: SetupPlanRequest = structuredClone(body);
  (plan.productos ?? []).forEach((p, i) => {
    if (!org.currencies.includes(p.moneda)) {
      throw invalidRequest(
        `productos[${i}].moneda: ${p.moneda} is not a currency of this business (${org.currencies.join(', ')})`,
      );
    }
    exactMinor(p.precio_lista, p.moneda, `productos[${i}].precio_lista`);
    checkTaxRate(org.country, p.tax_rate, `productos[${i}].tax_rate`);
  });
  (plan.cupones ?? []).forEach((c, i) => {
    if (c.moneda && !org.currencies.includes(c.moneda)) {
      throw invalidRequest(
        `cupones[${i}].moneda: ${c.moneda} is not a currency of this business (${org.currencies.join(', ')})`,
      );
    }
  });
  if (plan.elements?.origins) {
    plan.elements.origins = plan.elements.origins.map((origin, i) => {
      try {
        return normalizeOrigin(origin);
      } catch (error) {
        throw invalidRequest(`elements.origins[${i}]: ${(error as Error).message}`);
      }
    });
  }
  const current = await readCurrent(deps.db, org.id, auth.key.mode, plan);
  (plan.cupones ?? []).forEach((c, i) => {
    if (c.tipo !== 'monto') return;
    // An update that leaves the currency out keeps the coupon's; a new amount coupon needs one.
    const { moneda } = keptCouponFields(c, current.cupones.get(c.code.toLowerCase()));
    if (!moneda) throw invalidRequest(`cupones[${i}].moneda: is required for an amount coupon`);
    // An amount is money in its currency: refused, as a price is, rather than rounded when applied.
    exactMinor(c.valor, moneda as string, `cupones[${i}].valor`);
  });
  (plan.workflows ?? []).forEach((w, i) => {
    if (current.workflows.has(w.nombre)) {
      throw invalidRequest(`workflows[${i}].nombre: a workflow named ${w.nombre} already exists`);
    }
  });
  (plan.cupones ?? []).forEach((c, i) => {
    const uses = Number(current.cupones.get(c.code.toLowerCase())?.uses ?? 0);
    if (c.max_uses != null && c.max_uses < uses) {
      throw invalidRequest(
        `cupones[${i}].max_uses: ${c.code} has already been used ${uses} times; max_uses cannot be lower`,
      );
    }
  });
  const count = <T>(items: T[] | undefined, exists: (item: T) => boolean) => ({
    crear: (items ?? []).filter((item) => !exists(item)).length,
    actualizar: (items ?? []).filter(exists).length,
  });
  const cambios: Changes = {
    productos: count(plan.productos, (p) => current.productos.has(p.sku.toLowerCase())),
    cupones: count(plan.cupones, (c) => current.cupones.has(c.code.toLowerCase())),
    workflows: { crear: plan.workflows?.length ?? 0 },
    elements: changesElements(plan.elements),
  };
  if (!(await roomForProducts(deps.db, org, auth.key.mode, cambios.productos.crear))) {
    const limit = PLANS[org.plan].maxProducts;
    throw planLimitError('products', org.plan, limit);
  }
  const expires = new Date(deps.now().getTime() + PLAN_LIFETIME_DAYS * 86_400_000);
  const [row] = await deps.db.query<PlanRow>(
    `INSERT INTO setup_plans (org_id, mode, token, status, resumen, propuesta, cambios, versiones, created_by, expires_at)
     VALUES ($1, $2, $3, 'pending_review', $4, $5, $6, $7, $8, $9) RETURNING ${PLAN_COLUMNS}`,
    [
      org.id,
      auth.key.mode,
      randomBase62(40),
      plan.resumen ?? null,
      JSON.stringify(plan),
      JSON.stringify(cambios),
      JSON.stringify(versionsOf(plan, current)),
      apiActor(auth),
      expires.toISOString(),
    ],
  );
  return planRecord(row!, deps);
}

/**
 * What an update leaves of a product's tax rate: a plan that does not name it keeps it (as it keeps
 * the aliases); `null` names the organization's default.
 */
export const keptTaxRate = (
  proposed: { tax_rate?: number | null },
  existing: { tax_rate: number | null } | undefined,
): number | null => (proposed.tax_rate === undefined ? (existing?.tax_rate ?? null) : proposed.tax_rate);

/** The same for a coupon's currency, use limit and expiry: what the plan does not name stays. */
export function keptCouponFields(
  proposed: { moneda?: string | null; max_uses?: number | null; expires_at?: string | null },
  existing: Record<string, unknown> | undefined,
) {
  const keep = <T>(value: T | undefined, name: string) =>
    value === undefined ? ((existing?.[name] as T | undefined) ?? null) : value;
  return {
    moneda: keep(proposed.moneda, 'moneda'),
    max_uses: keep(proposed.max_uses, 'max_uses'),
    expires_at: keep(proposed.expires_at, 'expires_at'),
  };
}

/** Whether the organization's plan leaves room for `adding` more products in this mode. */
async function roomForProducts(
  db: Queryable,
  org: Org,
  mode: 'test' | 'live',
  adding: number,
): Promise<boolean> {
  if (adding === 0) return true;
  const count = await countProducts(db, { orgId: org.id, mode });
  return count + adding <= PLANS[org.plan].maxProducts;
}

/**
 * A plan as the API answers it; a pending plan past its date reads as `expired`, decided when it
 * expired, whether or not anyone has opened it since.
 */
function planRecord(row: PlanRow, deps: AppDeps) {
  const status = effectiveStatus(row, deps.now());
  return {
    id: row.id,
    object: 'setup_plan' as const,
    status,
    resumen: row.resumen,
    review_url: `${deps.config.publicUrl}/setup/review/${row.token}`,
    expires_at: row.expires_at,
    cambios: row.cambios,
    created_at: row.created_at,
    decided_at: status === 'expired' ? row.expires_at : row.decided_at,
  };
}

const effectiveStatus = (row: Pick<PlanRow, 'status' | 'expires_at'>, now: Date): Status =>
  row.status === 'pending_review' && new Date(row.expires_at).getTime() <= now.getTime()
    ? 'expired'
    : row.status;

/** GET /setup/plans/{id}. */
export async function getSetupPlan(deps: AppDeps, auth: KeyWithOrg, id: string) {
  const [row] = await deps.db.query<PlanRow>(
    `SELECT ${PLAN_COLUMNS} FROM setup_plans WHERE id = $1 AND org_id = $2 AND mode = $3`,
    [id, auth.org.id, auth.key.mode],
  );
  if (!row) throw notFound('Setup plan');
  return planRecord(row, deps);
}

/** A plan and what it would change, for the review page (by its token, the credential). */
export async function reviewSetupPlan(deps: AppDeps, token: string) {
  const [row] = await deps.db.query<PlanRow>(`SELECT ${PLAN_COLUMNS} FROM setup_plans WHERE token = $1`, [
    token,
  ]);
  if (!row) return undefined;
  // Applied: the rows now hold the "after"; the "before" is what was kept when it was applied.
  const current = row.antes
    ? fromSnapshot(row.antes)
    : await readCurrent(deps.db, row.org_id, row.mode, row.propuesta);
  return { plan: { ...row, status: effectiveStatus(row, deps.now()) }, current };
}

/** The outcome of a person's decision on the review page. */
export type Decision = 'applied' | 'rejected' | 'expired' | 'conflict' | 'already_decided';

/**
 * Applies a plan whole, in one transaction, or rejects it. Every row it would change must still
 * be the version read at proposal time: otherwise the plan becomes `conflict` and nothing is
 * applied. Events are those of the changes (`product.created`, `product.updated`).
 */
export async function decideSetupPlan(
  deps: AppDeps,
  token: string,
  approve: boolean,
): Promise<Decision | undefined> {
  const outcome = await deps.db.transaction(async (tx) => {
    const [row] = await tx.query<PlanRow>(
      `SELECT ${PLAN_COLUMNS} FROM setup_plans WHERE token = $1 FOR UPDATE`,
      [token],
    );
    if (!row) return undefined;
    const decide = async (status: Status) => {
      await tx.query('UPDATE setup_plans SET status = $2, decided_at = now() WHERE id = $1', [
        row.id,
        status,
      ]);
    };
    if (row.status !== 'pending_review') return { decision: 'already_decided' as const, orgId: row.org_id };
    if (effectiveStatus(row, deps.now()) === 'expired') {
      // Nothing to record: it expired on its date, not when someone came to decide.
      return { decision: 'expired' as const, orgId: row.org_id };
    }
    if (!approve) {
      await decide('rejected');
      return { decision: 'rejected' as const, orgId: row.org_id };
    }
    const current = await readCurrent(tx, row.org_id, row.mode, row.propuesta);
    const now = versionsOf(row.propuesta, current);
    // Compared entry by entry: jsonb keeps its own key order.
    const differ = (a: Record<string, string | null>, b: Record<string, string | null>) =>
      Object.keys(a).length !== Object.keys(b).length ||
      Object.entries(a).some(([key, version]) => b[key] !== version);
    const changed =
      differ(now.productos, row.versiones.productos) ||
      differ(now.cupones, row.versiones.cupones) ||
      (row.propuesta.workflows ?? []).some((w) => current.workflows.has(w.nombre)) ||
      (row.versiones.org !== null && now.org !== row.versiones.org) ||
      // A publishable key made, revoked or given other origins since would take the plan's origins
      // unseen (plans proposed before this check have no `keys`).
      (row.versiones.keys != null && now.keys !== row.versiones.keys) ||
      // Products created since may have filled the plan's allowance the new ones counted on.
      !(await roomForProducts(
        tx,
        (await findOrg(tx, { id: row.org_id }))!,
        row.mode,
        (row.propuesta.productos ?? []).filter((p) => !current.productos.has(p.sku.toLowerCase())).length,
      ));
    if (changed) {
      await decide('conflict');
      return { decision: 'conflict' as const, orgId: row.org_id };
    }
    await applyPlan(tx, row, current);
    await tx.query('UPDATE setup_plans SET antes = $2 WHERE id = $1', [
      row.id,
      JSON.stringify(snapshotOf(current)),
    ]);
    await decide('applied');
    return { decision: 'applied' as const, orgId: row.org_id };
  });
  if (outcome?.decision === 'applied') await announceOrgChanged(deps.db, outcome.orgId);
  return outcome?.decision;
}

async function applyPlan(tx: Queryable, row: PlanRow, current: CurrentState) {
  const { propuesta: plan, org_id: orgId, mode } = row;
  const actor = row.created_by;
  for (const p of plan.productos ?? []) {
    const existing = current.productos.get(p.sku.toLowerCase());
    const [product] = existing
      ? await tx.query<ProductRow>(
          `UPDATE products SET nombre = $2, unidad = $3, precio_lista = $4, moneda = $5, tax_rate = $6,
             aliases = coalesce($7, aliases), updated_at = now()
           WHERE id = $1 RETURNING id, sku, nombre, unidad, precio_lista, activo`,
          [
            existing.id,
            p.nombre,
            p.unidad,
            p.precio_lista,
            p.moneda,
            keptTaxRate(p, existing),
            p.aliases ?? null,
          ],
        )
      : await tx.query<ProductRow>(
          `INSERT INTO products (org_id, mode, sku, nombre, unidad, precio_lista, moneda, tax_rate, aliases)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id, sku, nombre, unidad, precio_lista, activo`,
          [
            orgId,
            mode,
            p.sku,
            p.nombre,
            p.unidad,
            p.precio_lista,
            p.moneda,
            p.tax_rate ?? null,
            p.aliases ?? [],
          ],
        );
    await insertEvent(tx, {
      orgId,
      mode,
      type: existing ? 'product.updated' : 'product.created',
      object: 'product',
      objectId: product!.id,
      data: productEventData(product!),
      actor,
    });
  }
  for (const c of plan.cupones ?? []) {
    const kept = keptCouponFields(c, current.cupones.get(c.code.toLowerCase()));
    const values = [c.tipo, c.valor, kept.moneda, kept.max_uses, kept.expires_at, c.active ?? true];
    if (current.cupones.has(c.code.toLowerCase())) {
      await tx.query(
        `UPDATE coupons SET tipo = $4, valor = $5, moneda = $6, max_uses = $7, expires_at = $8, active = $9
         WHERE org_id = $1 AND mode = $2 AND lower(code) = lower($3)`,
        [orgId, mode, c.code, ...values],
      );
    } else {
      await tx.query(
        `INSERT INTO coupons (org_id, mode, code, tipo, valor, moneda, max_uses, expires_at, active)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [orgId, mode, c.code, ...values],
      );
    }
  }
  for (const workflow of plan.workflows ?? []) await upsertWorkflow(tx, { orgId, mode }, workflow);
  if (plan.elements) {
    const { color, features, origins } = plan.elements;
    // A test-mode plan sets test mode's own colour and features: live keys never see them.
    await tx.query(
      mode === 'test'
        ? `UPDATE orgs SET test_settings = jsonb_build_object(
             'brand_color', coalesce($2, test_settings->>'brand_color'),
             'widget', coalesce(test_settings->'widget', '{}') || $3::jsonb) WHERE id = $1`
        : `UPDATE orgs SET brand_color = coalesce($2, brand_color), widget = widget || $3::jsonb WHERE id = $1`,
      [orgId, color ?? null, JSON.stringify(features ?? {})],
    );
    if (origins) {
      await tx.query(
        `UPDATE api_keys SET allowed_origins = $3
         WHERE org_id = $1 AND mode = $2 AND kind = 'publishable' AND revoked_at IS NULL`,
        [orgId, mode, origins],
      );
    }
  }
}
