import pg from 'pg';
import type { DriverAdapter, Queryable, QueryOptions, Row, TransactionOptions } from './database.js';
import { Pipelines } from './pipelines.js';

pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));

// Names of prepared statements, by their text. A statement with parameters is prepared once per
// connection and then only bound and executed: PostgreSQL no longer parses and plans it on every
// call, which for the quote's one-statement creation cost more than running it.
const names = new Map<string, string>();

function statement(sql: string, params?: readonly unknown[]): pg.QueryConfig {
  if (!params || params.length === 0) return { text: sql };
  let name = names.get(sql);
  if (name === undefined) {
    name = `svc_${names.size}`;
    names.set(sql, name);
  }
  return { name, text: sql, values: params as unknown[] };
}

/** BEGIN, with the transaction's lock timeout in the same simple query (one round trip). */
function beginStatement(options: TransactionOptions | undefined): string {
  const ms = options?.lockTimeoutMs;
  if (ms === undefined) return 'BEGIN';
  return `BEGIN; SET LOCAL lock_timeout = ${Math.max(1, Math.round(ms))}`;
}

/** Options for the PostgreSQL pool. */
export interface PostgresOptions {
  /** Connections in the pool. @defaultValue 10 */
  max?: number;
}

/** Connects to PostgreSQL through a `pg` pool. The pool reconnects by itself after a restart. */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<DriverAdapter> {
  // No JIT compilation: it pays off for long analytic queries, and this service runs short ones
  // only. The planner's estimates for rows read from JSON parameters (100 for each function
  // call) put the batch creation's cost over `jit_above_cost`, and compiling it took 240 ms
  // for a statement that runs in 3.
  const pool = connectionPool(url, options.max ?? 10, '-c jit=off');
  // Connections for the statements run with `genericPlan` (QueryOptions): a session setting is
  // the only way to choose the plan of one prepared statement, so they have sessions of their
  // own, opened when first needed. The quote writer's batch statement is one: PostgreSQL kept
  // planning it for each batch's values (custom plans), 1.2 of its 4 ms a batch, for the plan it
  // makes once. They run pipelined, a lane's statements on one connection (db/pipelines.ts).
  const genericPlans = new Pipelines(
    connectionConfig(url, '-c jit=off -c plan_cache_mode=force_generic_plan'),
    Math.min(4, options.max ?? 10),
  );
  const listeners = new Map<string, Set<(payload: string) => void>>();
  let listenClient: pg.PoolClient | undefined;
  let closing = false;
  /** Tells every handler, with an empty payload, to drop all it caches: changes may have been missed. */
  const dropEverything = () => {
    for (const set of listeners.values()) for (const handler of set) handler('');
  };

  async function ensureListenClient(): Promise<pg.PoolClient> {
    if (listenClient) return listenClient;
    const client = await pool.connect();
    client.on('notification', (message) => {
      for (const handler of listeners.get(message.channel) ?? []) handler(message.payload ?? '');
    });
    let lost = false;
    client.on('error', () => {
      // A dying connection can report more than one error; it is released (and replaced) once.
      // On close the client was already released; nothing is left to do.
      if (lost || closing) return;
      lost = true;
      // Reconnect and re-subscribe; while disconnected, handlers are told with an empty payload
      // so caches can drop everything rather than serve stale entries.
      if (listenClient === client) listenClient = undefined;
      client.release(true);
      dropEverything();
      if (!closing) setTimeout(() => void resubscribe(), 500);
    });
    listenClient = client;
    return client;
  }

  async function resubscribe(): Promise<void> {
    try {
      const client = await ensureListenClient();
      // One statement for every channel: once it returns, all of them are heard again.
      const channels = [...listeners.keys()];
      if (channels.length > 0) await client.query(channels.map((name) => `LISTEN "${name}"`).join('; '));
      // What the caches refilled while nothing was heard may already be stale: drop it once more,
      // now that every later change arrives.
      dropEverything();
    } catch {
      if (!closing) setTimeout(() => void resubscribe(), 1_000);
    }
  }

  const plain: Queryable = {
    async query<T = Row>(sql: string, params?: readonly unknown[], options?: QueryOptions) {
      const query = statement(sql, params);
      const result = await (options?.genericPlan
        ? genericPlans.query(query, options.lane ?? sql)
        : pool.query(query));
      return result.rows as T[];
    },
  };

  return {
    kind: 'postgres',
    query: (sql, params, options) => plain.query(sql, params, options),
    async transaction(fn, options?: TransactionOptions) {
      const client = await pool.connect();
      // A connection lost between two statements emits 'error' on the checked-out client; without a
      // listener that would crash the process. The failing statement reports it to the caller.
      const ignore = () => {};
      client.on('error', ignore);
      // A connection runs one query at a time. Queries sent together in a transaction (a
      // Promise.all) take their turn here: pg@8 queues them itself with a deprecation warning,
      // and pg@9 refuses them. COMMIT and ROLLBACK take theirs after any still running.
      let turn: Promise<unknown> = Promise.resolve();
      const inTurn = (sql: string | pg.QueryConfig) => {
        const result = turn.then(() => client.query(sql));
        turn = result.catch(() => {});
        return result;
      };
      const tx: Queryable = {
        async query<T = Row>(sql: string, params?: readonly unknown[]) {
          const result = await inTurn(statement(sql, params));
          return result.rows as T[];
        },
      };
      try {
        await inTurn(beginStatement(options));
        const value = await fn(tx);
        await inTurn('COMMIT');
        client.off('error', ignore);
        client.release();
        return value;
      } catch (error) {
        await inTurn('ROLLBACK').catch(() => {});
        client.off('error', ignore);
        client.release(true);
        throw error;
      }
    },
    async listen(channel, onMessage) {
      if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`listen: invalid channel name "${channel}"`);
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        const client = await ensureListenClient();
        await client.query(`LISTEN "${channel}"`);
      }
      set.add(onMessage);
      return async () => {
        set.delete(onMessage);
      };
    },
    async notify(channel, payload) {
      await pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
      // This process hears its own change now, not a round trip later: a key revoked here
      // stops working here before the call returns. Other processes hear the NOTIFY.
      for (const handler of listeners.get(channel) ?? []) handler(payload);
    },
    async close() {
      closing = true;
      const client = listenClient;
      listenClient = undefined;
      client?.release(true);
      await Promise.all([pool.end(), genericPlans.close()]);
    },
  };
}

/** A `pg` pool of `max` connections whose sessions start with `settings` (`-c name=value …`). */
/** How every connection of the service is opened: its pools' and the pipelines' alike. */
export function connectionConfig(url: string, settings: string): pg.ClientConfig {
  return { connectionString: url, connectionTimeoutMillis: 5_000, options: settings };
}

function connectionPool(url: string, max: number, settings: string): pg.Pool {
  const pool = new pg.Pool({ ...connectionConfig(url, settings), max });
  // An idle client losing its connection (server restart) must not crash the process.
  pool.on('error', () => {});
  return pool;
}
