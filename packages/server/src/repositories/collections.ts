import type { Queryable } from '../db/database.js';

/** One currency of GET /cobranza: never converted into another. */
export interface CurrencyReceivables {
  moneda: string;
  por_cobrar: number;
  vencido: number;
  antiguedad: { al_corriente: number; d1_30: number; d31_60: number; d61_90: number; mas_90: number };
}

/** One client's receivables in one currency. */
export interface ClientReceivables {
  cliente_id: string;
  cliente: string;
  moneda: string;
  saldo: number;
  vencido: number;
  documentos: number;
  vencimiento_mas_antiguo: string | null;
  promesa_pendiente: boolean;
}

/** Filters and paging of GET /cobranza. */
export interface CollectionsQuery {
  /** The day receivables are aged at (`YYYY-MM-DD`). */
  asOf: string;
  limit: number;
  offset: number;
  clienteId?: string | undefined;
  moneda?: string | undefined;
}

/** Days of a payment term code in SQL (`net30` → 30; `contado` and null → 0). */
const termDays = (code: string) => `CASE WHEN ${code} LIKE 'net%' THEN substr(${code}, 4)::int ELSE 0 END`;

/**
 * The receivable documents, one row each (`cliente_id`, `moneda`, `saldo`, `vence`): approved
 * quotes with a balance (an invoiced quote is `invoiced`, so these have no invoice), due on their
 * approval date plus the terms the quote gives the client (its `terminos`: the client's unless the
 * quote was given others; the client's own when it has none), as its `calendario` and its invoice
 * date it; and open and uncollectible invoices, due on their
 * `vence`, owing what neither payments nor credit notes covered (read from the partial index
 * `invoices_receivable_by_client` alone). `$1` org, `$2` mode; `filters` are conditions on
 * `{t}.cliente_id` and `{t}.moneda`, the same for each part.
 */
export const receivableDocuments = (filters: string) => `
  SELECT q.cliente_id, q.moneda, q.total - q.pagado AS saldo,
    (q.approved_at AT TIME ZONE 'UTC')::date + ${termDays('coalesce(q.terminos_codigo, c.terminos)')} AS vence
  FROM quotes q JOIN clients c ON c.id = q.cliente_id
  WHERE q.org_id = $1 AND q.mode = $2 AND q.status = 'approved' AND q.total > q.pagado${filters.replaceAll('{t}', 'q')}
  UNION ALL
  SELECT f.cliente_id, f.moneda, f.total - f.pagado - f.acreditado AS saldo, f.vence
  FROM invoices f
  WHERE f.org_id = $1 AND f.mode = $2 AND f.estado IN ('open', 'uncollectible')
    AND f.total > f.pagado + f.acreditado${filters.replaceAll('{t}', 'f')}`;

/**
 * Accounts receivable as of a day, in one statement: the totals and aging buckets per currency,
 * and a page of clients (per client and currency) ordered by overdue then balance, descending,
 * with how many there are.
 */
export async function readCollections(
  db: Queryable,
  scope: { orgId: string; mode: string },
  query: CollectionsQuery,
): Promise<{
  monedas: CurrencyReceivables[];
  clientes: ClientReceivables[];
  total: number;
  version: number;
}> {
  const params: unknown[] = [scope.orgId, scope.mode, query.asOf, query.limit, query.offset];
  let filters = '';
  if (query.clienteId !== undefined) {
    params.push(query.clienteId);
    filters += ` AND {t}.cliente_id = $${params.length}`;
  }
  if (query.moneda !== undefined) {
    params.push(query.moneda);
    filters += ` AND {t}.moneda = $${params.length}`;
  }
  const bucket = (condition: string) => `coalesce(sum(saldo) FILTER (WHERE ${condition}), 0)`;
  const [row] = await db.query<{
    monedas: CurrencyReceivables[];
    clientes: ClientReceivables[];
    total: number;
    version: number;
  }>(
    `WITH docs AS MATERIALIZED (
       SELECT cliente_id, moneda, saldo, vence, $3::date - vence AS dias FROM (${receivableDocuments(filters)}) d
     ), per_client AS MATERIALIZED (
       SELECT cliente_id, moneda, sum(saldo) AS saldo, ${bucket('dias > 0')} AS vencido, count(*)::int AS documentos,
         min(vence) AS vencimiento_mas_antiguo
       FROM docs GROUP BY cliente_id, moneda
     ), page AS (
       SELECT * FROM per_client ORDER BY vencido DESC, saldo DESC, cliente_id, moneda LIMIT $4 OFFSET $5
     )
     SELECT ${VERSION_SQL} AS version,
       (SELECT coalesce(json_agg(m ORDER BY m.moneda), '[]'::json) FROM (
          SELECT moneda, sum(saldo) AS por_cobrar, ${bucket('dias > 0')} AS vencido,
            json_build_object('al_corriente', ${bucket('dias <= 0')}, 'd1_30', ${bucket('dias BETWEEN 1 AND 30')},
              'd31_60', ${bucket('dias BETWEEN 31 AND 60')}, 'd61_90', ${bucket('dias BETWEEN 61 AND 90')},
              'mas_90', ${bucket('dias > 90')}) AS antiguedad
          FROM docs GROUP BY moneda) m) AS monedas,
       (SELECT count(*)::int FROM per_client) AS total,
       (SELECT coalesce(json_agg(json_build_object(
          'cliente_id', p.cliente_id, 'cliente', c.empresa, 'moneda', p.moneda, 'saldo', p.saldo,
          'vencido', p.vencido, 'documentos', p.documentos,
          'vencimiento_mas_antiguo', to_char(p.vencimiento_mas_antiguo, 'YYYY-MM-DD'),
          'promesa_pendiente', EXISTS (
            SELECT 1 FROM payment_promises pr JOIN quotes q ON q.id = pr.quote_id
            WHERE pr.org_id = $1 AND pr.mode = $2 AND pr.estado = 'pending' AND q.cliente_id = p.cliente_id
              AND q.moneda = p.moneda))
          ORDER BY p.vencido DESC, p.saldo DESC, p.cliente_id, p.moneda), '[]'::json)
        FROM page p JOIN clients c ON c.id = p.cliente_id) AS clientes`,
    params,
  );
  return {
    monedas: row!.monedas.map((m) => ({
      ...m,
      por_cobrar: Number(m.por_cobrar),
      vencido: Number(m.vencido),
      antiguedad: Object.fromEntries(
        Object.entries(m.antiguedad).map(([k, v]) => [k, Number(v)]),
      ) as CurrencyReceivables['antiguedad'],
    })),
    clientes: row!.clientes.map((c) => ({ ...c, saldo: Number(c.saldo), vencido: Number(c.vencido) })),
    total: row!.total,
    version: Number(row!.version),
  };
}

// In the report's own statement, so the version is the one of the snapshot the report was read in.
const VERSION_SQL =
  '(SELECT coalesce(max(version), 0) FROM receivables_versions WHERE org_id = $1 AND mode = $2)';

/** The version of an organization's receivable book in a mode (0 before any change). */
export async function receivablesVersion(
  db: Queryable,
  scope: { orgId: string; mode: string },
): Promise<number> {
  const [row] = await db.query<{ version: number }>(`SELECT ${VERSION_SQL} AS version`, [
    scope.orgId,
    scope.mode,
  ]);
  return Number(row?.version ?? 0);
}
