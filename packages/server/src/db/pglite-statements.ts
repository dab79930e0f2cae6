import { type PGlite, parse, protocol } from '@electric-sql/pglite';
import type { Row } from './database.js';

const { serialize } = protocol;

interface Prepared {
  name: string;
  paramTypes: number[];
}

/**
 * Named prepared statements on PGlite's one session. `PGlite.query` parses and plans its statement
 * on every call, in five separate calls into PostgreSQL; the quote's creation statement spent more
 * on that than on running. Here a statement with parameters is parsed once, by its text, and each
 * run is one call: bind, describe, execute and sync. Parameters are serialised and results parsed
 * exactly as `PGlite.query` does, with the instance's serializers and parsers. The caller holds
 * PGlite's transaction lock (or runs inside a transaction); the query lock is taken here.
 */
export class PgliteStatements {
  readonly #db: PGlite;
  readonly #prepared = new Map<string, Prepared>();

  constructor(db: PGlite) {
    this.#db = db;
  }

  /**
   * Runs `sql`; with `genericPlan`, under PostgreSQL's generic plan (`plan_cache_mode`, read at
   * each run), as the PostgreSQL driver runs it (see `QueryOptions.genericPlan`).
   */
  run<T = Row>(sql: string, params: readonly unknown[], genericPlan = false): Promise<T[]> {
    return this.#db.runExclusive(async () => {
      if (!genericPlan) return this.#run<T>(sql, params);
      await this.#db.execProtocol(serialize.query('SET plan_cache_mode = force_generic_plan'));
      try {
        return await this.#run<T>(sql, params);
      } finally {
        await this.#db.execProtocol(serialize.query('RESET plan_cache_mode'));
      }
    });
  }

  async #run<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    const statement = this.#prepared.get(sql) ?? (await this.#prepare(sql));
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = this.#db.serializers[statement.paramTypes[i]!];
      return serializer ? serializer(value) : String(value);
    });
    const { messages } = await this.#db.execProtocol(
      concat([
        serialize.bind({ statement: statement.name, values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.sync(),
      ]),
    );
    return parse.parseResults(messages, this.#db.parsers)[0]!.rows as T[];
  }

  async #prepare(sql: string): Promise<Prepared> {
    const name = `svc_${this.#prepared.size}`;
    const { messages } = await this.#db.execProtocol(
      concat([
        serialize.parse({ name, text: sql }),
        serialize.describe({ type: 'S', name }),
        serialize.sync(),
      ]),
    );
    // Only once PostgreSQL has accepted it: a statement that fails to parse is never remembered.
    const prepared = { name, paramTypes: parse.parseDescribeStatementResults(messages) };
    this.#prepared.set(sql, prepared);
    return prepared;
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
