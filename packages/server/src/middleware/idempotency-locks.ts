import type { Database, DedicatedSession } from '../db/database.js';
import { sha256 } from '../ids.js';
import { IDEMPOTENCY_TTL_HOURS, type StoredRow } from './idempotency.js';

/** How long to wait before asking again for a key another process holds. */
const POLL_MS = 20;

/** One held reservation: release it once the operation's outcome is stored (or nothing was). */
export interface HeldKey {
  release(): void;
  /**
   * The key's stored row, read by the statement that took the lock (null: none), so that taking
   * a key costs no round trip on the pool; undefined when not read (PGlite). Read in that
   * statement's snapshot, it can miss a response a duplicate committed just before letting go:
   * then the operation's statement finds it ({@link HeldKey} is no guarantee, the primary key is).
   */
  stored: StoredRow | null | undefined;
}

/** The SQL of a key's {@link StoredRow}, `$ttl` hours being its life. */
export const storedRowSql = (keyId: string, idempotencyKey: string, ttlHours: string) =>
  `SELECT fingerprint, state, response_status, response_body, response_type,
     created_at < now() - make_interval(hours => ${ttlHours}) AS expired,
     extract(epoch FROM now() - locked_at)::float8 AS held_seconds
   FROM idempotency_keys WHERE key_id = ${keyId} AND idempotency_key = ${idempotencyKey}`;

type LockAnswer = { locked: boolean; stored: StoredRow | null };

/** Why a key could not be taken. */
export class KeyBusy extends Error {}

/**
 * Idempotency reservations held outside the operation's transaction, so that an idempotent
 * creation can be written by a statement it shares with others (group commit).
 *
 * Within the process, a map keeps duplicates apart: the second waits for the first to let go.
 * Across processes, on PostgreSQL, a session-level advisory lock keyed by a hash of the key,
 * held on one connection of the process's own outside the pool: PostgreSQL frees it the moment
 * that session ends, so a process that dies (kill -9) leaves nothing held. PGlite is one process.
 *
 * Locks and unlocks asked for while the connection is busy are sent together in one statement,
 * so the connection serves thousands of requests a second in a few round trips.
 *
 * The lock only spares the database a duplicate's work: exactly-once rests on the stored
 * response's primary key, written by the statement that creates the quote, so a lock lost with
 * its connection cannot let a duplicate write twice.
 */
