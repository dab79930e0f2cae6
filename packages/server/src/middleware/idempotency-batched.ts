import type { Context, Next } from 'hono';
import type { Database } from '../db/database.js';
import { ApiError } from '../errors.js';
import type { AppEnv } from '../types.js';
import {
  IDEMPOTENCY_TTL_HOURS,
  IDEMPOTENCY_WAIT_MS,
  type IdempotentOptions,
  inProgress,
  type Replayed,
  type Reservation,
  replayHeaders,
  requestFingerprint,
  type StoredRow,
  unavailable,
} from './idempotency.js';

export { type Replayed, replayHeaders };

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
 * Thrown by an operation whose statement found a response already stored under the key (an
 * earlier request's, or a duplicate's that ran meanwhile) and wrote nothing: the middleware
 * replays that response.
 */
export class StoredMeanwhile extends Error {}

/**
 * Runs a POST that carries `Idempotency-Key` at most once per API key and key, for operations that
 * store their response with their own writes, in one statement that can be shared with other
 * requests' (group commit), so no transaction holds the organization's folio counter across
 * round trips, and taking the key costs no round trip of its own.
 *
 * 1. Within the process, a duplicate waits up to {@link IDEMPOTENCY_WAIT_MS} for the request
 *    holding its key (then 409 `idempotency_in_progress`), so it never runs beside it.
 * 2. The operation runs with an {@link IdempotentCall}; its statement stores the response, with
 *    the primary key of `idempotency_keys`, and writes nothing when a live response is already
 *    stored under the key ({@link StoredMeanwhile}). A duplicate on another process whose statement
 *    runs meanwhile waits on that primary key for the first to end: on commit its statement fails
 *    and writes nothing, on rollback it runs. A process that dies mid-statement loses its
 *    transaction, and with it everything it held. Exactly-once rests on that key alone.
 * 3. Any other answer first looks for a stored response (an earlier request's with this key), which
 *    is replayed instead; else a 4xx is stored (nothing was written but rate counters), and 5xx and
 *    429 are not, so the key can be retried. A 4xx whose storing finds a response stored meanwhile
 *    replays that one, so every request with a key gets the same answer.
 */
export async function runIdempotentInBatch(
  c: Context<AppEnv>,
  next: Next,
  options: IdempotentOptions,
): Promise<Response | undefined> {
  const fingerprint = await requestFingerprint(c, options.idempotencyKey);
  const replayed = await runInBatch({ ...options, fingerprint }, async (call) => {
    c.set('idempotentCall', call);
    await next();
    return {
      status: c.res.status,
      error: c.error,
      text: () => c.res.clone().text(),
      type: c.res.headers.get('content-type'),
    };
  });
  return replayed && replay(replayed);
}

/** What the operation answered, as {@link runInBatch} decides on it. */
export interface Answered {
  status: number;
  /** What the operation threw, if it did (its status and body are then the error's answer). */
  error: unknown;
  /** The body it answered, read only when a refusal is stored. */
  text(): Promise<string>;
  type: string | null;
}

/**
 * {@link runIdempotentInBatch} once the request's fingerprint is known, for any caller that can
 * run the operation with an {@link IdempotentCall} and report what it answered: the pipeline's
 * middleware and the widget's fast path (routes/submission-fast-path.ts).
 *
 * @returns the stored response to replay instead of the operation's answer, or undefined to send
 *   the operation's answer.
 */
export async function runInBatch(
  options: IdempotentOptions & { fingerprint: string },
  operate: (call: IdempotentCall) => Promise<Answered>,
): Promise<Replayed | undefined> {
  const { db, keyId, idempotencyKey, fingerprint } = options;
  const release = await holdInProcess(db, `${keyId}\n${idempotencyKey}`, Date.now() + IDEMPOTENCY_WAIT_MS);
  const key = { keyId, idempotencyKey, fingerprint, staleSeconds: options.staleSeconds };
  try {
    await options.charge();
    const call: IdempotentCall = { keyId, idempotencyKey, fingerprint };
    const answered = await operate(call);
    if (answered.error instanceof StoredMeanwhile) {
      const stored = await decide(db, key, await readStored(db, keyId, idempotencyKey));
      if (stored.kind === 'replay') return stored;
      // An expired or abandoned entry, removed by decide: the key is free for a retry.
      throw unavailable(answered.error);
    }
    if (call.storedBody !== undefined) return undefined;
    const earlier = await readStored(db, keyId, idempotencyKey);
    if (earlier) {
      const stored = await decide(db, key, earlier);
      if (stored.kind === 'replay') return stored;
    }
    const { status } = answered;
    if (status >= 500 || status === 429) return undefined;
    // A refusal (nothing written but rate counters), stored so that a retry gets the same answer.
    // A success reaches here only from an operation that does not store its own: stored after it.
    const [inserted] = await db.query(
      `INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, state, response_status, response_body, response_type)
       VALUES ($1, $2, $3, 'done', $4, $5, $6) ON CONFLICT (key_id, idempotency_key) DO NOTHING RETURNING 1`,
      [
        keyId,
        idempotencyKey,
        fingerprint,
        status,
        await answered.text(),
        answered.type ?? STORED_RESPONSE_TYPE,
      ],
    );
    if (inserted) return undefined;
    // A duplicate on another process stored its answer meanwhile: that one is the key's answer.
    const stored = await decide(db, key, await readStored(db, keyId, idempotencyKey));
    return stored.kind === 'replay' ? stored : undefined;
  } finally {
    release();
  }
}

/** Keys held by the requests of each database's process: each settles when released. */
const heldKeys = new WeakMap<Database, Map<string, Promise<void>>>();

/**
 * Holds `name` for this process, once whoever holds it lets go, waiting until `deadline` (ms since
 * the epoch); past it, 409 `idempotency_in_progress`. Resolves with the release.
 */
async function holdInProcess(db: Database, name: string, deadline: number): Promise<() => void> {
  let held = heldKeys.get(db);
  if (!held) {
    held = new Map();
    heldKeys.set(db, held);
  }
  for (let holder = held.get(name); holder; holder = held.get(name)) {
    if (!(await settlesBefore(holder, deadline))) throw inProgress(1);
  }
  let free!: () => void;
  held.set(
    name,
    new Promise<void>((resolve) => {
      free = resolve;
    }),
  );
  return () => {
    held.delete(name);
    free();
  };
}

/** True when `promise` settles before `deadline`. */
async function settlesBefore(promise: Promise<void>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

function replay(found: Replayed): Response {
  return new Response(found.body, { status: found.status, headers: replayHeaders(found) });
}

const STORED_ROW = `SELECT fingerprint, state, response_status, response_body, response_type,
     created_at < now() - make_interval(hours => $3) AS expired,
     extract(epoch FROM now() - locked_at)::float8 AS held_seconds
   FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2`;

/** The key's stored row, or null. */
async function readStored(db: Database, keyId: string, idempotencyKey: string): Promise<StoredRow | null> {
  const [row] = await db.query<StoredRow>(STORED_ROW, [keyId, idempotencyKey, IDEMPOTENCY_TTL_HOURS]);
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
