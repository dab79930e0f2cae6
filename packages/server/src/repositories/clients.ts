import type { Queryable } from '../db/database.js';

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

export async function findClientById(
  db: Queryable,
  scope: Scope,
  id: string,
): Promise<ClientRecord | undefined> {
  const [row] = await db.query<ClientRecord>(
    `SELECT ${COLUMNS} FROM clients WHERE org_id = $1 AND mode = $2 AND id = $3`,
    [scope.orgId, scope.mode, id],
  );
  return row;
}

/** The client with this e-mail, or else with this company name (both case-insensitive). */
export async function findClientByIdentity(
  db: Queryable,
  scope: Scope,
  identity: { email?: string | null; empresa: string },
): Promise<ClientRecord | undefined> {
  const [row] = identity.email
    ? await db.query<ClientRecord>(
        `SELECT ${COLUMNS} FROM clients WHERE org_id = $1 AND mode = $2 AND lower(email) = lower($3)
         ORDER BY created_at LIMIT 1`,
        [scope.orgId, scope.mode, identity.email],
      )
    : await db.query<ClientRecord>(
        `SELECT ${COLUMNS} FROM clients WHERE org_id = $1 AND mode = $2 AND lower(empresa) = lower($3)
         ORDER BY created_at LIMIT 1`,
        [scope.orgId, scope.mode, identity.empresa],
      );
  return row;
}

export async function countClients(db: Queryable, scope: Scope): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM clients WHERE org_id = $1 AND mode = $2',
    [scope.orgId, scope.mode],
  );
  return row?.n ?? 0;
}

export async function insertClient(
  db: Queryable,
  scope: Scope,
  fields: ClientFields & { empresa: string },
): Promise<ClientRecord> {
  const [row] = await db.query<ClientRecord>(
    `INSERT INTO clients (org_id, mode, empresa, contacto, email, telefono, rfc, fiscal, terminos, country_code)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
    [
      scope.orgId,
      scope.mode,
      fields.empresa,
      fields.contacto ?? null,
      fields.email ?? null,
      fields.telefono ?? null,
      fields.rfc ?? fields.fiscal?.tax_id ?? null,
      fields.fiscal ? JSON.stringify(fields.fiscal) : null,
      fields.terminos ?? null,
      fields.fiscal?.country ?? null,
    ],
  );
  return row!;
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
     WHERE org_id = $1 AND mode = $2 AND id = $3
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
    `SELECT ${COLUMNS} FROM clients WHERE org_id = $1 AND mode = $2 ORDER BY created_at DESC, id LIMIT $3 OFFSET $4`,
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
