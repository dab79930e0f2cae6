import type { Database, DedicatedSession } from '../db/database.js';
import { sha256 } from '../ids.js';

/** How long to wait before asking again for a key another process holds. */
const POLL_MS = 20;

/** One held reservation: release it once the operation's outcome is stored (or nothing was). */
export interface HeldKey {
  release(): void;
}

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
  #toLock: { hash: string; session: DedicatedSession; done: (locked: boolean | Error) => void }[] = [];
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
    if (!this.#db.openSession) return { release: releaseHere };

    const hash = advisoryKey(name);
    try {
      for (;;) {
        const session = await this.#connected();
        if (await this.#tryLock(hash, session)) {
          return {
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

  #tryLock(hash: string, session: DedicatedSession): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#toLock.push({
        hash,
        session,
        done: (locked) => (locked instanceof Error ? reject(locked) : resolve(locked)),
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
          const [row] = await session.query<{ unlocked: number; locked: boolean[] }>(LOCK_STATEMENT, [
            unlocks.map((entry) => entry.hash),
            locks.map((entry) => entry.hash),
          ]);
          for (const [i, entry] of locks.entries()) entry.done(row!.locked[i] === true);
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

const LOCK_STATEMENT = `WITH unlocked AS MATERIALIZED (
       SELECT count(pg_advisory_unlock(k)) AS n FROM unnest($1::bigint[]) AS k
     )
     SELECT unlocked.n AS unlocked,
       array(SELECT pg_try_advisory_lock(k) FROM unnest($2::bigint[]) WITH ORDINALITY AS t(k, i) ORDER BY i) AS locked
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
