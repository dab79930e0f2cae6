import type { Queryable } from '../db/database.js';
import { type ClientRecord, clientSql } from './clients.js';
import { eventCtes, eventStatement, type NewEvent, NOTIFY_IF_JOBS, storedEventData } from './events.js';
import type { QuoteItemRow } from './quotes.js';
import { inScope } from './scope-sql.js';

/** `estado` of an invoice (design.md section 11). */
export type InvoiceState = 'draft' | 'open' | 'paid' | 'void' | 'uncollectible';
export const INVOICE_STATES: readonly InvoiceState[] = ['draft', 'open', 'paid', 'void', 'uncollectible'];

/** `estado_fiscal` of an invoice. */
export type FiscalState = 'not_applicable' | 'pending' | 'stamped' | 'rejected' | 'cancelled';

/** An invoice row as stored. */
export interface InvoiceRow {
  id: string;
  seq: number;
  org_id: string;
  mode: 'test' | 'live';
  numero: string | null;
  token: string;
  estado: InvoiceState;
  estado_fiscal: FiscalState;
  motivo_fiscal: string | null;
  folio_fiscal: string | null;
  pais: string;
  tipo: 'cfdi' | 'commercial';
  moneda: string;
  /** The accounting currency (the quote's `fiscal_currency`, else the organization's). */
  moneda_fiscal: string;
  /** Units of `moneda_fiscal` per unit of `moneda`, declared when issued; null in one currency. */
  tipo_cambio: number | null;
  iva_incluido: boolean;
  descuento_solicitado: { tipo: 'porcentaje' | 'monto'; valor: number } | null;
  subtotal: number;
  descuento: number;
  impuestos: number;
  total: number;
  pagado: number;
  acreditado: number;
  emitida: string | null;
  vence: string | null;
  dias_credito: number;
  metodo_pago: 'PUE' | 'PPD' | null;
  cliente_id: string;
  cliente_nombre: string;
  cotizacion_id: string | null;
  language: string;
  notas: string | null;
  overdue_at: string | null;
  created_by: string;
  created_at: string;
}

/** An invoice line: the same fields as a quote line. */
export type InvoiceItemRow = QuoteItemRow;

export interface InvoicePaymentRow {
  id: string;
  monto: number;
  fecha: string;
  metodo: string;
  referencia: string | null;
  created_at: string;
}

export interface CreditNoteRow {
  id: string;
  numero: string;
  monto: number;
  motivo: string;
  folio_fiscal: string | null;
  created_at: string;
}

type Scope = { orgId: string; mode: string };

