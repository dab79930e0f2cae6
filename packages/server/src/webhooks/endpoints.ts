import { API_VERSION } from '../config.js';
import type { Queryable } from '../db/database.js';
import { ApiError, invalidState, notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import { insertEvent } from '../repositories/events.js';
import { EVENT_TYPES, eventResource, mayReceive } from '../services/event-catalog.js';
import type { KeyWithOrg } from '../services/key-store.js';
import type { AppDeps } from '../types.js';
import { type EndpointRow, endpointRecord } from './repository.js';
import { sampleEventData } from './samples.js';
import { newWebhookSecret } from './signing.js';
import { checkWebhookUrl, systemResolver } from './url-guard.js';

/** Endpoints an organization may create through the API, on every plan. */
export const API_ENDPOINT_ALLOWANCE = 100;

const own = async (deps: AppDeps, auth: KeyWithOrg, id: string): Promise<EndpointRow> => {
  const [row] = isUuid(id)
    ? await deps.db.query<EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = $1 AND key_id = $2', [
        id,
        auth.key.id,
      ])
    : [];
  // Endpoints of another key or made in the panel do not exist for this key.
  if (!row) throw notFound('Webhook endpoint');
  return row;
};

/** POST /webhooks: a new endpoint; its secret is shown in clear this once. */
export async function createEndpoint(
  deps: AppDeps,
  auth: KeyWithOrg,
  body: { url: string; eventos: string[] },
) {
  const verdict = await checkWebhookUrl(
    body.url,
    deps.webhookResolver ?? systemResolver,
    deps.config.unsafeAllowLoopbackWebhooks,
  );
  if (!verdict.ok) throw new ApiError(400, 'invalid_url', verdict.reason);
  // Endpoints belong to the key that made them: one made by a key on its way out would outlive
  // it with no key to list or delete it.
  if (auth.key.replaced_by) {
    throw new ApiError(
      409,
      'invalid_state',
      `This key was rotated: create webhook endpoints with its replacement (${auth.key.replaced_by}).`,
    );
  }
  // A restricted key subscribes only to what it may read: an event carries its record's data.
  const refused = body.eventos.find((type) => !mayReceive(auth.key, type));
  if (refused) {
    throw new ApiError(
      403,
      'insufficient_scope',
      `eventos: this restricted key has no read permission on ${eventResource(refused)}, so it cannot receive ${refused}.`,
    );
  }
  // No list means every event: for a restricted key, every event it may read, named.
  const eventos =
    body.eventos.length === 0 && auth.key.kind === 'restricted'
      ? EVENT_TYPES.filter((type) => type !== 'ping' && mayReceive(auth.key, type))
      : body.eventos;
  // Stored empty, the list would mean every event again.
  if (eventos.length === 0 && auth.key.kind === 'restricted') {
    throw new ApiError(
      403,
      'insufficient_scope',
      'This restricted key may read no resource whose events it could receive.',
    );
  }
  const secret = newWebhookSecret();
  return deps.db.transaction(async (tx) => {
    // One at a time per organization, so the allowance holds under concurrent creations.
    await tx.query('SELECT 1 FROM orgs WHERE id = $1 FOR UPDATE', [auth.org.id]);
    const [count] = await tx.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE org_id = $1',
      [auth.org.id],
    );
    if ((count?.n ?? 0) >= API_ENDPOINT_ALLOWANCE) {
      throw new ApiError(
        403,
        'integration_limit_reached',
        `An organization can create ${API_ENDPOINT_ALLOWANCE} webhook endpoints through the API.`,
        {
          limit: API_ENDPOINT_ALLOWANCE,
        },
      );
    }
    const [row] = await tx.query<EndpointRow>(
      `INSERT INTO webhook_endpoints (org_id, mode, key_id, url, eventos, secret, api_version)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [
        auth.org.id,
        auth.key.mode,
        auth.key.id,
        // As given (it parsed and passed the checks): the record shows the URL that was sent.
        body.url.trim(),
        [...new Set(eventos)],
        secret,
        API_VERSION,
      ],
    );
    return { ...endpointRecord(row!), secret };
  });
}

/** A page of the calling key's endpoints, oldest first, and how many it has. */
export async function listEndpoints(
  deps: AppDeps,
  auth: KeyWithOrg,
  page: { limit: number; offset: number },
) {
  const rows = await deps.db.query<EndpointRow & { total: number }>(
    `SELECT *, count(*) OVER ()::int AS total FROM webhook_endpoints WHERE key_id = $1
     ORDER BY created_at, id LIMIT $2 OFFSET $3`,
    [auth.key.id, page.limit, page.offset],
  );
  const total = rows[0]?.total ?? (page.offset > 0 ? await countEndpoints(deps, auth) : 0);
  return { data: rows.map(endpointRecord), total };
}

const countEndpoints = async (deps: AppDeps, auth: KeyWithOrg) =>
  (
    await deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints WHERE key_id = $1', [
      auth.key.id,
    ])
  )[0]!.n;

export async function deleteEndpoint(deps: AppDeps, auth: KeyWithOrg, id: string) {
  const endpoint = await own(deps, auth, id);
  await deps.db.query('DELETE FROM webhook_endpoints WHERE id = $1', [endpoint.id]);
  return { id: endpoint.id, deleted: true };
}

/** New secret; the old one keeps signing too for the overlap (1, 24 or 72 hours). */
export async function rotateSecret(deps: AppDeps, auth: KeyWithOrg, id: string, overlapHours: 1 | 24 | 72) {
  const endpoint = await own(deps, auth, id);
  const secret = newWebhookSecret();
  const until = new Date(deps.now().getTime() + overlapHours * 3_600_000);
  const [row] = await deps.db.query<EndpointRow>(
    `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = $2, secret = $3 WHERE id = $1 RETURNING *`,
    [endpoint.id, until, secret],
  );
  return { ...endpointRecord(row!), secret };
}

/** Active again; with `retryLast24h`, what failed or was cancelled in the last 24 h is requeued. */
export async function reactivate(deps: AppDeps, auth: KeyWithOrg, id: string, retryLast24h: boolean) {
  const endpoint = await own(deps, auth, id);
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    // Only a disabled endpoint is reactivated (the spec's states): on an active one it would reset
    // the failure streak, and five failures in a row would never disable it.
    const [row] = await tx.query<EndpointRow>(
      `UPDATE webhook_endpoints SET status = 'active', disabled_reason = NULL, failure_streak = 0
       WHERE id = $1 AND status = 'disabled' RETURNING *`,
      [endpoint.id],
    );
    if (!row) {
      throw invalidState(
        `Only a disabled endpoint can be reactivated; this one is ${endpoint.status}. Nothing was changed.`,
      );
    }
    let requeued = 0;
    if (retryLast24h) {
      const jobs = await tx.query(
        `UPDATE webhook_jobs SET state = 'pending', attempt_base = attempts, next_at = $2, manual = false, finished_at = NULL
         WHERE endpoint_id = $1 AND state IN ('failed', 'cancelled')
           AND coalesce(finished_at, created_at) > $2::timestamptz - interval '24 hours'
         RETURNING id`,
        [endpoint.id, now],
      );
      requeued = jobs.length;
      await tx.query(`SELECT pg_notify('svc_events', '')`);
    }
    return { ...endpointRecord(row!), requeued };
  });
}

/** The delivery log of an endpoint: each attempt's status, duration and response excerpt. */
export async function listDeliveries(deps: AppDeps, auth: KeyWithOrg, id: string, limit: number) {
  const endpoint = await own(deps, auth, id);
  return deps.db.query(
    `SELECT a.id AS delivery_id, j.id AS job_id, 'evt_' || replace(j.event_id::text, '-', '') AS event_id, e.type AS event,
            a.attempt, a.status_code, a.ok, a.duration_ms, a.response_excerpt, a.error, j.state AS job_state,
            to_char(a.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
     FROM webhook_attempts a JOIN webhook_jobs j ON j.id = a.job_id JOIN events e ON e.id = j.event_id
     WHERE j.endpoint_id = $1 ORDER BY a.created_at DESC LIMIT $2`,
    [endpoint.id, limit],
  );
}

/**
 * A disabled endpoint is sent nothing (the worker cancels what is queued to it), so a test or a
 * manual retry to it is refused rather than answered as queued: 409, until it is reactivated. The
 * endpoint's row is read with a share lock, so a disable that commits meanwhile (the worker locks
 * the row for it) waits for this request's job, which it then cancels with the other pending ones.
 */
async function assertActive(tx: Queryable, endpoint: EndpointRow): Promise<void> {
  const [row] = await tx.query<{ status: string }>(
    'SELECT status FROM webhook_endpoints WHERE id = $1 FOR SHARE',
    [endpoint.id],
  );
  if (!row) throw notFound('Webhook endpoint');
  if (row.status !== 'active') {
    throw invalidState(
      `This webhook endpoint is disabled: reactivate it first (POST /webhooks/${endpoint.id}/reactivate). Nothing was queued.`,
    );
  }
}

/** Manual retry: the identical payload (same event id) once more; a failure counts toward health. */
export async function retryJob(deps: AppDeps, auth: KeyWithOrg, id: string, jobId: string) {
  const endpoint = await own(deps, auth, id);
  if (!isUuid(jobId)) throw notFound('Delivery');
  await deps.db.transaction(async (tx) => {
    const [known] = await tx.query('SELECT 1 FROM webhook_jobs WHERE id = $1 AND endpoint_id = $2', [
      jobId,
      endpoint.id,
    ]);
    if (!known) throw notFound('Delivery');
    await assertActive(tx, endpoint);
    const [job] = await tx.query(
      `UPDATE webhook_jobs SET state = 'pending', next_at = $3, manual = true, finished_at = NULL
       WHERE id = $1 AND endpoint_id = $2 AND state IN ('succeeded', 'failed', 'cancelled') RETURNING id`,
      [jobId, endpoint.id, deps.now()],
    );
    if (!job) throw invalidState('This delivery has not finished yet: it is retried on its own schedule.');
  });
  await deps.db.notify('svc_events', '');
  return { job_id: jobId, queued: true };
}

/** POST /test_helpers/webhooks: a `ping` (or a sample of an event type) to one endpoint. */
export async function fireTest(deps: AppDeps, auth: KeyWithOrg, id: string, type: string) {
  const endpoint = await own(deps, auth, id);
  return deps.db.transaction(async (tx) => {
    await assertActive(tx, endpoint);
    const eventId = await insertEvent(tx, {
      orgId: auth.org.id,
      mode: auth.key.mode,
      type: `__test__${type}`,
      object: 'webhook_endpoint',
      objectId: endpoint.id,
      data: sampleEventData(type, auth.org),
      actor: `api:${auth.key.id}`,
    });
    // The event is a test: only this endpoint gets it, under its real name.
    await tx.query(`UPDATE events SET type = $2 WHERE id = $1`, [eventId, type]);
    await tx.query('DELETE FROM webhook_jobs WHERE event_id = $1', [eventId]);
    const [job] = await tx.query<{ id: string }>(
      `INSERT INTO webhook_jobs (endpoint_id, event_id, manual) VALUES ($1, $2, true) RETURNING id`,
      [endpoint.id, eventId],
    );
    return { job_id: job!.id, event_id: `evt_${eventId.replaceAll('-', '')}`, event: type };
  });
}
