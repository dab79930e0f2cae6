import type { Context, Next } from 'hono';
import type { Database } from '../db/database.js';
import { ApiError } from '../errors.js';
import { readBodyBytes } from '../http/json-body.js';
import { sha256 } from '../ids.js';
import type { AppEnv } from '../types.js';

/** 1 to 255 visible ASCII characters. */
const KEY_RE = /^[\x21-\x7e]{1,255}$/;

/** How long a stored response is replayed. */
export const IDEMPOTENCY_TTL_HOURS = 24;

type Reservation = { kind: 'run' } | { kind: 'replay'; status: number; body: string; type: string };

/** Signals that the operation's transaction must roll back although the handler returned. */
class RollBack extends Error {}

/**
 * Runs a POST, PATCH or DELETE that carries `Idempotency-Key` at most once per API key and key.
 *
 * 1. The key is reserved by a committed row (so a concurrent duplicate sees it and gets 409).
 * 2. The operation runs in one transaction that also stores its response: both commit or neither.
 * 3. 4xx responses are stored after the rollback of anything the failed operation wrote; 5xx and
 *    429 are not stored, and the reservation is released so the same key can be retried.
 * 4. A reservation older than `staleSeconds` is presumed abandoned by a dead process and retaken.
 *
 * @param charge - counts the call against the quota; not called for replays.
 */
export async function runIdempotent(
  c: Context<AppEnv>,
  next: Next,
  options: {
    db: Database;
    keyId: string;
    idempotencyKey: string;
    staleSeconds: number;
    charge: () => Promise<void>;
  },
): Promise<Response | undefined> {
  const { db, keyId, idempotencyKey } = options;
  if (!KEY_RE.test(idempotencyKey)) {
    throw new ApiError(
      400,
      'invalid_idempotency_key',
      'Idempotency-Key must be 1 to 255 visible ASCII characters (no spaces).',
    );
  }
  const url = new URL(c.req.url);
  const body = await readBodyBytes(c);
  const fingerprint = sha256(`${c.req.method} ${url.pathname}${url.search}\n${sha256(body)}`);

  const reservation = await reserve(db, keyId, idempotencyKey, fingerprint, options.staleSeconds);
  if (reservation.kind === 'replay') {
    return new Response(reservation.body, {
      status: reservation.status,
      headers: { 'Content-Type': reservation.type, 'Idempotent-Replayed': 'true' },
    });
  }

  let stored = false;
  try {
    await options.charge();
    await db.transaction(async (tx) => {
      await next();
      if (c.res.status >= 400) throw new RollBack();
      const text = await c.res.clone().text();
      await tx.query(
        `UPDATE idempotency_keys SET state = 'done', response_status = $3, response_body = $4, response_type = $5
         WHERE key_id = $1 AND idempotency_key = $2`,
        [keyId, idempotencyKey, c.res.status, text, c.res.headers.get('content-type') ?? 'application/json'],
      );
      stored = true;
    });
  } catch (error) {
    if (!(error instanceof RollBack)) {
      await release(db, keyId, idempotencyKey);
      throw error;
    }
  }
  if (stored) return undefined;
  const status = c.res.status;
  if (status >= 500 || status === 429) {
    await release(db, keyId, idempotencyKey);
  } else {
    await db.query(
      `UPDATE idempotency_keys SET state = 'done', response_status = $3, response_body = $4, response_type = $5
       WHERE key_id = $1 AND idempotency_key = $2`,
      [
        keyId,
        idempotencyKey,
        status,
        await c.res.clone().text(),
        c.res.headers.get('content-type') ?? 'application/json',
      ],
    );
  }
  return undefined;
}

async function reserve(
  db: Database,
  keyId: string,
  idempotencyKey: string,
  fingerprint: string,
  staleSeconds: number,
): Promise<Reservation> {
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await db.query(
        `INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, state)
         VALUES ($1, $2, $3, 'in_progress')
         ON CONFLICT (key_id, idempotency_key) DO NOTHING RETURNING 1`,
        [keyId, idempotencyKey, fingerprint],
      );
      if (inserted.length > 0) return { kind: 'run' };

      // An expired entry is replaced as if it had never been; the condition makes one taker win.
      const renewed = await db.query(
        `UPDATE idempotency_keys SET fingerprint = $3, state = 'in_progress', locked_at = now(), created_at = now(),
           response_status = NULL, response_body = NULL, response_type = NULL
         WHERE key_id = $1 AND idempotency_key = $2 AND created_at < now() - make_interval(hours => $4)
         RETURNING 1`,
        [keyId, idempotencyKey, fingerprint, IDEMPOTENCY_TTL_HOURS],
      );
      if (renewed.length > 0) return { kind: 'run' };

      const [row] = await db.query<{
        fingerprint: string;
        state: string;
        response_status: number | null;
        response_body: string | null;
        response_type: string | null;
      }>(
        `SELECT fingerprint, state, response_status, response_body, response_type
         FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2`,
        [keyId, idempotencyKey],
      );
      if (!row) continue; // released meanwhile: try to reserve again
      if (row.fingerprint !== fingerprint) {
        throw new ApiError(
          422,
          'idempotency_key_reused',
          'This Idempotency-Key was already used with a different body, method or route.',
        );
      }
      if (row.state === 'done') {
        return {
          kind: 'replay',
          status: row.response_status!,
          body: row.response_body!,
          type: row.response_type!,
        };
      }
      const retaken = await db.query(
        `UPDATE idempotency_keys SET locked_at = now()
         WHERE key_id = $1 AND idempotency_key = $2 AND state = 'in_progress'
           AND locked_at < now() - make_interval(secs => $3)
         RETURNING 1`,
        [keyId, idempotencyKey, staleSeconds],
      );
      if (retaken.length > 0) return { kind: 'run' };
      throw new ApiError(
        409,
        'idempotency_in_progress',
        'A request with this Idempotency-Key is still being processed. Retry shortly.',
      );
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError(
      503,
      'idempotency_unavailable',
      'The Idempotency-Key could not be reserved; nothing ran. Retry later.',
    );
  }
  throw new ApiError(
    503,
    'idempotency_unavailable',
    'The Idempotency-Key could not be reserved; nothing ran. Retry later.',
  );
}

async function release(db: Database, keyId: string, idempotencyKey: string): Promise<void> {
  await db
    .query(
      `DELETE FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2 AND state = 'in_progress'`,
      [keyId, idempotencyKey],
    )
    .catch(() => {
      // The database is gone: the stale reservation will be retaken after staleSeconds.
    });
}
