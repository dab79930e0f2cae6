import type { ClienteRequest } from '@svc/core';
import { invalidState, notFound } from '../errors.js';
import {
  type ClientFields,
  type ClientRecord,
  clientEventData,
  countClients,
  findClientById,
  insertClient,
  updateClient,
} from '../repositories/clients.js';
import { insertEvent } from '../repositories/events.js';
import { inScope } from '../repositories/scope-sql.js';
import type { AppDeps } from '../types.js';
import type { KeyWithOrg } from './key-store.js';
import { assertRoomFor } from './plans.js';
import { apiActor } from './quotes.js';

/** POST /clientes: adds a client to the directory (402 over the plan's number of clients). */
export async function createClient(
  deps: AppDeps,
  auth: KeyWithOrg,
  body: ClienteRequest & { terminos?: string | null },
) {
  const scope = { orgId: auth.org.id, mode: auth.key.mode };
  return deps.db.transaction(async (tx) => {
    await assertRoomFor(tx, 'clients', scope, auth.org.plan, () => countClients(tx, scope));
    const client = await insertClient(tx, scope, {
      ...body,
      fiscal: (body.fiscal as Record<string, string> | undefined) ?? null,
    });
    await insertEvent(tx, {
      orgId: scope.orgId,
      mode: auth.key.mode,
      type: 'client.created',
      object: 'client',
      objectId: client.id,
      data: clientEventData(client),
      actor: apiActor(auth),
    });
    return client;
  });
}

/** PATCH /clientes/{id}: changes contact data. */
export async function patchClient(deps: AppDeps, auth: KeyWithOrg, id: string, fields: ClientFields) {
  const scope = { orgId: auth.org.id, mode: auth.key.mode };
  try {
    return await deps.db.transaction(async (tx) => {
      // The row is locked before it is read, so "what changed" is judged against what it holds.
      await tx.query(`SELECT 1 FROM clients WHERE id = $3 AND ${inScope('$1', '$2')} FOR UPDATE`, [
        scope.orgId,
        scope.mode,
        id,
      ]);
      const before = await findClientById(tx, scope, id);
      if (!before) throw notFound('Client');
      if (Object.keys(fields).length === 0) return before;
      const client = (await updateClient(tx, scope, id, fields))!;
      // Every value as it was: rolled back, so not even updated_at moves, and no event.
      if (sameClient(before, client)) throw new Unchanged(before);
      await insertEvent(tx, {
        orgId: scope.orgId,
        mode: auth.key.mode,
        type: 'client.updated',
        object: 'client',
        objectId: client.id,
        data: clientEventData(client),
        actor: apiActor(auth),
      });
      return client;
    });
  } catch (error) {
    if (error instanceof Unchanged) return error.client;
    throw error;
  }
}

/** Thrown to roll back a patch that changed nothing, carrying the client as it is. */
class Unchanged {
  constructor(readonly client: ClientRecord) {}
}

/** Whether two readings of a client hold the same data, whenever it was last written. */
const sameClient = (a: ClientRecord, b: ClientRecord): boolean =>
  JSON.stringify({ ...a, updated_at: null }) === JSON.stringify({ ...b, updated_at: null });

/**
 * DELETE /clientes/{id}: removes a client no quote or invoice names, with `client.deleted` (id
 * and company only, as the spec gives it). One with documents stays with them: 409 `invalid_state`.
 */
export async function deleteClient(deps: AppDeps, auth: KeyWithOrg, id: string) {
  const scope = { orgId: auth.org.id, mode: auth.key.mode };
  await deps.db.transaction(async (tx) => {
    const [found] = await tx.query<{ empresa: string; documents: boolean }>(
      `SELECT empresa, EXISTS (SELECT 1 FROM quotes WHERE cliente_id = clients.id)
                    OR EXISTS (SELECT 1 FROM invoices WHERE cliente_id = clients.id) AS documents
       FROM clients WHERE id = $3 AND ${inScope('$1', '$2')} FOR UPDATE`,
      [scope.orgId, scope.mode, id],
    );
    if (!found) throw notFound('Client');
    if (found.documents) {
      throw invalidState(
        `Client ${found.empresa} has quotes or invoices and cannot be deleted. Nothing was changed.`,
      );
    }
    await tx.query('DELETE FROM clients WHERE id = $1', [id]);
    await insertEvent(tx, {
      orgId: scope.orgId,
      mode: auth.key.mode,
      type: 'client.deleted',
      object: 'client',
      objectId: id,
      data: { object: 'client', id, empresa: found.empresa },
      actor: apiActor(auth),
    });
  });
  return { id, object: 'client' as const, deleted: true };
}
