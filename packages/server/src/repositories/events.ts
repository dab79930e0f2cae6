import type { Queryable } from '../db/database.js';

/** A change to record in the event history, in the same transaction as the change itself. */
export interface NewEvent {
  orgId: string;
  mode: 'test' | 'live';
  type: string;
  object: 'quote' | 'client' | 'product' | 'webhook_endpoint';
  objectId: string;
  /** Summary of the object; never a credential such as `link_publico`. */
  data: Record<string, unknown>;
  /** `api:<key id>`, `client` or `system`. */
  actor: string;
}

/** An event history record as GET /events returns it. */
export interface EventRecord {
  id: string;
  type: string;
  object: string;
  object_id: string;
  data: Record<string, unknown>;
  actor: string;
  created_at: string;
}

/** Channel that wakes webhook workers when events commit. */
export const EVENTS_CHANNEL = 'svc_events';

/**
 * Writes one event row, the transactional outbox every delivery starts from, and in the same
 * statement fans it out to the organization's active endpoints that want it: a delivery exists
 * exactly when its event committed. Webhook workers on every process are woken at commit, and only
 * when there is something to deliver.
 */
export async function insertEvent(tx: Queryable, event: NewEvent): Promise<string> {
  const { link_publico: _credential, ...data } = event.data;
  const [row] = await tx.query<{ id: string; notified: unknown }>(
    `WITH event AS (
       INSERT INTO events (org_id, mode, type, object, object_id, data, actor)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id
     ), jobs AS (
       INSERT INTO webhook_jobs (endpoint_id, event_id)
       SELECT endpoint.id, event.id FROM webhook_endpoints endpoint, event
       WHERE endpoint.org_id = $1 AND endpoint.mode = $2 AND endpoint.status = 'active'
         AND (cardinality(endpoint.eventos) = 0 OR $3 = ANY(endpoint.eventos))
       RETURNING 1
     )
     SELECT event.id, (SELECT pg_notify('${EVENTS_CHANNEL}', '') FROM jobs LIMIT 1)::text AS notified
     FROM event`,
    [event.orgId, event.mode, event.type, event.object, event.objectId, JSON.stringify(data), event.actor],
  );
  return row!.id;
}

/** Newest first, optionally by type and object, after the cursor's position. */
export async function listEvents(
  db: Queryable,
  query: { orgId: string; mode: string; type?: string; objectId?: string; beforeSeq?: number; limit: number },
): Promise<{ records: EventRecord[]; lastSeq: number | null; more: boolean }> {
  const rows = await db.query<EventRecord & { seq: number }>(
    `SELECT id, seq, type, object, object_id, data, actor,
            to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
     FROM events
     WHERE org_id = $1 AND mode = $2
       AND ($3::text IS NULL OR type = $3)
       AND ($4::uuid IS NULL OR object_id = $4)
       AND ($5::bigint IS NULL OR seq < $5)
     ORDER BY seq DESC
     LIMIT $6`,
    [
      query.orgId,
      query.mode,
      query.type ?? null,
      query.objectId ?? null,
      query.beforeSeq ?? null,
      query.limit + 1,
    ],
  );
  const more = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  return {
    records: page.map(({ seq: _seq, ...record }) => record),
    lastSeq: page.length > 0 ? page[page.length - 1]!.seq : null,
    more,
  };
}