const ISO = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${column}`;

const COLUMNS = `id, seq, org_id, mode, numero, token, estado, estado_fiscal, motivo_fiscal, folio_fiscal, pais, tipo,
  moneda, coalesce(moneda_fiscal, moneda) AS moneda_fiscal, tipo_cambio, iva_incluido, descuento_solicitado, subtotal, descuento, impuestos, total, pagado, acreditado,
  to_char(emitida, 'YYYY-MM-DD') AS emitida, to_char(vence, 'YYYY-MM-DD') AS vence, dias_credito, metodo_pago,
  cliente_id, cliente_nombre, cotizacion_id, language, notas, ${ISO('overdue_at')}, created_by, ${ISO('created_at')}`;

/** What a new invoice row needs; the rest is generated or starts at its default. */
export type NewInvoice = Pick<
  InvoiceRow,
  | 'token'
  | 'estado_fiscal'
  | 'pais'
  | 'tipo'
  | 'moneda'
  | 'moneda_fiscal'
  | 'iva_incluido'
  | 'descuento_solicitado'
  | 'subtotal'
  | 'descuento'
  | 'impuestos'
  | 'total'
  | 'vence'
  | 'dias_credito'
  | 'metodo_pago'
  | 'cliente_id'
  | 'cliente_nombre'
  | 'cotizacion_id'
  | 'language'
  | 'notas'
  | 'created_by'
>;

/** Inserts a draft invoice and its lines, in one statement; returns both as they are read. */
export async function insertInvoice(
  tx: Queryable,
  scope: Scope,
  invoice: NewInvoice,
  items: InvoiceItemRow[],
): Promise<{ invoice: InvoiceRow; items: InvoiceItemRow[] }> {
  const [row] = await tx.query<InvoiceRow & { items: InvoiceItemRow[] }>(
    `WITH invoice AS (
       INSERT INTO invoices (org_id, mode, token, estado, estado_fiscal, pais, tipo, moneda, iva_incluido,
         descuento_solicitado, subtotal, descuento, impuestos, total, vence, dias_credito, metodo_pago, cliente_id,
         cliente_nombre, cotizacion_id, language, notas, created_by, moneda_fiscal)
       VALUES ($1, $2, $3, 'draft', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
         $24)
       RETURNING ${COLUMNS}
     ), lines AS (
       INSERT INTO invoice_items (invoice_id, position, descripcion, cantidad, unidad, precio_unitario, precio_negociado,
         costo_unitario, producto_id, sku, tax_rate, exemption_reason, clave_sat, clave_unidad_sat, importe, descuento, impuesto)
       SELECT invoice.id, i.position, i.descripcion, i.cantidad, i.unidad, i.precio_unitario, i.precio_negociado,
         i.costo_unitario, i.producto_id, i.sku, i.tax_rate, i.exemption_reason, i.clave_sat, i.clave_unidad_sat, i.importe,
         i.descuento, i.impuesto
       FROM invoice, jsonb_to_recordset($23::jsonb) AS i(position integer, descripcion text, cantidad numeric, unidad text,
         precio_unitario numeric, precio_negociado numeric, costo_unitario numeric, producto_id uuid, sku text,
         tax_rate numeric, exemption_reason text, clave_sat text, clave_unidad_sat text, importe numeric,
         descuento numeric, impuesto numeric)
       RETURNING ${ITEM_COLUMNS}
     )
     SELECT invoice.*, (SELECT coalesce(json_agg(lines ORDER BY lines.position), '[]') FROM lines) AS items
     FROM invoice`,
    [
      scope.orgId,
      scope.mode,
      invoice.token,
      invoice.estado_fiscal,
      invoice.pais,
      invoice.tipo,
      invoice.moneda,
      invoice.iva_incluido,
      invoice.descuento_solicitado ? JSON.stringify(invoice.descuento_solicitado) : null,
      invoice.subtotal,
      invoice.descuento,
      invoice.impuestos,
      invoice.total,
      invoice.vence,
      invoice.dias_credito,
      invoice.metodo_pago,
      invoice.cliente_id,
      invoice.cliente_nombre,
      invoice.cotizacion_id,
      invoice.language,
      invoice.notas,
      invoice.created_by,
      JSON.stringify(items),
      invoice.moneda_fiscal,
    ],
  );
  // The lines come back as JSON, where numeric columns are numbers already, as the drivers parse them.
  const { items: lines, ...created } = row!;
  return { invoice: created, items: lines };
}

/** The invoice, locked for update when `lock` is set (actions read then change it). */
export async function findInvoice(
  db: Queryable,
  scope: Scope,
  id: string,
  lock = false,
): Promise<InvoiceRow | undefined> {
  const [row] = await db.query<InvoiceRow>(
    `SELECT ${COLUMNS} FROM invoices WHERE id = $3 AND ${inScope('$1', '$2')}${lock ? ' FOR UPDATE' : ''}`,
    [scope.orgId, scope.mode, id],
  );
  return row;
}

/** The invoice a public link's token opens; drafts have no public page. */
export async function findInvoiceByToken(db: Queryable, token: string): Promise<InvoiceRow | undefined> {
  const [row] = await db.query<InvoiceRow>(
    `SELECT ${COLUMNS} FROM invoices WHERE token = $1 AND estado <> 'draft'`,
    [token],
  );
  return row;
}

/** An invoice line's columns, as it is read. */
const ITEM_COLUMNS = `position, descripcion, cantidad, unidad, precio_unitario, precio_negociado, costo_unitario,
  producto_id, sku, tax_rate, exemption_reason, clave_sat, clave_unidad_sat, importe, descuento, impuesto`;

export async function findInvoiceItems(db: Queryable, invoiceId: string): Promise<InvoiceItemRow[]> {
  return db.query<InvoiceItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM invoice_items WHERE invoice_id = $1 ORDER BY position`,
    [invoiceId],
  );
}

