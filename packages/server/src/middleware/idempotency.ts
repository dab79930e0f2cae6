import type { Context, Next } from 'hono';
import type { Database, Queryable } from '../db/database.js';
import { ApiError } from '../errors.js';
import { readBodyBytes } from '../http/json-body.js';
import { sha256 } from '../ids.js';
import type { AppEnv } from '../types.js';

/** 1 to 255 visible ASCII characters. */
/** An `idempotency_keys` row as the middleware decides on it. */
export interface StoredRow {
  fingerprint: string;
  state: string;
  response_status: number | null;
  response_body: string | null;
  response_type: string | null;
  expired: boolean;
  held_seconds: number;
}

/** What both idempotency paths run a request with. */
export interface IdempotentOptions {
  db: Database;
  keyId: string;
  idempotencyKey: string;
  staleSeconds: number;
  /** Counts the call against the quota (not for replays). */
  charge: () => Promise<void>;
}

export const KEY_RE = /^[\x21-\x7e]{1,255}$/;

/** 400 `invalid_idempotency_key` for a key that is not 1 to 255 visible ASCII characters. */
export function checkIdempotencyKey(idempotencyKey: string): void {
  if (!KEY_RE.test(idempotencyKey)) {
    throw new ApiError(
      400,
      'invalid_idempotency_key',
      'Idempotency-Key must be 1 to 255 visible ASCII characters (no spaces).',
    );
  }
}

/**
 * What a key's first request is remembered by: its method, path, query and body. 400
 * `invalid_idempotency_key` for a malformed key.
 */
export async function requestFingerprint(c: Context<AppEnv>, idempotencyKey: string): Promise<string> {
  checkIdempotencyKey(idempotencyKey);
  const url = new URL(c.req.url);
  return fingerprintOf(c.req.method, `${url.pathname}${url.search}`, await readBodyBytes(c));
}

/** The fingerprint of a request by its method, path and query (`/api/v1/…?…`), and body. */
export const fingerprintOf = (method: string, target: string, body: Uint8Array): string =>
  sha256(`${method} ${target}\n${sha256(body)}`);

/** How long a stored response is replayed. */
export const IDEMPOTENCY_TTL_HOURS = 24;

export type Reservation = { kind: 'run' } | { kind: 'replay'; status: number; body: string; type: string };
/** A stored response to send again, with `Idempotent-Replayed: true`. */
export type Replayed = Extract<Reservation, { kind: 'replay' }>;

/**
 * The headers of a replayed response, besides the version and CORS every answer gets. A replayed
 * error keeps the request id its body was given, so the header still names the same request as
 * the body's `request_id` (design.md §4); a replayed success is answered under this request's id.
 */
export function replayHeaders(found: Replayed): Record<string, string> {
  const headers: Record<string, string> = { 'Content-Type': found.type, 'Idempotent-Replayed': 'true' };
  // A replayed event stream is still one: never cached, as the stream it repeats was not.
  if (found.type.startsWith('text/event-stream')) headers['Cache-Control'] = 'no-cache';
  const id = storedErrorRequestId(found);
  if (id) headers['Service-Request-Id'] = id;
  return headers;
}

