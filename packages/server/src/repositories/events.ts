import type { Queryable } from '../db/database.js';

/** A change to record in the event history, in the same transaction as the change itself. */
export interface NewEvent {
  orgId: string;
  mode: 'test' | 'live';
  type: string;
  object: 'quote' | 'client' | 'product' | 'webhook_endpoint' | 'invoice' | 'promise' | 'task' | 'workflow';
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

/** SQL expressions (parameters, literals or columns of `from`) for the columns of a new event. */
export interface EventSql {
  type: string;
  object: string;
  objectId: string;
  data: string;
  /** A CTE the values are selected from: no row there, no event. */
  from?: string;
  /** When `from` has several rows, what orders their events (their `seq` follows it). */
  orderBy?: string;
  /** Who caused it, when not the statement's actor. */
  actor?: string;
}

/**
 * The `event` and `jobs` common table expressions that write events in the order given (so their
 * `seq` follows it), the transactional outbox every delivery starts from, and in the same statement
 * fan each out to the organization's active endpoints that want it: a delivery exists exactly when
 * its event committed. Select {@link NOTIFY_IF_JOBS} from the statement to wake webhook workers at
 * commit.
 */
export function eventCtes(scope: { org: string; mode: string; actor: string }, events: EventSql[]): string {
  const rows = events
    .map(
      (e, ord) =>
        `SELECT ${ord} AS ord, ${e.orderBy ?? '0'}::bigint AS sub, ${e.type}::text AS type, ${e.object}::text AS object, ${e.objectId}::uuid AS object_id,
           ${e.data}::jsonb AS data, ${e.actor ?? scope.actor}::text AS actor${e.from ? ` FROM ${e.from}` : ''}`,
    )
    .join(' UNION ALL ');
  return `event AS (
       INSERT INTO events (org_id, mode, type, object, object_id, data, actor)
       SELECT ${scope.org}, ${scope.mode}, e.type, e.object, e.object_id, e.data, e.actor
       FROM (${rows}) e${events.length > 1 || events.some((e) => e.orderBy) ? ' ORDER BY e.ord, e.sub' : ''}
       RETURNING id, type
     ), jobs AS (
       INSERT INTO webhook_jobs (endpoint_id, event_id)
       SELECT endpoint.id, event.id FROM webhook_endpoints endpoint, event
       WHERE endpoint.org_id = ${scope.org} AND endpoint.mode = ${scope.mode} AND endpoint.status = 'active'
         AND (cardinality(endpoint.eventos) = 0 OR event.type = ANY(endpoint.eventos))
       RETURNING 1
     )`;
}

/**
 * The condition of the events that are the organization's history: a test helper's ping or sample
 * went to one endpoint only (`GET /events` and listen sessions leave it out).
 */
export const IN_HISTORY = `object <> 'webhook_endpoint'`;

/** Wakes the webhook workers of every process at commit, only when deliveries were queued. */
export const NOTIFY_IF_JOBS = `(SELECT pg_notify('${EVENTS_CHANNEL}', '') FROM jobs LIMIT 1)::text`;

/** The event's data as stored: never a credential such as `link_publico`. */
export function storedEventData(data: Record<string, unknown>): string {
  return JSON.stringify(withoutCredentials(data));
}

/** The event's data without credentials, as an object (see {@link storedEventData}). */
export function withoutCredentials(data: Record<string, unknown>): Record<string, unknown> {
  const { link_publico: _credential, ...stored } = data;
  return stored;
}

/**
 * The CTEs that write one event and queue its deliveries ({@link eventCtes}), with its values as
 * the statement's parameters numbered from `first`: for {@link insertEvent}, and for a statement
 * that writes its event along with its own work.
 */
export function eventStatement(event: NewEvent, first: number): { ctes: string; values: unknown[] } {
  const $ = (n: number) => `$${first + n}`;
  return {
    ctes: eventCtes({ org: $(0), mode: $(1), actor: $(6) }, [
      { type: $(2), object: $(3), objectId: $(4), data: $(5) },
    ]),
    values: [
      event.orgId,
      event.mode,
      event.type,
      event.object,
      event.objectId,
      storedEventData(event.data),
      event.actor,
    ],
  };
}

/** Writes one event and queues its deliveries, in one statement (see {@link eventCtes}). */
export async function insertEvent(tx: Queryable, event: NewEvent): Promise<string> {
  const { ctes, values } = eventStatement(event, 1);
  const [row] = await tx.query<{ id: string }>(
    `WITH ${ctes}
     SELECT event.id, ${NOTIFY_IF_JOBS} AS notified FROM event`,
    values,
  );
  return row!.id;
}

/** Newest first, optionally by type and object, after the cursor's position. */
export async function listEvents(
  db: Queryable,
  query: {
    orgId: string;
    mode: string;
    type?: string;
    /** Only these types (a restricted key's), when given. */
    types?: readonly string[];
    objectId?: string;
    beforeSeq?: number;
    limit: number;
  },
): Promise<{ records: EventRecord[]; lastSeq: number | null; more: boolean }> {
  const rows = await db.query<EventRecord & { seq: number }>(
    `SELECT id, seq, type, object, object_id, data, actor,
            to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
     FROM events
     WHERE org_id = $1 AND mode = $2
       AND ${IN_HISTORY}
       AND ($3::text IS NULL OR type = $3)
       AND ($4::uuid IS NULL OR object_id = $4)
       AND ($5::bigint IS NULL OR seq < $5)
       AND ($7::text[] IS NULL OR type = ANY($7))
     ORDER BY seq DESC
     LIMIT $6`,
    [
      query.orgId,
      query.mode,
      query.type ?? null,
      query.objectId ?? null,
      query.beforeSeq ?? null,
      query.limit + 1,
      query.types ?? null,
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
