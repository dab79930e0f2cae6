import type { Queryable } from '../db/database.js';

/** A webhook endpoint as stored. */
export interface EndpointRow {
  id: string;
  org_id: string;
  mode: 'test' | 'live';
  key_id: string;
  url: string;
  eventos: string[];
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  status: 'active' | 'disabled';
  disabled_reason: string | null;
  failure_streak: number;
  warned_at: Date | null;
  created_at: Date;
}

/** An endpoint as the API shows it: never the secret. */
export function endpointRecord(e: EndpointRow) {
  return {
    id: e.id,
    url: e.url,
    eventos: e.eventos,
    status: e.status,
    disabled_reason: e.disabled_reason,
    failure_streak: e.failure_streak,
    secret_rotation_ends_at: e.previous_secret_expires_at,
    created_at: e.created_at,
  };
}

/**
 * Fans an event out to the organization's active endpoints that want it, in the transaction that
 * writes the event: a delivery exists exactly when its event committed.
 */
export async function queueDeliveries(
  tx: Queryable,
  event: { id: string; orgId: string; mode: string; type: string },
): Promise<void> {
  await tx.query(
    `INSERT INTO webhook_jobs (endpoint_id, event_id)
     SELECT id, $1 FROM webhook_endpoints
     WHERE org_id = $2 AND mode = $3 AND status = 'active' AND (cardinality(eventos) = 0 OR $4 = ANY(eventos))`,
    [event.id, event.orgId, event.mode, event.type],
  );
}