/** An invoice's lines and its client, as stamping it reads them, in one statement. */
export async function findStampInputs(
  db: Queryable,
  invoice: Pick<InvoiceRow, 'id' | 'org_id' | 'mode' | 'cliente_id'>,
): Promise<{ items: InvoiceItemRow[]; client: ClientRecord | undefined }> {
  // As JSON, where numeric columns are numbers already, as the drivers parse them.
  const [row] = await db.query<{ items: InvoiceItemRow[]; client: ClientRecord | null }>(
    `SELECT (SELECT coalesce(json_agg(i ORDER BY i.position), '[]')
             FROM (SELECT ${ITEM_COLUMNS} FROM invoice_items WHERE invoice_id = $3) i) AS items,
            (SELECT row_to_json(c) FROM (${clientSql('$1', '$2', 'id', '$4')}) c) AS client`,
    [invoice.org_id, invoice.mode, invoice.id, invoice.cliente_id],
  );
  return { items: row!.items, client: row!.client ?? undefined };
}

export async function findInvoicePayments(db: Queryable, invoiceId: string): Promise<InvoicePaymentRow[]> {
  return db.query<InvoicePaymentRow>(
    `SELECT id, monto, to_char(fecha, 'YYYY-MM-DD') AS fecha, metodo, referencia, ${ISO('created_at')}
     FROM invoice_payments WHERE invoice_id = $1 ORDER BY created_at, id`,
    [invoiceId],
  );
}

export async function findCreditNotes(db: Queryable, invoiceId: string): Promise<CreditNoteRow[]> {
  return db.query<CreditNoteRow>(
    `SELECT id, numero, monto, motivo, folio_fiscal, ${ISO('created_at')}
     FROM credit_notes WHERE invoice_id = $1 ORDER BY created_at, id`,
    [invoiceId],
  );
}

/** The stored CFDI of a stamped invoice. */
export async function findInvoiceXml(db: Queryable, invoiceId: string): Promise<string | null> {
  const [row] = await db.query<{ cfdi_xml: string | null }>('SELECT cfdi_xml FROM invoices WHERE id = $1', [
    invoiceId,
  ]);
  return row?.cfdi_xml ?? null;
}

/** The stamped CFDI of one of an invoice's credit notes, by its number, or null. */
export async function findCreditNoteXml(
  db: Queryable,
  invoiceId: string,
  numero: string,
): Promise<{ xml: string; folio_fiscal: string } | null> {
  const [row] = await db.query<{ cfdi_xml: string | null; folio_fiscal: string | null }>(
    'SELECT cfdi_xml, folio_fiscal FROM credit_notes WHERE invoice_id = $1 AND numero = $2',
    [invoiceId, numero],
  );
  return row?.cfdi_xml && row.folio_fiscal ? { xml: row.cfdi_xml, folio_fiscal: row.folio_fiscal } : null;
}

/**
 * Takes the next number of a kind (`F` invoices, `NC` credit notes) for an organization and mode,
 * inside the caller's transaction: the counter row stays locked until it commits, so numbers are
 * consecutive in commit order and a rolled-back transaction gives its number back.
 */
export async function takeNumber(tx: Queryable, scope: Scope, kind: 'F' | 'NC'): Promise<string> {
  const [row] = await tx.query<{ last: number }>(
    `INSERT INTO invoice_counters (org_id, mode, kind, last) VALUES ($1, $2, $3, 1)
     ON CONFLICT (org_id, mode, kind) DO UPDATE SET last = invoice_counters.last + 1
     RETURNING last`,
    [scope.orgId, scope.mode, kind],
  );
  return `${kind}-${String(row!.last).padStart(6, '0')}`;
}

/** Fields an action may change. */
export type InvoiceChange = Partial<
  Pick<
    InvoiceRow,
    | 'numero'
    | 'estado'
    | 'estado_fiscal'
    | 'motivo_fiscal'
    | 'folio_fiscal'
    | 'emitida'
    | 'vence'
    | 'metodo_pago'
    | 'pagado'
    | 'acreditado'
    | 'overdue_at'
    | 'tipo_cambio'
  > & { cfdi_xml: string | null }
