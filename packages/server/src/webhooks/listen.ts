import { notFound } from '../errors.js';
import { decodeCursor, encodeCursor } from '../http/cursor.js';
import { isUuid } from '../ids.js';
import { IN_HISTORY } from '../repositories/events.js';
import { mayReceive } from '../services/event-catalog.js';
import type { KeyWithOrg } from '../services/key-store.js';
import type { AppDeps } from '../types.js';
import { deliveryBody } from './delivery-worker.js';

/** POST /test_helpers/listen: opens a session that collects the organization's test events from now on. */
export async function openListenSession(deps: AppDeps, auth: KeyWithOrg) {
  const [row] = await deps.db.query<{ id: string; created_at: Date }>(
    `INSERT INTO listen_sessions (org_id, key_id, from_seq)
     VALUES ($1, $2, (SELECT coalesce(max(seq), 0) FROM events WHERE org_id = $1 AND mode = 'test'))
     RETURNING id, created_at`,
    [auth.org.id, auth.key.id],
  );
  return { id: row!.id, created_at: row!.created_at, status: 'open' };
}

async function session(deps: AppDeps, auth: KeyWithOrg, id: string) {
  const [row] = isUuid(id)
    ? await deps.db.query<{ id: string; from_seq: number; closed_at: Date | null }>(
        'SELECT id, from_seq, closed_at FROM listen_sessions WHERE id = $1 AND key_id = $2',
        [id, auth.key.id],
      )
    : [];
  if (!row) throw notFound('Listen session');
  return row;
}

/**
 * GET /test_helpers/listen/{id}: the events since the session opened (or since `cursor`), oldest
 * first, each exactly as a webhook delivery would carry it.
 */
export async function collectListenSession(
  deps: AppDeps,
  auth: KeyWithOrg,
  id: string,
  cursor: string | undefined,
  limit: number,
) {
  const row = await session(deps, auth, id);
  const after = cursor === undefined ? row.from_seq : Math.max(row.from_seq, decodeCursor(cursor));
  const events = await deps.db.query<{ id: string; seq: number }>(
    `SELECT id, seq FROM events
     WHERE org_id = $1 AND mode = 'test' AND seq > $2 AND ${IN_HISTORY} ORDER BY seq LIMIT $3`,
    [auth.org.id, after, limit],
  );
  const data = [];
  for (const event of events) {
    const body = await deliveryBody(deps.db, event.id, deps.config.publicUrl);
    if (!body) continue;
    const parsed = JSON.parse(body) as { event: string };
    // As an endpoint of the key would: a restricted key hears only what it may read.
    if (mayReceive(auth.key, parsed.event)) data.push(parsed);
  }
  const last = events[events.length - 1];
  return {
    data,
    meta: { status: row.closed_at ? 'closed' : 'open', next_cursor: encodeCursor(last ? last.seq : after) },
  };
}

/** DELETE /test_helpers/listen/{id}: closes the session. */
export async function closeListenSession(deps: AppDeps, auth: KeyWithOrg, id: string) {
  const row = await session(deps, auth, id);
  await deps.db.query('UPDATE listen_sessions SET closed_at = coalesce(closed_at, now()) WHERE id = $1', [
    row.id,
  ]);
  return { id: row.id, status: 'closed' };
}
