import type { Context, Next } from 'hono';
import type { Database } from '../db/database.js';
import { ApiError } from '../errors.js';
import type { AppEnv } from '../types.js';
import {
  IDEMPOTENCY_TTL_HOURS,
  IDEMPOTENCY_WAIT_MS,
  type IdempotentOptions,
  inProgress,
  type Reservation,
  requestFingerprint,
  type StoredRow,
  unavailable,
} from './idempotency.js';
import { type HeldKey, idempotencyLocks, KeyBusy, storedRowSql } from './idempotency-locks.js';

/**
 * An idempotent call whose operation stores its own response, in the statement that makes its
 * writes (see `services/quote-writer.ts`), rather than in a transaction the middleware holds.
 */
export interface IdempotentCall {
  keyId: string;
  idempotencyKey: string;
  fingerprint: string;
  /**
   * Set by the operation once its statement stored the response: the body to send, the very
   * bytes stored, so that a replay is identical.
   */
  storedBody?: string;
}

/** The type the stored responses of idempotent calls carry, as `c.json` sends it. */
export const STORED_RESPONSE_TYPE = 'application/json';

/**
 * Thrown by an operation whose statement found the key's response already stored: a duplicate
 * ran meanwhile (its reservation lost with its connection). The middleware replays that response.
 */
export class StoredMeanwhile extends Error {}

/**
 * Runs a POST that carries `Idempotency-Key` at most once per API key and key, for operations that
 * store their response with their own writes, in one statement that can be shared with other
 * requests' (group commit), so no transaction holds the organization's folio counter across
 * round trips.
 *
 * 1. The key is held by {@link idempotencyLocks}: an in-process map and, on PostgreSQL, a
 *    session-level advisory lock on the process's own connection, which PostgreSQL frees when
 *    the process dies. A duplicate waits up to {@link IDEMPOTENCY_WAIT_MS} for it, then answers
 *    409 `idempotency_in_progress`.
 * 2. Held, the key's stored response, if any, is replayed; else the operation runs with an
 *    {@link IdempotentCall} and stores its success itself. A 4xx is stored after it (nothing was
 *    written but rate counters); 5xx and 429 are not stored, so the key can be retried.
 * 3. The stored response's primary key is written by the operation's statement without ON
 *    CONFLICT: if a duplicate stored one meanwhile, the statement fails and writes nothing
 *    ({@link StoredMeanwhile}), and that response is replayed. Exactly-once never rests on the lock.
 */
export async function runIdempotentInBatch(
  c: Context<AppEnv>,
  next: Next,
  options: IdempotentOptions,
): Promise<Response | undefined> {
  const { db, keyId, idempotencyKey } = options;
  const fingerprint = await requestFingerprint(c, idempotencyKey);

  let held: HeldKey;
  try {
    held = await idempotencyLocks(db).acquire(keyId, idempotencyKey, Date.now() + IDEMPOTENCY_WAIT_MS);
  } catch (error) {
    if (error instanceof KeyBusy) throw inProgress(1);
    throw unavailable(error);
  }
  try {
    const found = await decide(
      db,
      { keyId, idempotencyKey, fingerprint, staleSeconds: options.staleSeconds },
      held.stored !== undefined ? held.stored : await readStored(db, keyId, idempotencyKey),
    );
    if (found.kind === 'replay') return replay(found);
    await options.charge();
    const call: IdempotentCall = { keyId, idempotencyKey, fingerprint };
    c.set('idempotentCall', call);
    await next();
    if (c.error instanceof StoredMeanwhile) {
      const stored = await decide(
        db,
        { keyId, idempotencyKey, fingerprint, staleSeconds: options.staleSeconds },
        await readStored(db, keyId, idempotencyKey),
      );
      if (stored.kind === 'replay') return replay(stored);
      throw unavailable(c.error);
    }
    const status = c.res.status;
    if (call.storedBody !== undefined || status >= 500 || status === 429) return undefined;
    // A refusal (nothing written but rate counters), stored so that a retry gets the same answer.
    // A success reaches here only from an operation that does not store its own: stored after it.
    await db.query(
      `INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, state, response_status, response_body, response_type)
       VALUES ($1, $2, $3, 'done', $4, $5, $6) ON CONFLICT (key_id, idempotency_key) DO NOTHING`,
      [
        keyId,
        idempotencyKey,
        fingerprint,
        status,
        await c.res.clone().text(),
        c.res.headers.get('content-type') ?? STORED_RESPONSE_TYPE,
      ],
    );
    return undefined;
  } finally {
    held.release();
  }
}

function replay(found: Extract<Reservation, { kind: 'replay' }>): Response {
  return new Response(found.body, {
    status: found.status,
    headers: { 'Content-Type': found.type, 'Idempotent-Replayed': 'true' },
  });
}

/** The key's stored row, or null. */
async function readStored(db: Database, keyId: string, idempotencyKey: string): Promise<StoredRow | null> {
  const [row] = await db.query<StoredRow>(storedRowSql('$1', '$2', '$3'), [
    keyId,
    idempotencyKey,
    IDEMPOTENCY_TTL_HOURS,
  ]);
  return row ?? null;
}

/**
 * What to do with a key this process now holds, given its stored row: replay its response, or
 * run. An expired entry, or one left `in_progress` by an older version past `staleSeconds`, is
 * removed first.
 */
async function decide(
  db: Database,
  call: { keyId: string; idempotencyKey: string; fingerprint: string; staleSeconds: number },
  row: StoredRow | null,
): Promise<Reservation> {
  if (!row) return { kind: 'run' };
  if (row.expired || (row.state === 'in_progress' && row.held_seconds >= call.staleSeconds)) {
    await db.query('DELETE FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2', [
      call.keyId,
      call.idempotencyKey,
    ]);
    return { kind: 'run' };
  }
  if (row.fingerprint !== call.fingerprint) {
    throw new ApiError(
      422,
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different body, method or route.',
    );
  }
  if (row.state === 'in_progress') throw inProgress(Math.ceil(call.staleSeconds - row.held_seconds));
  return {
    kind: 'replay',
    status: row.response_status!,
    body: row.response_body!,
    type: row.response_type!,
  };
}
