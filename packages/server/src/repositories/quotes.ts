import type { PaymentPlan } from '@svc/core';
import type { Queryable } from '../db/database.js';
import { type NewClientRow, newClientCte } from './clients.js';
import { COUPON_CLAIMED, claimCouponCte } from './coupons.js';
import { eventCtes, NOTIFY_IF_JOBS, storedEventData } from './events.js';
import { inScope } from './scope-sql.js';

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
  /** The payment plan; null is cash (`contado`). */
  plan_pagos: PaymentPlan | null;
  /** Sum of the payments registered on the quote. */
  pagado: number;
  approved_at: string | null;
  /** Who accepted it on the quote page (design.md section 14); read by the detail and the PDF. */
  aceptacion: Acceptance | null;
  /** The client's reason for rejecting it on the quote page, if given. */
  motivo_rechazo: string | null;
}

/** The electronic acceptance recorded when a client approves on the quote page. */
export interface Acceptance {
  nombre: string;
  email: string;
  fecha: string;
  ip: string | null;
}

/** A quote line as stored. */
export interface QuoteItemRow {
  /** Set when read back; a line about to be written has none yet. */
  id?: string;
  /** Left out by the client's partial approval: shown, not counted (read back only). */
  declinada?: boolean;
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

/** Every status a quote can be in (design.md section 5). */
export const QUOTE_STATUSES = [
  'draft',
  'sent',
  'viewed',
  'approved',
  'rejected',
  'expired',
  'paid',
  'invoiced',
] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];

type Scope = { orgId: string; mode: string };

const COLUMNS = `id, seq, org_id, mode, folio, cliente_id, cliente_nombre, status, moneda, fiscal_currency, iva_incluido,
  terminos_codigo, vigencia_dias, to_char(vigencia, 'YYYY-MM-DD') AS vigencia, notas, descuento_solicitado, cupon,
  coupon_id, subtotal, descuento, impuestos, total, token, draft_language, language, needs_approval, approval_status,
  motivo, created_by,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
  to_char(sent_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS sent_at, plan_pagos, pagado,
  to_char(approved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS approved_at, aceptacion, motivo_rechazo`;

/** The quote, locked for update when `lock` is set (actions read then change it). */
export async function findQuote(
  db: Queryable,
  scope: Scope,
  id: string,
  lock = false,
): Promise<QuoteRow | undefined> {
  const [row] = await db.query<QuoteRow>(
    `SELECT ${COLUMNS} FROM quotes WHERE id = $3 AND ${inScope('$1', '$2')}${lock ? ' FOR UPDATE' : ''}`,
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
    `SELECT id, position, descripcion, cantidad, unidad, precio_unitario, precio_negociado, costo_unitario, producto_id, sku,
       tax_rate, exemption_reason, clave_sat, clave_unidad_sat, importe, descuento, impuesto, declinada
     FROM quote_items WHERE quote_id = $1 ORDER BY position`,
    [quoteId],
  );
}

export type NewQuote = Omit<
  QuoteRow,
  | 'id'
  | 'seq'
  | 'folio'
  | 'created_at'
  | 'sent_at'
  | 'vigencia'
  | 'language'
  | 'plan_pagos'
  | 'pagado'
  | 'approved_at'
  | 'aceptacion'
  | 'motivo_rechazo'
>;

/** The column names of a record definition such as {@link ITEM_RECORD} (`name type, …`). */
const columnNames = (record: string) => record.split(',').map((column) => column.trim().split(' ')[0]!);

/**
 * The columns a new quote is inserted with besides `org_id`, `mode` and `folio`, and their types:
 * in the order of {@link insertQuote}'s parameters $3…$24, and read from JSON by a batch.
 */
export const NEW_QUOTE_RECORD = `cliente_id uuid, cliente_nombre text, status text, moneda text, fiscal_currency text,
  iva_incluido boolean, terminos_codigo text, vigencia_dias float8, notas text, descuento_solicitado jsonb, cupon text,
  coupon_id uuid, subtotal numeric, descuento numeric, impuestos numeric, total numeric, token text,
  draft_language text, needs_approval boolean, approval_status text, motivo text, created_by text`;
export const NEW_QUOTE_COLUMNS = columnNames(NEW_QUOTE_RECORD);

/** The columns of a line and their types, to read lines sent as one JSON parameter. */
export const ITEM_RECORD = `position integer, descripcion text, cantidad numeric, unidad text, precio_unitario numeric,
  precio_negociado numeric, costo_unitario numeric, producto_id uuid, sku text, tax_rate numeric,
  exemption_reason text, clave_sat text, clave_unidad_sat text, importe numeric, descuento numeric, impuesto numeric`;
export const ITEM_COLUMNS = columnNames(ITEM_RECORD).join(', ');
// Qualified: next to the quote's own columns, `descuento` and others would be ambiguous.
export const ITEM_VALUES = columnNames(ITEM_RECORD)
  .map((column) => `item.${column}`)
  .join(', ');