>;

const CHANGEABLE = [
  'numero',
  'estado',
  'estado_fiscal',
  'motivo_fiscal',
  'folio_fiscal',
  'emitida',
  'vence',
  'metodo_pago',
  'pagado',
  'acreditado',
  'overdue_at',
  'tipo_cambio',
  'cfdi_xml',
] as const;

/**
 * Applies a change and returns the row as it is now; with `event`, writes that event (and queues
 * its deliveries) in the same statement, one round trip where finalizing holds the number's row lock.
 */
export async function updateInvoice(
  tx: Queryable,
  id: string,
  change: InvoiceChange,
  event?: NewEvent,
): Promise<InvoiceRow> {
  const names = CHANGEABLE.filter((name) => Object.hasOwn(change, name));
  const sets = names.map((name, index) => `${name} = $${index + 2}`);
  const update = `UPDATE invoices SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1 RETURNING ${COLUMNS}`;
  const values = [id, ...names.map((name) => change[name] ?? null)];
  if (!event) return (await tx.query<InvoiceRow>(update, values))[0]!;
  const written = eventStatement(event, values.length + 1);
  const [row] = await tx.query<InvoiceRow & { notified: unknown }>(
    `WITH updated AS (${update}), ${written.ctes}
     SELECT updated.*, ${NOTIFY_IF_JOBS} AS notified FROM updated`,
    [...values, ...written.values],
  );
  const { notified: _notified, ...invoice } = row!;
  return invoice;
}

/**
 * Issues an invoice whose number is taken by this very statement, with its event: the change and
 * the event carry `slot` where the number's digits go (in `numero`, `F-<slot>`, and the XML's
 * `Folio`), which the statement replaces with the digits it takes. The number's row lock, which
 * every finalization of the organization waits for, is then held for this statement and COMMIT
 * only. For a document whose stamp does not cover its number (the sandbox's, a commercial
 * invoice's, which has none); a real stamp seals the number and takes it first (`takeNumber`).
 */
export async function issueInvoice(
  tx: Queryable,
  scope: Scope,
  id: string,
  change: InvoiceChange,
  slot: string,
  event?: NewEvent,
): Promise<InvoiceRow> {
  const names = CHANGEABLE.filter((name) => name !== 'numero' && Object.hasOwn(change, name));
  const values: unknown[] = [scope.orgId, scope.mode, id, slot, ...names.map((name) => change[name] ?? null)];
  const sets = names.map((name, index) =>
    name === 'cfdi_xml'
      ? `cfdi_xml = replace($${index + 5}, number.slot, number.digits)`
      : `${name} = $${index + 5}`,
  );
  const eventSql = event
    ? `, ${eventCtes({ org: '$1', mode: '$2', actor: `$${values.length + 4}` }, [
        {
          type: `$${values.length + 1}`,
          object: `$${values.length + 2}`,
          objectId: '$3',
          data: `replace($${values.length + 3}, number.slot, number.digits)`,
          from: 'number',
        },
      ])}`
    : '';
  if (event) values.push(event.type, event.object, storedEventData(event.data), event.actor);
  const [row] = await tx.query<InvoiceRow & { notified: unknown }>(
    `WITH number AS (
       INSERT INTO invoice_counters (org_id, mode, kind, last) VALUES ($1, $2, 'F', 1)
       ON CONFLICT (org_id, mode, kind) DO UPDATE SET last = invoice_counters.last + 1
       -- Six digits at least, as takeNumber writes them (lpad alone would cut a seventh).
       RETURNING lpad(last::text, greatest(6, length(last::text)), '0') AS digits, $4::text AS slot
     ), updated AS (
       UPDATE invoices SET numero = 'F-' || number.digits, ${[...sets, 'updated_at = now()'].join(', ')}
       FROM number WHERE invoices.id = $3 RETURNING ${COLUMNS}
     )${eventSql}
     SELECT updated.*, ${event ? NOTIFY_IF_JOBS : 'NULL'} AS notified FROM updated`,
    values,
  );
  const { notified: _notified, ...invoice } = row!;
  return invoice;
}

