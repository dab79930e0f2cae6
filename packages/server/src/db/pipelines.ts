import pg from 'pg';

/**
 * A few PostgreSQL connections in pg's pipeline mode, for the statements run with a generic plan
 * (the quote writer's batch statement). A statement is written to its connection at once, even
 * while earlier ones are under way, each with its own Sync: PostgreSQL runs them one after the
 * other, each committing on its own, and starts the next as soon as the last commits, with no
 * wait for this process to read the answer and send another. On this 2-core machine that wait was
 * two thirds of a statement's time (docs/performance.md, "what bounds it").
 *
 * The statements of one lane (an organization's creations) always take the same connection, so
 * they run in the order they were sent; other lanes spread over the rest.
 */
export class Pipelines {
  readonly #config: pg.ClientConfig;
  readonly #slots: (Promise<pg.Client> | undefined)[];
  #closing = false;

  /** `config` as every connection of the service is opened (postgres.ts `connectionConfig`). */
  constructor(config: pg.ClientConfig, size: number) {
    this.#config = config;
    this.#slots = Array.from({ length: Math.max(1, size) }, () => undefined);
  }

  /** Runs `query` on the connection of `lane`, pipelined behind whatever that connection is running. */
  async query(query: pg.QueryConfig, lane: string): Promise<pg.QueryResult> {
    const client = await this.#client(slotOf(lane, this.#slots.length));
    return client.query(query);
  }

  async close(): Promise<void> {
    this.#closing = true;
    const open = this.#slots.splice(0);
    await Promise.all(open.map((client) => client?.then((c) => c.end()).catch(() => {})));
  }

  /** The slot's connection, opened when first needed and again after it was lost. */
  #client(slot: number): Promise<pg.Client> {
    if (this.#closing) return Promise.reject(new Error('the database is closing'));
    const open = this.#slots[slot];
    if (open) return open;
    const client = new pg.Client({ ...this.#config, pipeline: true } as pg.ClientConfig);
    const opening = client.connect().then(() => client);
    // A lost connection fails the statements under way on it (their callers write again or answer
    // with the error) and is replaced on the next statement. Without a listener, its 'error' would
    // crash the process.
    const forget = () => {
      if (this.#slots[slot] === opening) this.#slots[slot] = undefined;
    };
    client.on('error', forget);
    client.on('end', forget);
    opening.catch(forget);
    this.#slots[slot] = opening;
    return opening;
  }
}

/** A lane's slot: a stable hash of its name (FNV-1a), so a lane keeps its connection. */
function slotOf(lane: string, slots: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < lane.length; i++) hash = Math.imul(hash ^ lane.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % slots;
}