export class IdempotencyLocks {
  readonly #db: Database;
  /** Keys held by this process: settles when released. */
  readonly #held = new Map<string, Promise<void>>();
  #session: Promise<DedicatedSession> | undefined;
  #toLock: {
    hash: string;
    keyId: string;
    idempotencyKey: string;
    session: DedicatedSession;
    done: (answer: LockAnswer | Error) => void;
  }[] = [];
  #toUnlock: { hash: string; session: DedicatedSession }[] = [];
  #sending = false;

  constructor(db: Database) {
    this.#db = db;
  }

  /**
   * Takes `idempotencyKey` of `keyId`, waiting until `deadline` (ms since the epoch) for whoever
   * holds it. Throws {@link KeyBusy} past the deadline, or the connection's error.
   */
  async acquire(keyId: string, idempotencyKey: string, deadline: number): Promise<HeldKey> {
    const name = `${keyId}\n${idempotencyKey}`;
    for (let holder = this.#held.get(name); holder; holder = this.#held.get(name)) {
      if (!(await settlesBefore(holder, deadline))) throw new KeyBusy();
    }
    let free!: () => void;
    this.#held.set(
      name,
      new Promise<void>((resolve) => {
        free = resolve;
      }),
    );
    const releaseHere = () => {
      this.#held.delete(name);
      free();
    };
    if (!this.#db.openSession) return { release: releaseHere, stored: undefined };

    const hash = advisoryKey(name);
    try {
      for (;;) {
        const session = await this.#connected();
        const answer = await this.#tryLock(hash, keyId, idempotencyKey, session);
        if (answer.locked) {
          return {
            stored: answer.stored,
            release: () => {
              releaseHere();
              this.#unlock(hash, session);
            },
          };
        }
        if (Date.now() + POLL_MS > deadline) throw new KeyBusy();
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    } catch (error) {
      releaseHere();
      throw error;
    }
  }

  /** Closes the connection, which frees every lock it held. */
  async close(): Promise<void> {
    const session = this.#session;
    this.#session = undefined;
    if (session) await (await session.catch(() => undefined))?.close();
  }

  #connected(): Promise<DedicatedSession> {
    if (!this.#session) {
      const opening = this.#db.openSession!();
      this.#session = opening;
      // Gone (or never opened): the next acquire opens another. Its locks went with it.
      const forget = () => {
        if (this.#session === opening) this.#session = undefined;
      };
      opening.then((session) => session.ended.then(forget), forget);
    }
    return this.#session;
  }

  #tryLock(
    hash: string,
    keyId: string,
    idempotencyKey: string,
    session: DedicatedSession,
  ): Promise<LockAnswer> {
    return new Promise((resolve, reject) => {
      this.#toLock.push({
        hash,
        keyId,
        idempotencyKey,
        session,
        done: (answer) => (answer instanceof Error ? reject(answer) : resolve(answer)),
      });
      void this.#send();
    });
  }

  #unlock(hash: string, session: DedicatedSession): void {
    this.#toUnlock.push({ hash, session });
    void this.#send();
  }

  /** Sends what was asked for meanwhile, one statement per session, until nothing is left. */
  async #send(): Promise<void> {
    if (this.#sending) return;
    this.#sending = true;
    try {
      while (this.#toLock.length > 0 || this.#toUnlock.length > 0) {
        const session = (this.#toLock[0] ?? this.#toUnlock[0])!.session;
        const locks = this.#toLock.filter((entry) => entry.session === session);
        const unlocks = this.#toUnlock.filter((entry) => entry.session === session);
        this.#toLock = this.#toLock.filter((entry) => entry.session !== session);
        this.#toUnlock = this.#toUnlock.filter((entry) => entry.session !== session);
        try {
          // Unlocks first: a key released and taken again in the same round trip is then free.
          const [row] = await session.query<{ unlocked: number; answers: LockAnswer[] | null }>(
            LOCK_STATEMENT,
            [
              unlocks.map((entry) => entry.hash),
              locks.map((entry) => entry.hash),
              locks.map((entry) => entry.keyId),
              locks.map((entry) => entry.idempotencyKey),
              IDEMPOTENCY_TTL_HOURS,
            ],
          );
          for (const [i, entry] of locks.entries()) entry.done(row!.answers![i]!);
        } catch (error) {
          // The session is gone, and the locks with it: nothing is left to unlock.
          for (const entry of locks) entry.done(error instanceof Error ? error : new Error(String(error)));
        }
      }
    } finally {
      this.#sending = false;
    }
  }
}

// Each lock taken comes with its key's stored row, read in the same statement: no second round trip.
const LOCK_STATEMENT = `WITH unlocked AS MATERIALIZED (
       SELECT count(pg_advisory_unlock(k)) AS n FROM unnest($1::bigint[]) AS k
     ), taken AS MATERIALIZED (
       SELECT t.i, t.key_id, t.idempotency_key, pg_try_advisory_lock(t.k) AS locked
       FROM unlocked, unnest($2::bigint[], $3::uuid[], $4::text[]) WITH ORDINALITY AS t(k, key_id, idempotency_key, i)
     )
     SELECT unlocked.n AS unlocked,
       (SELECT json_agg(json_build_object('locked', taken.locked, 'stored',
          (SELECT row_to_json(r) FROM (${storedRowSql('taken.key_id', 'taken.idempotency_key', '$5')}) r)) ORDER BY taken.i)
        FROM taken) AS answers
     FROM unlocked`;

/** A 64-bit advisory lock key for a reservation's name. */
function advisoryKey(name: string): string {
  return BigInt.asIntN(64, BigInt(`0x${sha256(`idempotency\n${name}`).slice(0, 16)}`)).toString();
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

const registry = new WeakMap<Database, IdempotencyLocks>();

/** The reservations of a database's process: one dedicated connection per pool. */
export function idempotencyLocks(db: Database): IdempotencyLocks {
  let locks = registry.get(db);
  if (!locks) {
    locks = new IdempotencyLocks(db);
    registry.set(db, locks);
  }
  return locks;
}