/** What else the statement that inserts a quote does (see {@link insertQuote}). */
export interface InsertQuoteOptions {
  /** When the quote's coupon (`coupon_id`) must still be valid; its use is counted here. */
  now: Date;
  /** Data of the `quote.created` event, besides `id` and `folio`, which the statement adds. */
  eventData: Record<string, unknown>;
  /** The quote's client when it is new: created by the same statement, with `client.created` first. */
  newClient?: { row: NewClientRow; eventData: Record<string, unknown> } | undefined;
}

/**
 * Creates a quote in one statement, atomic on its own and issued last when it runs in a
 * transaction: counts the coupon's use, takes the organization's next folio in this mode
 * (COT-000001, COT-000002…), creates the client when it is new, inserts the quote and its lines,
 * and records `client.created` and `quote.created` with their webhook deliveries. The coupon and
 * folio rows every creation updates stay locked only until the statement (or its transaction)
 * ends. Returns undefined, having written nothing, when the coupon had no use left.
 */
export async function insertQuote(
  db: Queryable,
  quote: NewQuote,
  items: QuoteItemRow[],
  options: InsertQuoteOptions,
): Promise<QuoteRow | undefined> {
  const newClient = options.newClient;
  const [row] = await db.query<Generated & { notified: unknown }>(
    newClient ? INSERT_WITH_NEW_CLIENT : INSERT_FOR_KNOWN_CLIENT,
    [
      quote.org_id,
      quote.mode,
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
      JSON.stringify(items),
      options.now,
      storedEventData(options.eventData),
      ...(newClient ? [JSON.stringify(newClient.row), storedEventData(newClient.eventData)] : []),
    ],
  );
  if (!row) return undefined;
  const { notified: _notified, ...generated } = row;
  return storedQuote(quote, generated);
}

/** The quote as stored: what was inserted and what the database generated. */
export function storedQuote(quote: NewQuote, generated: Generated): QuoteRow {
  // The rest is stored as given: reading it back would only cost the database and the driver.
  // The quote's own columns spread last, into a literal: in V8 a spread after another spread, or
  // followed by more properties, copies property by property, ~30 µs for these ~36 (0.5 µs so).
  return {
    id: generated.id,
    seq: generated.seq,
    folio: generated.folio,
    created_at: generated.created_at,
    vigencia: null,
    language: null,
    sent_at: null,
    plan_pagos: null,
    pagado: 0,
    approved_at: null,
    aceptacion: null,
    motivo_rechazo: null,
    ...quote,
  };
}

/** The SQL of folio `n` of an organization in a mode: COT-000001 and on. */
export const folioSql = (n: string) =>
  `'COT-' || CASE WHEN ${n} < 1000000 THEN lpad(${n}::text, 6, '0') ELSE ${n}::text END`;

/** The columns the database fills in when a quote is inserted. */
export type Generated = Pick<QuoteRow, 'id' | 'seq' | 'folio' | 'created_at'>;
export const GENERATED_COLUMNS = `id, seq, folio,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at`;

function buildInsertQuoteSql(newClient: boolean): string {
  const scope = { org: '$1', mode: '$2' };
  const quoteCreated = {
    type: "'quote.created'",
    object: "'quote'",
    objectId: 'quote.id',
    data: "$27::jsonb || jsonb_build_object('id', quote.id, 'folio', quote.folio)",
    from: 'quote',
  };
  // Two variants of the statement rather than one whose client CTE inserts nothing: the common
  // case (a known client) then starts fewer plan nodes on every creation.
  return `WITH ${claimCouponCte('$14::uuid', '$26::timestamptz')}, counter AS (
       INSERT INTO folio_counters (org_id, mode, last) SELECT $1, $2, 1 WHERE ${COUPON_CLAIMED('$14::uuid')}
       ON CONFLICT (org_id, mode) DO UPDATE SET last = folio_counters.last + 1 RETURNING last
     ), ${newClient ? `${newClientCte(scope, '$28', 'counter')}, ` : ''}quote AS (
       INSERT INTO quotes (org_id, mode, folio, ${NEW_QUOTE_COLUMNS.join(', ')})
       SELECT $1, $2, ${folioSql('last')},
         $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24
       FROM counter
       RETURNING ${GENERATED_COLUMNS}
     ), lines AS (
       INSERT INTO quote_items (quote_id, ${ITEM_COLUMNS})
       SELECT quote.id, ${ITEM_VALUES} FROM quote, jsonb_to_recordset($25::jsonb) AS item(${ITEM_RECORD})
     ), ${eventCtes(
       { ...scope, actor: '$24' },
       newClient
         ? [
             {
               type: "'client.created'",
               object: "'client'",
               objectId: 'new_client.id',
               data: '$29',
               from: 'new_client',
             },
             quoteCreated,
           ]
         : [quoteCreated],
     )}
     SELECT quote.*, ${NOTIFY_IF_JOBS} AS notified FROM quote`;
}

