import type { Queryable } from '../db/database.js';
import { uuid } from '../ids.js';
import { inScope } from './scope-sql.js';

/** A client of the directory as the API returns it. */
export interface ClientRecord {
  id: string;
  empresa: string;
  contacto: string | null;
  email: string | null;
  telefono: string | null;
  rfc: string | null;
  fiscal: Record<string, string> | null;
  terminos: string | null;
  country_code: string | null;
  created_at: string;
  updated_at: string;
}

/** The fields a client is created or updated with. */
export interface ClientFields {
  empresa?: string;
  contacto?: string | null;
  email?: string | null;
  telefono?: string | null;
  rfc?: string | null;
  fiscal?: Record<string, string> | null;
  terminos?: string | null;
}

const COLUMNS = `id, empresa, contacto, email, telefono, rfc, fiscal, terminos, country_code,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
  to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at`;

type Scope = { orgId: string; mode: string };

/** How a request names its client: by id, or by e-mail (preferred) or company name. */
export type ClientIdentity = { id: string } | { email?: string | null | undefined; empresa: string };

/**
 * The SELECT of the client a request names (see {@link ClientIdentity}): by id, or the oldest with
 * this e-mail, or else with this company name (both case-insensitive); `value` is its placeholder.
 * `extra` adds columns to the select list.
 */
export function clientSql(org: string, mode: string, by: ClientKey, value: string, extra = ''): string {
  const where =
    by === 'id'
      ? `id = ${value}::uuid`
      : by === 'email'
        ? `lower(email) = lower(${value})`
        : `lower(empresa) = lower(${value})`;
  return `SELECT ${COLUMNS}${extra} FROM clients WHERE ${where} AND ${inScope(org, mode)}
    ORDER BY created_at LIMIT 1`;
}

/** What {@link clientSql} looks a client up by. */
export type ClientKey = 'id' | 'email' | 'empresa';

export const clientKey = (identity: ClientIdentity): ClientKey =>
  'id' in identity ? 'id' : identity.email ? 'email' : 'empresa';

/** The placeholder's value for {@link clientSql}. */
export const clientSqlValue = (identity: ClientIdentity): string =>
  'id' in identity ? identity.id : (identity.email ?? identity.empresa);

export async function findClientById(
  db: Queryable,
  scope: Scope,
  id: string,
): Promise<ClientRecord | undefined> {
  return findClient(db, scope, { id });
}

/** The client with this e-mail, or else with this company name (both case-insensitive). */
export async function findClientByIdentity(
  db: Queryable,
  scope: Scope,
  identity: { email?: string | null; empresa: string },
): Promise<ClientRecord | undefined> {
  return findClient(db, scope, identity);
}

async function findClient(db: Queryable, scope: Scope, identity: ClientIdentity) {
  const [row] = await db.query<ClientRecord>(clientSql('$1', '$2', clientKey(identity), '$3'), [
    scope.orgId,
    scope.mode,
    clientSqlValue(identity),
  ]);
  return row;
}

/**
 * The SELECT of how many clients an organization has in a mode; placeholders as SQL. Kept in
 * `client_counts` by triggers (migrations 013 and 023): a few rows read, however large the directory.
 */
export const clientCountSql = (org: string, mode: string) =>
  `SELECT coalesce((SELECT sum(n) FROM client_counts WHERE org_id = ${org} AND mode = ${mode}), 0)::int AS count`;

export async function countClients(db: Queryable, scope: Scope): Promise<number> {
  const [row] = await db.query<{ count: number }>(clientCountSql('$1', '$2'), [scope.orgId, scope.mode]);
  return row?.count ?? 0;
}

/** A client to create inside another statement (see {@link newClientCte}); its id is chosen beforehand. */
export type NewClientRow = Omit<ClientRecord, 'created_at' | 'updated_at'>;

/** The row {@link insertClient} would write for `fields`, with a new id. */
export function newClientRow(id: string, fields: ClientFields & { empresa: string }): NewClientRow {
  return {
    id,
    empresa: fields.empresa,
    contacto: fields.contacto ?? null,
    email: fields.email ?? null,
    telefono: fields.telefono ?? null,
    rfc: fields.rfc ?? fields.fiscal?.tax_id ?? null,
    fiscal: fields.fiscal ?? null,
    terminos: fields.terminos ?? null,
    country_code: fields.fiscal?.country ?? null,
  };
}