export async function insertInvoicePayment(
  tx: Queryable,
  invoiceId: string,
  payment: { monto: number; fecha: string; metodo: string; referencia: string | null },
): Promise<void> {
  await tx.query(
    'INSERT INTO invoice_payments (invoice_id, monto, fecha, metodo, referencia) VALUES ($1, $2, $3, $4, $5)',
    [invoiceId, payment.monto, payment.fecha, payment.metodo, payment.referencia],
  );
}

export async function insertCreditNote(
  tx: Queryable,
  invoiceId: string,
  note: {
    numero: string;
    monto: number;
    motivo: string;
    folio_fiscal: string | null;
    cfdi_xml: string | null;
  },
): Promise<void> {
  await tx.query(
    `INSERT INTO credit_notes (invoice_id, numero, monto, motivo, folio_fiscal, cfdi_xml)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [invoiceId, note.numero, note.monto, note.motivo, note.folio_fiscal, note.cfdi_xml],
  );
}

export interface InvoiceListQuery {
  limit: number;
  beforeSeq?: number;
  estado?: InvoiceState;
  clienteId?: string;
}

/** Newest first, after the cursor's position, one more than the page to tell whether more follow. */
export async function listInvoices(
  db: Queryable,
  scope: Scope,
  query: InvoiceListQuery,
): Promise<InvoiceRow[]> {
  return db.query<InvoiceRow>(
    `SELECT ${COLUMNS} FROM invoices
     WHERE org_id = $1 AND mode = $2
       AND ($3::bigint IS NULL OR seq < $3)
       AND ($4::text IS NULL OR estado = $4)
       AND ($5::uuid IS NULL OR cliente_id = $5)
     ORDER BY seq DESC
     LIMIT $6`,
    [
      scope.orgId,
      scope.mode,
      query.beforeSeq ?? null,
      query.estado ?? null,
      query.clienteId ?? null,
      query.limit + 1,
    ],
  );
}

/** Open invoices past their due date that have not been reminded yet (the overdue job). */
export async function findOverdueInvoices(db: Queryable, today: string, limit = 200): Promise<InvoiceRow[]> {
  return db.query<InvoiceRow>(
    `SELECT ${COLUMNS} FROM invoices
     WHERE estado IN ('open', 'uncollectible') AND vence < $1::date AND estado = 'open' AND overdue_at IS NULL
     ORDER BY vence LIMIT $2`,
    [today, limit],
  );
}

/** Takes the forced result of an organization's next sandbox stamping, if any (used once). */
export async function takeFiscalOverride(
  tx: Queryable,
  orgId: string,
): Promise<{ result: 'stamped' | 'rejected' | 'unavailable'; motivo: string | null } | undefined> {
  const [row] = await tx.query<{ result: 'stamped' | 'rejected' | 'unavailable'; motivo: string | null }>(
    'DELETE FROM fiscal_overrides WHERE org_id = $1 RETURNING result, motivo',
    [orgId],
  );
  return row;
}

/**
 * Deletes a forced result again after the transaction it was taken in, which may have rolled back,
 * so that it is used once all the same; a result forced since with another value is left alone.
 */
export async function discardFiscalOverride(
  db: Queryable,
  orgId: string,
  taken: { result: string; motivo: string | null },
): Promise<void> {
  await db.query(
    'DELETE FROM fiscal_overrides WHERE org_id = $1 AND result = $2 AND motivo IS NOT DISTINCT FROM $3',
    [orgId, taken.result, taken.motivo],
  );
}

export async function setFiscalOverride(
  db: Queryable,
  orgId: string,
  result: 'stamped' | 'rejected' | 'unavailable',
  motivo: string | null,
): Promise<void> {
  await db.query(
    `INSERT INTO fiscal_overrides (org_id, result, motivo) VALUES ($1, $2, $3)
     ON CONFLICT (org_id) DO UPDATE SET result = EXCLUDED.result, motivo = EXCLUDED.motivo`,
    [orgId, result, motivo],
  );
}
