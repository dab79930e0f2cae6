import type { ClienteRequest } from '@svc/core';
import { notFound } from '../errors.js';
import {
  type ClientFields,
  clientEventData,
  countClients,
  findClientById,
  insertClient,
  updateClient,
} from '../repositories/clients.js';
import { insertEvent } from '../repositories/events.js';
import type { AppDeps } from '../types.js';
import type { KeyWithOrg } from './key-store.js';
import { PLANS, planLimitError } from './plans.js';
import { apiActor } from './quotes.js';

/** POST /clientes: adds a client to the directory (402 over the plan's number of clients). */
export async function createClient(
  deps: AppDeps,
  auth: KeyWithOrg,
  body: ClienteRequest & { terminos?: string | null },
) {
  const scope = { orgId: auth.org.id, mode: auth.key.mode };
  return deps.db.transaction(async (tx) => {
    const limit = PLANS[auth.org.plan].maxClients;
    if ((await countClients(tx, scope)) >= limit) throw planLimitError('clients', auth.org.plan, limit);
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
  return deps.db.transaction(async (tx) => {
    // An empty patch changes nothing: the client as it is, with no event.
    const empty = Object.keys(fields).length === 0;
    const client = empty ? await findClientById(tx, scope, id) : await updateClient(tx, scope, id, fields);
    if (!client) throw notFound('Client');
    if (empty) return client;
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
}