/** The `request_id` of a stored error body, if it has one. */
function storedErrorRequestId(found: Replayed): string | undefined {
  if (found.status < 400) return undefined;
  try {
    const id = (JSON.parse(found.body) as { request_id?: unknown }).request_id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The longest a duplicate waits for the request holding its key to commit or roll back before
 * answering 409 `idempotency_in_progress`. Also bounds any other lock wait of the operation, which
 * on a healthy database lasts milliseconds.
 */
export const IDEMPOTENCY_WAIT_MS = 5_000;

/** Signals that the operation's transaction must roll back although the handler returned. */
class RollBack extends Error {}

/** PostgreSQL's `lock_not_available`: a lock wait ran past `lock_timeout`. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Runs a POST, PATCH or DELETE that carries `Idempotency-Key` at most once per API key and key.
 *
 * 1. One transaction holds the reservation, the operation's writes and the stored response. The
 *    reservation row is its first write, so a concurrent duplicate (on any process) blocks on the
 *    row's primary key until that transaction ends, for at most {@link IDEMPOTENCY_WAIT_MS}: on
 *    commit it replays the stored response, on rollback it runs. A process that dies mid-request
 *    loses its connection, PostgreSQL rolls its transaction back, and the key is free at once.
 * 2. 4xx responses are stored after rolling back, to a savepoint taken after the reservation,
 *    anything the failed operation wrote; 5xx and 429 roll back the reservation too, so the same
 *    key can be retried.
 * 3. A committed `in_progress` row (written by an older version, which committed its reservation
 *    on its own) is retaken after `staleSeconds`, the last resort when nothing else frees it.
 *
 * The quota is charged last, in the transaction, so that a 5xx or 429 is not counted and a replay
 * is not charged. Last, because the month's counter row stays locked from the charge to `COMMIT`:
 * charged first, one slow operation held every live call of the organization behind it.
 */
export async function runIdempotent(
  c: Context<AppEnv>,
  next: Next,
  options: IdempotentOptions & {
    /** Refuses the call at once, counting nothing, when the quota is already used up. */
    refuseWhenQuotaUsed: () => Promise<void>;
  },
): Promise<Response | undefined> {
  const { db, keyId, idempotencyKey } = options;
  const fingerprint = await requestFingerprint(c, idempotencyKey);

  let reservation: Reservation | undefined;
  try {
    await db.transaction(
      async (tx) => {
        reservation = await reserve(tx, keyId, idempotencyKey, fingerprint, options.staleSeconds);
        if (reservation.kind === 'replay') return;
        await options.refuseWhenQuotaUsed();
        await tx.query('SAVEPOINT idempotent_operation');
        await next();
        const status = c.res.status;
        if (status >= 500 || status === 429) throw new RollBack(); // nothing stored: retry the key
        if (status >= 400) await tx.query('ROLLBACK TO SAVEPOINT idempotent_operation');
        // A streamed answer is stored once it has ended, so its caller receives it whole then.
        const body = await c.res.clone().text();
        if (c.get('answerCut')) throw new RollBack();
        await tx.query(
          `UPDATE idempotency_keys SET state = 'done', response_status = $3, response_body = $4, response_type = $5
           WHERE key_id = $1 AND idempotency_key = $2`,
          [keyId, idempotencyKey, status, body, c.res.headers.get('content-type') ?? 'application/json'],
        );
        // Over the quota after all (calls charged meanwhile): 429, and everything rolls back.
        await options.charge();
      },
      { lockTimeoutMs: IDEMPOTENCY_WAIT_MS },
    );
  } catch (error) {
    if (error instanceof RollBack) return undefined;
    if (error instanceof ApiError) throw error;
    if (reservation === undefined) throw unavailable(error);
    throw error;
  }
  if (reservation?.kind !== 'replay') return undefined;
  return new Response(reservation.body, { status: reservation.status, headers: replayHeaders(reservation) });
}

/**
 * Takes the key in the open transaction, or finds what to answer instead. The INSERT waits while
 * another open transaction holds the key; its `lock_timeout` ends that wait with 409.
 */
async function reserve(
  tx: Queryable,
  keyId: string,
  idempotencyKey: string,
  fingerprint: string,
  staleSeconds: number,
): Promise<Reservation> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await waitingForHolder(() =>
      tx.query(
        `INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, state)
         VALUES ($1, $2, $3, 'in_progress')
         ON CONFLICT (key_id, idempotency_key) DO NOTHING RETURNING 1`,
        [keyId, idempotencyKey, fingerprint],
      ),
    );
    if (inserted.length > 0) return { kind: 'run' };

    const [row] = await tx.query<StoredRow>(
      `SELECT fingerprint, state, response_status, response_body, response_type,
         created_at < now() - make_interval(hours => $3) AS expired,
         extract(epoch FROM now() - locked_at)::float8 AS held_seconds
       FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2`,
      [keyId, idempotencyKey, IDEMPOTENCY_TTL_HOURS],
    );
    if (!row) continue; // deleted meanwhile by the daily clean-up: reserve again
    if (row.expired) {
      // An expired entry is replaced as if it had never been; the condition makes one taker win.
      const renewed = await waitingForHolder(() =>
        tx.query(
          `UPDATE idempotency_keys SET fingerprint = $3, state = 'in_progress', locked_at = now(), created_at = now(),
             response_status = NULL, response_body = NULL, response_type = NULL
           WHERE key_id = $1 AND idempotency_key = $2 AND created_at < now() - make_interval(hours => $4)
           RETURNING 1`,
          [keyId, idempotencyKey, fingerprint, IDEMPOTENCY_TTL_HOURS],
        ),
      );
      if (renewed.length > 0) return { kind: 'run' };
      continue; // another request renewed it first: its row decides
    }
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
    // Committed while in progress: left by a version that committed reservations on their own,
    // whose process then died. Only time frees it.
    if (row.held_seconds >= staleSeconds) {
      const retaken = await waitingForHolder(() =>
        tx.query(
          `UPDATE idempotency_keys SET locked_at = now()
           WHERE key_id = $1 AND idempotency_key = $2 AND state = 'in_progress'
             AND locked_at < now() - make_interval(secs => $3)
           RETURNING 1`,
          [keyId, idempotencyKey, staleSeconds],
        ),
      );
      if (retaken.length > 0) return { kind: 'run' };
      continue;
    }
    throw inProgress(Math.ceil(staleSeconds - row.held_seconds));
  }
  throw inProgress(1);
}

/** Runs a statement that may wait for the transaction holding the key: too long a wait is a 409. */
async function waitingForHolder<T>(statement: () => Promise<T>): Promise<T> {
  try {
    return await statement();
  } catch (error) {
    if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) throw inProgress(1);
    throw error;
  }
}

export function inProgress(retryAfterSeconds: number): ApiError {
  return new ApiError(
    409,
    'idempotency_in_progress',
    'A request with this Idempotency-Key is still being processed. Retry shortly.',
    {},
    { 'Retry-After': String(Math.max(1, retryAfterSeconds)) },
  );
}

export function unavailable(cause: unknown): ApiError {
  const error = new ApiError(
    503,
    'idempotency_unavailable',
    'The Idempotency-Key could not be reserved; nothing ran. Retry later.',
  );
  error.cause = cause;
  return error;
}
