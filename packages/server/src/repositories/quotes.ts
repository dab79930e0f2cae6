import type { Queryable } from '../db/database.js';

/** A quote row as stored. */
export interface QuoteRow {
  id: string;
  seq: number;
  org_id: string;
  mode: 'test' | 'live';
  folio: string;
  cliente_id: string;
  cliente_nombre: string;
  status: QuoteStatus;
  moneda: string;
  fiscal_currency: string | null;
  iva_incluido: boolean;
  terminos_codigo: string | null;
  vigencia_dias: number;
  vigencia: string | null;
  notas: string | null;
  descuento_solicitado: { tipo: 'porcentaje' | 'monto'; valor: number } | null;
  cupon: string | null;
  coupon_id: string | null;
  subtotal: number;
  descuento: number;
  impuestos: number;
  total: number;
  token: string;
  draft_language: string;
  language: string | null;
  needs_approval: boolean;
  approval_status: 'pending' | 'approved' | 'rejected' | null;
  motivo: string | null;
  created_by: string;
  created_at: string;
  sent_at: string | null;
}

/** A quote line as stored. */
export interface QuoteItemRow {
  position: number;
  descripcion: string;
  cantidad: number;
  unidad: string | null;
  precio_unitario: number;
  precio_negociado: number | null;
  costo_unitario: number | null;
  producto_id: string | null;
  sku: string | null;
  tax_rate: number;
  exemption_reason: string | null;
  clave_sat: string | null;
  clave_unidad_sat: string | null;
  importe: number;
  descuento: number;
  impuesto: number;
}

export type QuoteStatus =
  | 'draft'
  | 'sent'
  | 'viewed'
  | 'approved'
  | 'rejected'
  | 'expired'
  | 'paid'
  | 'invoiced';
export const QUOTE_STATUSES: readonly QuoteStatus[] = [
  'draft',
  'sent',
  'viewed',
  'approved',
  'rejected',
  'expired',
  'paid',
  'invoiced',
];

type Scope = { orgId: string; mode: string };

const COLUMNS = `id, seq, org_id, mode, folio, cliente_id, cliente_nombre, status, moneda, fiscal_currency, iva_incluido,
  terminos_codigo, vigencia_dias, to_char(vigencia, 'YYYY-MM-DD') AS vigencia, notas, descuento_solicitado, cupon,
  coupon_id, subtotal, descuento, impuestos, total, token, draft_language, language, needs_approval, approval_status,
  motivo, created_by,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
  to_char(sent_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS sent_at`;

/** The quote, locked for update when `lock` is set (actions read then change it). */
export async function findQuote(
  db: Queryable,
  scope: Scope,
  id: string,
  lock = false,
): Promise<QuoteRow | undefined> {
  const [row] = await db.query<QuoteRow>(
    `SELECT ${COLUMNS} FROM quotes WHERE org_id = $1 AND mode = $2 AND id = $3${lock ? ' FOR UPDATE' : ''}`,
    [scope.orgId, scope.mode, id],
  );
  return row;
}

export async function findQuoteByToken(
  db: Queryable,
  token: string,
  lock = false,
): Promise<QuoteRow | undefined> {
  const [row] = await db.query<QuoteRow>(
    `SELECT ${COLUMNS} FROM quotes WHERE token = $1${lock ? ' FOR UPDATE' : ''}`,
    [token],
  );
  return row;
}

export async function findQuoteItems(db: Queryable, quoteId: string): Promise<QuoteItemRow[]> {
  return db.query<QuoteItemRow>(
    `SELECT position, descripcion, cantidad, unidad, precio_unitario, precio_negociado, costo_unitario, producto_id, sku,
       tax_rate, exemption_reason, clave_sat, clave_unidad_sat, importe, descuento, impuesto
     FROM quote_items WHERE quote_id = $1 ORDER BY position`,
    [quoteId],
  );
}

/** The next folio of the organization in this mode: COT-000001, COT-000002… */
export async function nextFolio(tx: Queryable, scope: Scope): Promise<string> {
  const [row] = await tx.query<{ last: number }>(
    `INSERT INTO folio_counters (org_id, mode, last) VALUES ($1, $2, 1)
     ON CONFLICT (org_id, mode) DO UPDATE SET last = folio_counters.last + 1 RETURNING last`,
    [scope.orgId, scope.mode],
  );
  return `COT-${String(row!.last).padStart(6, '0')}`;
}

export type NewQuote = Omit<QuoteRow, 'id' | 'seq' | 'created_at' | 'sent_at' | 'vigencia' | 'language'>;