// Built once, at load: the driver finds the prepared statement by its text, and hashing a fresh
// string of some kilobytes on every creation showed in profiles.
const INSERT_FOR_KNOWN_CLIENT = buildInsertQuoteSql(false);
const INSERT_WITH_NEW_CLIENT = buildInsertQuoteSql(true);

/** Replaces the lines of a quote. */
export async function replaceQuoteItems(
  tx: Queryable,
  quoteId: string,
  items: QuoteItemRow[],
): Promise<void> {
  await tx.query(
    `WITH removed AS (DELETE FROM quote_items WHERE quote_id = $1)
     INSERT INTO quote_items (quote_id, ${ITEM_COLUMNS})
     SELECT $1, ${ITEM_COLUMNS} FROM jsonb_to_recordset($2::jsonb) AS item(${ITEM_RECORD})`,
    [quoteId, JSON.stringify(items)],
  );
}

/** What a partial approval decides for one line: left out, or kept with its recomputed amounts. */
export interface LineDecision {
  id: string;
  declinada: boolean;
  importe: number;
  descuento: number;
  impuesto: number;
}

/** Marks the lines a client declined and stores the recomputed amounts of the rest, in one statement. */
export async function applyLineDecisions(
  tx: Queryable,
  quoteId: string,
  decisions: LineDecision[],
): Promise<void> {
  await tx.query(
    `UPDATE quote_items AS line
     SET declinada = d.declinada, importe = d.importe, descuento = d.descuento, impuesto = d.impuesto
     FROM jsonb_to_recordset($2::jsonb) AS d(id uuid, declinada boolean, importe numeric, descuento numeric, impuesto numeric)
     WHERE line.quote_id = $1 AND line.id = d.id`,
    [quoteId, JSON.stringify(decisions)],
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
      | 'aceptacion'
      | 'motivo_rechazo'
      | 'pagado'
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
    params.push(column === 'aceptacion' && value ? JSON.stringify(value) : value);
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
  // Only the filters asked for: a prepared statement with `($3 IS NULL OR status = $3)` gets one
  // generic plan for every case, and counting through it reads each row of the organization
  // instead of the list index alone.
  const base: unknown[] = [scope.orgId, scope.mode];
  const conditions = ['org_id = $1', 'mode = $2'];
  for (const [column, value] of [
    ['status', query.status],
    ['folio', query.folio],
    ['cliente_id', query.clienteId],
  ] as const) {
    if (value === undefined) continue;
    base.push(value);
    conditions.push(`${column} = $${base.length}`);
  }
  const filters = conditions.join(' AND ');
  const params = [...base];
  let seqCondition = '';
  if (query.beforeSeq !== undefined) {
    params.push(query.beforeSeq);
    seqCondition = ` AND seq < $${params.length}`;
  }
  params.push(query.limit + 1, query.beforeSeq === undefined ? query.offset : 0);
  // The page and the total in one statement (the count is an InitPlan, run once); an empty page
  // returns no row to carry it. An empty first page means none matched when it was read, so its
  // total is 0 (counted apart, a quote made since would be counted on a page that shows none);
  // only beyond the first page is it counted apart. Without filters the total comes from the folio
  // counter (folios taken less drafts deleted), not from counting every quote.
  const totalSql =
    base.length === 2
      ? 'SELECT last - deleted FROM folio_counters WHERE org_id = $1 AND mode = $2'
      : `SELECT count(*)::int FROM quotes WHERE ${filters}`;
  const rows = await db.query<QuoteRow & { total_matching: number }>(
    `SELECT ${COLUMNS}, (${totalSql}) AS total_matching
     FROM quotes WHERE ${filters}${seqCondition}
     ORDER BY seq DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  );
  const firstPage = query.offset === 0 && query.beforeSeq === undefined;
  let total = rows[0]?.total_matching ?? (firstPage ? 0 : undefined);
  if (total === undefined) {
    const [count] = await db.query<{ n: number }>(`SELECT (${totalSql}) AS n`, base);
    total = count?.n ?? 0;
  }
  const page = rows.slice(0, query.limit).map(({ total_matching: _total, ...row }) => row);
  return { rows: page, total, more: rows.length > query.limit };
}

/**
 * Deletes a quote, counting it on its folio counter, which gives the unfiltered list its total, and
 * keeping its public link for the deliveries of its events (migration 025).
 */
export async function deleteQuote(tx: Queryable, id: string): Promise<void> {
  await tx.query(
    `WITH gone AS (DELETE FROM quotes WHERE id = $1 RETURNING id, org_id, mode, token),
     kept AS (INSERT INTO removed_quote_links (quote_id, token) SELECT id, token FROM gone)
     UPDATE folio_counters SET deleted = deleted + 1 FROM gone
     WHERE folio_counters.org_id = gone.org_id AND folio_counters.mode = gone.mode`,
    [id],
  );
}