/**
 * The `new_client` common table expression: inserts the client given as one JSON parameter
 * (`rowSql`, a {@link NewClientRow}; NULL: none) once for each row of the CTE `after`, so that it is
 * only created when the statement's other writes happen.
 */
export const newClientCte = (scope: { org: string; mode: string }, rowSql: string, after: string) =>
  `new_client AS (
       INSERT INTO clients (id, org_id, mode, empresa, contacto, email, telefono, rfc, fiscal, terminos, country_code)
       SELECT c.id, ${scope.org}, ${scope.mode}, c.empresa, c.contacto, c.email, c.telefono, c.rfc, c.fiscal, c.terminos,
         c.country_code
       FROM ${after}, jsonb_to_record(${rowSql}::jsonb) AS c(id uuid, empresa text, contacto text, email text,
         telefono text, rfc text, fiscal jsonb, terminos text, country_code text)
       WHERE ${rowSql}::jsonb IS NOT NULL
       RETURNING id
     )`;

export async function insertClient(
  db: Queryable,
  scope: Scope,
  fields: ClientFields & { empresa: string },
): Promise<ClientRecord> {
  const row = newClientRow(uuid(), fields);
  const [inserted] = await db.query<ClientRecord>(
    `INSERT INTO clients (id, org_id, mode, empresa, contacto, email, telefono, rfc, fiscal, terminos, country_code)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
    [
      row.id,
      scope.orgId,
      scope.mode,
      row.empresa,
      row.contacto,
      row.email,
      row.telefono,
      row.rfc,
      row.fiscal ? JSON.stringify(row.fiscal) : null,
      row.terminos,
      row.country_code,
    ],
  );
  return inserted!;
}

export async function updateClient(
  db: Queryable,
  scope: Scope,
  id: string,
  fields: ClientFields,
): Promise<ClientRecord | undefined> {
  const has = (name: keyof ClientFields) => Object.hasOwn(fields, name);
  const [row] = await db.query<ClientRecord>(
    `UPDATE clients SET
       empresa = CASE WHEN $4 THEN $5 ELSE empresa END,
       contacto = CASE WHEN $6 THEN $7 ELSE contacto END,
       email = CASE WHEN $8 THEN $9 ELSE email END,
       telefono = CASE WHEN $10 THEN $11 ELSE telefono END,
       rfc = CASE WHEN $12 THEN $13 ELSE rfc END,
       fiscal = CASE WHEN $14 THEN $15::jsonb ELSE fiscal END,
       country_code = CASE WHEN $14 THEN $15::jsonb->>'country' ELSE country_code END,
       terminos = CASE WHEN $16 THEN $17 ELSE terminos END,
       updated_at = now()
     WHERE id = $3 AND ${inScope('$1', '$2')}
     RETURNING ${COLUMNS}`,
    [
      scope.orgId,
      scope.mode,
      id,
      has('empresa'),
      fields.empresa ?? null,
      has('contacto'),
      fields.contacto ?? null,
      has('email'),
      fields.email ?? null,
      has('telefono'),
      fields.telefono ?? null,
      has('rfc'),
      fields.rfc ?? null,
      has('fiscal'),
      fields.fiscal ? JSON.stringify(fields.fiscal) : null,
      has('terminos'),
      fields.terminos ?? null,
    ],
  );
  return row;
}

export async function listClients(
  db: Queryable,
  scope: Scope,
  page: { limit: number; offset: number },
): Promise<{ records: ClientRecord[]; total: number }> {
  const records = await db.query<ClientRecord>(
    // By the stored timestamp, which clients_list holds in this order: `created_at` alone would
    // name the formatted text of the select list, which no index holds.
    `SELECT ${COLUMNS} FROM clients WHERE org_id = $1 AND mode = $2
     ORDER BY clients.created_at DESC, clients.id LIMIT $3 OFFSET $4`,
    [scope.orgId, scope.mode, page.limit, page.offset],
  );
  return { records, total: await countClients(db, scope) };
}

/** The client's summary carried by `client.*` events. */
export function clientEventData(client: ClientRecord) {
  return {
    object: 'client',
    id: client.id,
    empresa: client.empresa,
    contacto: client.contacto,
    email: client.email,
    telefono: client.telefono,
    rfc: client.rfc,
    terminos: client.terminos,
    country_code: client.country_code,
  };
}

/** A client as the API answers it: its row, named by `object` as every record is. */
export const clientRecord = <T extends object>(client: T) => ({ object: 'client' as const, ...client });
