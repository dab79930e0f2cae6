import { AsyncLocalStorage } from 'node:async_hooks';

/** A row as returned by the driver: column name to parsed value. */
export type Row = Record<string, unknown>;

/** How one statement is run. */
export interface QueryOptions {
  /**
   * Plan it once, for any parameters (PostgreSQL's generic plan), rather than again for each
   * call's values: for a statement whose best plan does not depend on them and which costs more
   * to plan than to run. PostgreSQL runs it on connections of their own, PGlite with its one
   * session's `plan_cache_mode` set for it; in a transaction it is planned as usual. Left to choose,
   * PGlite went back to planning the batch creation for each batch once ANALYZE had changed the
   * statistics (pglite-maintenance.ts), and the widget's submissions ran at half the rate.
   */
  genericPlan?: boolean;
  /**
   * With `genericPlan`, on PostgreSQL: statements of one lane take one connection and run in the
   * order they were sent, each sent at once, pipelined behind those under way (db/pipelines.ts).
   * Without it, the statement's text is its lane. PGlite runs one statement at a time anyway.
   */
  lane?: string;
}

/** The one query interface every repository uses; PGlite, `pg` and a transaction all fit it. */
export interface Queryable {
  query<T = Row>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<T[]>;
}

/** How a transaction waits for locks. */
export interface TransactionOptions {
  /**
   * The longest any one statement of the transaction waits for a lock (PostgreSQL's
   * `lock_timeout`), set by the statement that opens it, so bounding the wait costs no round
   * trip. PGlite has one connection and nothing else to wait for: it ignores it.
   */
  lockTimeoutMs?: number;
}

/** A database connection (PGlite or PostgreSQL) with transactions and change notifications. */
export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /**
   * Runs `fn` in one transaction. Inside an ambient transaction (one opened by an outer call, for
   * example by the idempotency middleware) it runs in a savepoint of that transaction instead, so
   * the request's writes and its stored response commit together, and a failing inner step still
   * rolls back its own writes.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Runs `fn` outside any ambient transaction, so its writes survive that transaction's rollback
   * (e.g. counting a failed coupon attempt of a request that fails). On PGlite it waits for the
   * ambient transaction to end: never await it from inside one.
   */
  detached<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Runs `fn` once the ambient transaction has ended, committed or rolled back, before its caller
   * goes on (at once when none is ambient), so that its writes stand whatever becomes of that
   * transaction: a request under an `Idempotency-Key` runs in one, rolled back on a 5xx and to a
   * savepoint on a 4xx, which would also undo a record of why it failed. A failing `fn` fails the
   * transaction's caller, unless the transaction failed first.
   */
  afterTransaction(fn: () => Promise<unknown>): Promise<void>;
  /**
   * Runs `fn` once the ambient transaction has committed, before its caller goes on (at once when
   * none is ambient; never when it rolls back): for what must not hold the transaction open and
   * must not happen unless it commits, such as an e-mail or a change notification.
   */
  afterCommit(fn: () => Promise<unknown>): Promise<void>;
  /** True inside a {@link transaction} (or its savepoints): queries made now run in it. */
  inTransaction(): boolean;
  /** Subscribes to a notification channel (LISTEN). Returns the unsubscribe function. */
  listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * Sends a notification (NOTIFY) to every process listening on `channel`, this one included; when
   * called inside a transaction, once it commits (see {@link afterCommit}).
   */
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}

/** Raw driver operations an adapter provides; {@link createDatabase} adds the ambient transaction. */
export interface DriverAdapter {
  readonly kind: 'pglite' | 'postgres';
  query(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<Row[]>;
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}

const ambient = new AsyncLocalStorage<Queryable>();
/** What {@link Database.afterTransaction} and {@link Database.afterCommit} left for each open outermost transaction. */
interface Afterwards {
  run: () => Promise<unknown>;
  /** Also when the transaction rolled back. */
  always: boolean;
}
const afterwards = new WeakMap<Queryable, Afterwards[]>();
let savepoints = 0;
// Transactions in flight in this process. While one runs, Node tracks the ambient transaction
// through promise hooks, a cost every promise of every request pays; when none runs, the store is
// disabled and the hooks with it (`run` turns them on again).
let open = 0;

async function runAmbient<T>(tx: Queryable, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  open++;
  try {
    return await ambient.run(tx, () => fn(tx));
  } finally {
    if (--open === 0) ambient.disable();
  }
}

/**
 * Wraps a driver so that queries made while a transaction is ambient run inside it. This matters
 * for PGlite, which has one connection: a query outside the open transaction would wait for it forever.
 */
export function createDatabase(driver: DriverAdapter): Database {
  const afterCommit = async (fn: () => Promise<unknown>) => {
    const tx = ambient.getStore();
    if (tx) afterwards.get(tx)?.push({ run: fn, always: false });
    else await fn();
  };
  return {
    kind: driver.kind,
    query<T = Row>(sql: string, params?: readonly unknown[], options?: QueryOptions) {
      const tx = ambient.getStore();
      return (tx ? tx.query<T>(sql, params) : driver.query(sql, params, options)) as Promise<T[]>;
    },
    transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T> {
      const tx = ambient.getStore();
      if (tx) return inSavepoint(tx, fn);
      return outermost(driver, fn, options);
    },
    detached: (fn) => ambient.exit(fn),
    async afterTransaction(fn) {
      const tx = ambient.getStore();
      if (tx) afterwards.get(tx)?.push({ run: fn, always: true });
      else await fn();
    },
    afterCommit,
    inTransaction: () => ambient.getStore() !== undefined,
    listen: (channel, onMessage) => driver.listen(channel, onMessage),
    // Inside a transaction the message goes out once it commits: others must not reload what has
    // not committed, and PGlite's one connection would wait forever for the open transaction.
    notify: (channel, payload) => afterCommit(() => driver.notify(channel, payload)),
    close: () => driver.close(),
  };
}

/** True when the error means the database itself is unreachable (not a bad query). */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code ?? '';
  const message = String((error as { message?: string } | null)?.message ?? '');
  return (
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'EPIPE',
      'ETIMEDOUT',
      '57P01',
      '57P02',
      '57P03',
      '08000',
      '08003',
      '08006',
    ].includes(code) ||
    /Connection terminated|connect ECONNREFUSED|not queryable|timeout exceeded when trying to connect|ECONNRESET|EPIPE|the database system is (starting|shutting|in recovery)/i.test(
      message,
    ) ||
    // Errors wrapped by a driver keep the original as their cause.
    (error instanceof Error &&
      error.cause !== undefined &&
      error.cause !== error &&
      isConnectionError(error.cause))
  );
}

/** An outermost transaction, then what was left for after it (in order, outside it). */
async function outermost<T>(
  driver: DriverAdapter,
  fn: (tx: Queryable) => Promise<T>,
  options?: TransactionOptions,
): Promise<T> {
  const jobs: Afterwards[] = [];
  let value: T;
  try {
    value = await driver.transaction((inner) => {
      afterwards.set(inner, jobs);
      return runAmbient(inner, fn);
    }, options);
  } catch (error) {
    for (const job of jobs) if (job.always) await job.run().catch(() => {});
    throw error;
  }
  for (const job of jobs) await job.run();
  return value;
}

async function inSavepoint<T>(tx: Queryable, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  savepoints = (savepoints + 1) % 1_000_000;
  const name = `sp_${savepoints}`;
  await tx.query(`SAVEPOINT ${name}`);
  try {
    const value = await fn(tx);
    await tx.query(`RELEASE SAVEPOINT ${name}`);
    return value;
  } catch (error) {
    await tx.query(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => {});
    throw error;
  }
}
