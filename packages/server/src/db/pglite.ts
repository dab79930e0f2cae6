import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { PGlite, types } from '@electric-sql/pglite';
import type { DriverAdapter, Queryable, QueryOptions, Row } from './database.js';
import { PgliteStatements } from './pglite-statements.js';

const parsers = {
  [types.INT8]: (value: string) => Number(value),
  [types.NUMERIC]: (value: string) => Number(value),
};

/**
 * Opens PGlite in `dataDir` (created when missing), or in memory when `dataDir` is undefined.
 * PGlite has a single connection: transactions are serialised by PGlite itself.
 */
export async function openPglite(dataDir: string | undefined): Promise<DriverAdapter> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  let db: PGlite;
  try {
    db = await PGlite.create(dataDir ?? 'memory://', { parsers });
  } catch (error) {
    unlock();
    throw error;
  }
  const statements = new PgliteStatements(db);
  // Statements with parameters are prepared once (see PgliteStatements); the others, such as
  // BEGIN or SAVEPOINT with its generated name, go through PGlite's own query.
  // `genericPlan` is honoured outside a transaction, as on PostgreSQL (QueryOptions.genericPlan).
  const wrap = (
    q: { query: PGlite['query'] },
    lock: <T>(fn: () => Promise<T>) => Promise<T>,
    inTransaction: boolean,
  ): Queryable => ({
    async query<T = Row>(sql: string, params?: readonly unknown[], options?: QueryOptions) {
      const generic = !inTransaction && options?.genericPlan === true;
      if (params && params.length > 0) return lock(() => statements.run<T>(sql, params, generic));
      return (await q.query<T>(sql)).rows;
    },
  });
  // Outside a transaction a statement waits for any open one to end, as PGlite.query does.
  const plain = wrap(db, (fn) => db._runExclusiveTransaction(fn), false);
  return {
    kind: 'pglite',
    // PGlite runs every statement synchronously on this thread, and its lock passes from one
    // caller to the next through promise callbacks alone: under load the event loop would never
    // get to read new requests or answer old ones until every queued caller had run. One turn of
    // the loop before each query, and each time a transaction takes the lock, keeps that fair.
    query: async (sql, params, options) => {
      await turnOfTheLoop();
      return plain.query(sql, params, options);
    },
    transaction: (fn) =>
      db.transaction(async (tx) => {
        await turnOfTheLoop();
        return fn(wrap(tx, (run) => run(), true));
      }),
    async listen(channel, onMessage) {
      const unsubscribe = await db.listen(channel, onMessage);
      return async () => unsubscribe();
    },
    async notify(channel, payload) {
      await db.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async close() {
      await db.close();
      unlock();
    },
  };
}

const turnOfTheLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * PGlite is one process's database: a second process opening the same directory would corrupt
 * it. A lock file holding the owner's pid turns that into a clear error.
 */
function lockDataDir(dataDir: string): () => void {
  const lockFile = `${dataDir}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(lockFile, 'utf8'));
      if (owner && owner !== process.pid && isAlive(owner)) {
        throw new Error(
          `the PGlite data directory ${dataDir} is in use by process ${owner}; stop it first, or use PostgreSQL (DATABASE_URL) to share data between processes`,
        );
      }
      rmSync(lockFile, { force: true }); // left by a process that died
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