export async function insertQuote(tx: Queryable, quote: NewQuote): Promise<QuoteRow> {
  const [row] = await tx.query<QuoteRow>(
    `INSERT INTO quotes (org_id, mode, folio, cliente_id, cliente_nombre, status, moneda, fiscal_currency, iva_incluido,
       terminos_codigo, vigencia_dias, notas, descuento_solicitado, cupon, coupon_id, subtotal, descuento, impuestos, total,
       token, draft_language, needs_approval, approval_status, motivo, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)
     RETURNING ${COLUMNS}`,
    [
      quote.org_id,
      quote.mode,
      quote.folio,
      quote.cliente_id,
      quote.cliente_nombre,
      quote.status,
      quote.moneda,
      quote.fiscal_currency,
      quote.iva_incluido,
      quote.terminos_codigo,
      quote.vigencia_dias,
      quote.notas,
      quote.descuento_solicitado ? JSON.stringify(quote.descuento_solicitado) : null,
      quote.cupon,
      quote.coupon_id,
      quote.subtotal,
      quote.descuento,
      quote.impuestos,
      quote.total,
      quote.token,
      quote.draft_language,
      quote.needs_approval,
      quote.approval_status,
      quote.motivo,
      quote.created_by,
    ],
  );
  return row!;
}

/** Replaces the lines of a quote. */
export async function replaceQuoteItems(
  tx: Queryable,
  quoteId: string,
  items: QuoteItemRow[],
): Promise<void> {
  await tx.query('DELETE FROM quote_items WHERE quote_id = $1', [quoteId]);
  if (items.length === 0) return;
  const columns = [
    'position',
    'descripcion',
    'cantidad',
    'unidad',
    'precio_unitario',
    'precio_negociado',
    'costo_unitario',
    'producto_id',
    'sku',
    'tax_rate',
    'exemption_reason',
    'clave_sat',
    'clave_unidad_sat',
    'importe',
    'descuento',
    'impuesto',
  ] as const;
  const params: unknown[] = [quoteId];
  const tuples = items.map((item) => {
    const placeholders = columns.map((column) => {
      params.push(item[column]);
      return `$${params.length}`;
    });
    return `($1, ${placeholders.join(', ')})`;
  });
  await tx.query(
    `INSERT INTO quote_items (quote_id, ${columns.join(', ')}) VALUES ${tuples.join(', ')}`,
    params,
  );
}

/** Changes fields of a quote and returns it as stored afterwards. */
export async function updateQuote(
  tx: Queryable,
  id: string,
  fields: Partial<
    Pick<
      QuoteRow,
      | 'status'
      | 'vigencia'
      | 'language'
      | 'subtotal'
      | 'descuento'
      | 'impuestos'
      | 'total'
      | 'terminos_codigo'
      | 'vigencia_dias'
      | 'approval_status'
      | 'motivo'
    >
  > & { sent_at?: 'now' },
): Promise<QuoteRow> {
  const sets: string[] = [];
  const params: unknown[] = [id];
  for (const [column, value] of Object.entries(fields)) {
    if (column === 'sent_at') {
      sets.push('sent_at = now()');
      continue;
    }
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  }
  sets.push('updated_at = now()');
  const [row] = await tx.query<QuoteRow>(
    `UPDATE quotes SET ${sets.join(', ')} WHERE id = $1 RETURNING ${COLUMNS}`,
    params,
  );
  return row!;
}

/** Filters and paging of GET /cotizaciones. */
export interface QuoteListQuery {
  limit: number;
  offset: number;
  beforeSeq?: number | undefined;
  status?: string | undefined;
  folio?: string | undefined;
  clienteId?: string | undefined;
}

export async function listQuotes(
  db: Queryable,
  scope: Scope,
  query: QuoteListQuery,
): Promise<{ rows: QuoteRow[]; total: number; more: boolean }> {
  const filters = `org_id = $1 AND mode = $2 AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR folio = $4)
    AND ($5::uuid IS NULL OR cliente_id = $5)`;
  const base = [scope.orgId, scope.mode, query.status ?? null, query.folio ?? null, query.clienteId ?? null];
  const rows = await db.query<QuoteRow>(
    `SELECT ${COLUMNS} FROM quotes WHERE ${filters} AND ($6::bigint IS NULL OR seq < $6)
     ORDER BY seq DESC LIMIT $7 OFFSET $8`,
    [...base, query.beforeSeq ?? null, query.limit + 1, query.beforeSeq === undefined ? query.offset : 0],
  );
  const [count] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM quotes WHERE ${filters}`,
    base,
  );
  return { rows: rows.slice(0, query.limit), total: count?.n ?? 0, more: rows.length > query.limit };
}

export async function deleteQuote(tx: Queryable, id: string): Promise<void> {
  await tx.query('DELETE FROM quotes WHERE id = $1', [id]);
}
