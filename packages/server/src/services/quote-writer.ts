import type { Database } from '../db/database.js';
import { uuid } from '../ids.js';
import { StoredMeanwhile } from '../middleware/idempotency-batched.js';
import {
  type BatchedQuote,
  type BatchOutcome,
  creationLane,
  insertQuoteBatch,
  STORED_RESPONSE_KEY,
} from '../repositories/quote-batch.js';
import {
  type InsertQuoteOptions,
  insertQuote,
  type NewQuote,
  type QuoteItemRow,
  type QuoteRow,
  storedQuote,
} from '../repositories/quotes.js';

/** The most quotes one statement creates; more waiting take the next one. */
const MAX_BATCH = 64;

/** What became of a quote given to the writer. */
export interface WriteOutcome {
  /** The quote as created; undefined when it was not. */
  row: QuoteRow | undefined;
  /**
   * For a quote priced from memory that was not created: what its counters counted (or read),
   * in order, or null when nothing was counted (its statement failed).
   */
  counts: number[] | null;
}

interface Waiting {
  quote: BatchedQuote;
  now: Date;
  /** Priced from memory ({@link QuoteWriter.insertFromMemory}): written only by the batch statement. */
  fromMemory: boolean;
  /** Carries its stored response ({@link QuoteWriter.insertIdempotent}): only the batch statement writes that. */
  idempotent?: boolean;
  resolve: (outcome: WriteOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * Writes new quotes with group commit. Every creation of an organization (in one mode) locks the
 * same folio counter row, so they are written one after another anyway: while one statement is
 * under way, the creations that arrive meanwhile wait here and are then written together, in one
 * statement ({@link insertQuoteBatch}), rather than each queueing for the lock in a statement of
 * its own. On PostgreSQL, when several wait, a second statement is sent behind the first, on the
 * same connection, and runs as soon as the first commits ({@link pipelineDepth}). Alone, a
 * creation is written at once by {@link insertQuote}, as without the writer; a creation priced
 * from memory ({@link QuoteWriter.insertFromMemory}) always by the batch statement, which checks
 * what it was priced with.
 *
 * Nothing changes for the caller: the promise settles once its quote committed (or failed), with
 * the same result {@link insertQuote} gives. A quote the batch leaves out (its coupon changed
 * since it was read), and every quote of a batch whose statement failed, is written again on its
 * own, so one bad request never fails the others and each gets its own answer.
 */
export class QuoteWriter {
  readonly #db: Database;
  /** Per organization and mode with a write under way: the creations waiting, and the writes. */
  readonly #lanes = new Map<string, Lane>();
  /** How many statements of one lane may be under way at once (see {@link pipelineDepth}). */
  readonly #depth: number;

  constructor(db: Database) {
    this.#db = db;
    this.#depth = pipelineDepth(db);
  }

  /**
   * Creates the quote as {@link insertQuote} does; undefined when its coupon had no use left.
   * Quotes with a new client or a coupon with a use limit, and quotes created in a transaction,
   * are written on their own.
   */
  async insert(
    quote: NewQuote,
    items: QuoteItemRow[],
    options: InsertQuoteOptions & { coupon: BatchedQuote['coupon']; couponLimited: boolean },
  ): Promise<QuoteRow | undefined> {
    // In a transaction (an idempotent request's) the quote commits with it, not with others.
    if (options.couponLimited || this.#db.inTransaction()) {
      return insertQuote(this.#db, quote, items, options);
    }
    const key = queueKey(quote);
    const lane = this.#lanes.get(key);
    if (lane) {
      const batched = {
        id: uuid(),
        quote,
        items,
        eventData: options.eventData,
        coupon: options.coupon,
        newClient: options.newClient,
      };
      return new Promise<WriteOutcome>((resolve, reject) =>
        this.#wait(key, { quote: batched, now: options.now, fromMemory: false, resolve, reject }),
      ).then((outcome) => outcome.row);
    }
    this.#lanes.set(key, { waiting: [], writes: 1, alone: true });
    try {
      return await insertQuote(this.#db, quote, items, options);
    } finally {
      void this.#written(key, 1);
    }
  }

  /**
   * Creates a quote priced with inputs from memory, not read for it (`quote.versions`), and counts
   * its rate counters, in the batch statement even when it is alone: that statement checks what
   * the quote was priced with and leaves it out when anything changed or a counter is over. Then
   * the outcome has no row, and the caller refuses it by its counts or reads its inputs afresh.
   * In a transaction (an idempotent request's) it is written at once, in that transaction, and a
   * failing statement fails the caller, whose transaction cannot go on.
   */
  insertFromMemory(quote: Omit<BatchedQuote, 'id'>, now: Date): Promise<WriteOutcome> {
    const batched = { id: uuid(), ...quote };
    if (this.#db.inTransaction()) return this.#writeInTransaction(batched, now);
    return this.#enqueue(quote.quote, { quote: batched, now, fromMemory: true });
  }

  /**
   * Creates a quote together with an idempotent call's response (`quote.stored`), always by the
   * batch statement, so both commit together; alone, in a batch of its own. Undefined when its
   * coupon had no use left for it. Rejects with {@link StoredMeanwhile}, having written nothing,
   * when a response is already stored under the call's key (a duplicate's, or an earlier one's).
   */
  insertIdempotent(quote: BatchedQuote, now: Date): Promise<QuoteRow | undefined> {
    // In a transaction (one that counted the plan's clients under its lock) it is written at once.
    if (this.#db.inTransaction()) {
      return this.#writeInTransaction(quote, now).then(
        (outcome) => outcome.row,
        (error) => {
          throw asStoredMeanwhile(error);
        },
      );
    }
    return this.#enqueue(quote.quote, { quote, now, fromMemory: false, idempotent: true }).then(
      (outcome) => outcome.row,
    );
  }

  /**
   * {@link insertIdempotent} for a quote priced with inputs from memory (`quote.versions`, and a
   * client it presumes new, `quote.presumedNew`): when the statement leaves it out, the outcome has
   * no row, and the caller refuses it by its counts or reads its inputs afresh, as after
   * {@link insertFromMemory}. Rejects with {@link StoredMeanwhile} as {@link insertIdempotent} does.
   */
  insertIdempotentFromMemory(quote: BatchedQuote, now: Date): Promise<WriteOutcome> {
    return this.#enqueue(quote.quote, { quote, now, fromMemory: true, idempotent: true });
  }

  #enqueue(quote: NewQuote, entry: Omit<Waiting, 'resolve' | 'reject'>): Promise<WriteOutcome> {
    return new Promise((resolve, reject) => this.#wait(queueKey(quote), { ...entry, resolve, reject }));
  }

  /** Queues a creation in its lane, and starts a write if the lane has room for one. */
  #wait(key: string, waiting: Waiting): void {
    let lane = this.#lanes.get(key);
    if (!lane) {
      lane = { waiting: [], writes: 0, alone: false };
      this.#lanes.set(key, lane);
    }
    lane.waiting.push(waiting);
    if (lane.gathering && lane.waiting.length >= lane.gathering.want) lane.gathering.done();
    this.#start(key, lane);
  }

  /** Starts writes of what waits in a lane, up to the pipeline's depth; forgets an idle lane. */
  #start(key: string, lane: Lane): void {
    while (this.#mayStart(lane)) {
      lane.writes++;
      const batch = lane.waiting.splice(0, MAX_BATCH);
      lane.alone = !inBatchStatement(batch);
      void this.#write(batch).finally(() => this.#written(key, batch.length));
    }
    if (lane.writes === 0) this.#lanes.delete(key);
  }

  /** Whether a lane's waiting creations may start a statement now. */
  #mayStart(lane: Lane): boolean {
    if (lane.waiting.length === 0) return false;
    if (lane.writes === 0) return true;
    // Only behind a batch statement, on the lane's connection, does a second one keep their order.
    return !lane.alone && lane.writes < this.#depth && lane.waiting.length >= SECOND_WRITE_AFTER;
  }

  /** A write of the lane ended, with `answered` creations: start the next. */
  async #written(key: string, answered: number): Promise<void> {
    const lane = this.#lanes.get(key)!;
    if (this.#db.kind === 'pglite') {
      // PGlite runs a statement in this thread, synchronously: the requests that arrived meanwhile
      // are still unread. Two turns of the event loop read and price them (reading the body is one
      // turn, hashing the idempotency fingerprint another), so they join the next batch instead of
      // waiting for the one after: at 10 connections, 3.4 quotes a statement became 9.2.
      await nextTurns(2);
      await this.#gather(lane, Math.min(answered, MAX_BATCH));
    }
    lane.writes--;
    this.#start(key, lane);
  }

  /**
   * On PGlite, waits until as many creations wait as the last statement answered, or
   * {@link GATHER_MS} passed. Their clients, just answered, send their next requests within a
   * few tenths of a millisecond, and the first one back would otherwise be written alone while
   * the rest queued behind it: at 10 connections statements of one and of ten took turns (a
   * third of them of one, each costing this thread ~3 ms against ~10 ms for ten). A lone
   * visitor waits for nothing: one answered, one waiting is enough.
   */
  #gather(lane: Lane, want: number): Promise<void> {
    if (lane.waiting.length >= want) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        lane.gathering = undefined;
        resolve();
      };
      const timer = setTimeout(done, GATHER_MS);
      lane.gathering = { want, done };
    });
  }

  async #writeInTransaction(quote: BatchedQuote, now: Date): Promise<WriteOutcome> {
    const { org_id, mode } = quote.quote;
    const outcome = (await insertQuoteBatch(this.#db, { orgId: org_id, mode }, [quote], now)).get(quote.id)!;
    if (outcome.storedAlready) throw new StoredMeanwhile();
    return {
      row: outcome.created && storedQuote(quote.quote, outcome.created),
      counts: outcome.counts,
    };
  }

  async #write(batch: Waiting[]): Promise<void> {
    let outcomes = new Map<string, BatchOutcome>();
    if (inBatchStatement(batch)) {
      const { org_id, mode } = batch[0]!.quote.quote;
      try {
        outcomes = await insertQuoteBatch(
          this.#db,
          { orgId: org_id, mode },
          batch.map((waiting) => waiting.quote),
          batch[0]!.now,
        );
      } catch {
        // Each is written again on its own below, and answered with its own error if it has one.
      }
    }
    // One after another, so that folios still follow the order of arrival.
    for (const waiting of batch) {
      const outcome = outcomes.get(waiting.quote.id);
      if (outcome?.created) {
        waiting.resolve({ row: storedQuote(waiting.quote.quote, outcome.created), counts: outcome.counts });
        continue;
      }
      if (outcome?.storedAlready) {
        waiting.reject(new StoredMeanwhile());
        continue;
      }
      if (waiting.fromMemory) {
        waiting.resolve({ row: undefined, counts: outcome?.counts ?? null });
        continue;
      }
      if (waiting.idempotent) {
        await this.#writeIdempotentAlone(waiting, batch.length === 1 ? outcome : undefined);
        continue;
      }
      try {
        const { quote, items, eventData, newClient } = waiting.quote;
        const row = await insertQuote(this.#db, quote, items, { now: waiting.now, eventData, newClient });
        waiting.resolve({ row, counts: null });
      } catch (error) {
        waiting.reject(error);
      }
    }
  }

  /**
   * Writes an idempotent creation the batch left out (or that failed with it) in a batch of its
   * own; `outcome` is what its own batch already gave, when it was alone in it.
   */
  async #writeIdempotentAlone(waiting: Waiting, outcome: BatchOutcome | undefined): Promise<void> {
    try {
      if (!outcome) {
        const { org_id, mode } = waiting.quote.quote;
        const outcomes = await insertQuoteBatch(
          this.#db,
          { orgId: org_id, mode },
          [waiting.quote],
          waiting.now,
        );
        outcome = outcomes.get(waiting.quote.id)!;
      }
      if (outcome.storedAlready) {
        waiting.reject(new StoredMeanwhile());
        return;
      }
      waiting.resolve({
        row: outcome.created && storedQuote(waiting.quote.quote, outcome.created),
        counts: outcome.counts,
      });
    } catch (error) {
      waiting.reject(asStoredMeanwhile(error));
    }
  }
}

/** Resolves after `turns` turns of the event loop (its I/O included). */
async function nextTurns(turns: number): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Whether a batch is written by the batch statement, rather than a lone creation by {@link insertQuote}. */
function inBatchStatement(batch: Waiting[]): boolean {
  return batch.length > 1 || batch[0]!.fromMemory || batch[0]!.idempotent === true;
}

interface Lane {
  waiting: Waiting[];
  /** On PGlite, between two statements: how many creations the next one waits for (`#gather`). */
  gathering?: { want: number; done: () => void } | undefined;
  /** The last write started is a lone creation's, on a connection of the pool, not the lane's. */
  alone: boolean;
  /** Statements under way. */
  writes: number;
}

/**
 * On PostgreSQL, up to two statements of a lane are under way at once: the second is sent on the
 * first's connection, pipelined (its lane's, db/pipelines.ts), so PostgreSQL runs it the moment
 * the first commits, while this process is still reading the first's answer and replying. Folios
 * stay consecutive and in arrival order: one connection runs a lane's statements in the order they
 * were sent. PGlite runs one statement at a time, in this thread.
 */
function pipelineDepth(db: Database): number {
  return db.kind === 'pglite' ? 1 : 2;
}

/**
 * A second statement is sent only when this many creations wait. It costs PostgreSQL ~0.6 ms
 * besides ~0.2 ms a quote, and saves its quotes the wait for the first's answer: ~2.5 ms on this
 * 2-core machine at 10 connections, most of it the backend and this process waiting for a core
 * (docs/performance.md). With one or two it split batches and cost more than it saved; at 5 the
 * widget's submissions settled in statements of five, one written while the other is answered:
 * at 10 connections 1,880–2,371 a second against 1,341–1,522 with one statement at a time; at 50,
 * +13 % (stop 41, alternating loads; 3, 4, 6 and 8 did less).
 */
const SECOND_WRITE_AFTER = 5;

/**
 * The longest a PGlite statement waits for the creations of the clients the last one answered.
 * At 10 connections, waiting up to 4 ms gave +13 to +20 % (alternating loads, stop 43), 2 ms
 * +7 to +18 %; a client whose next request never comes costs the others at most this.
 */
const GATHER_MS = 4;

const queueKey = (quote: NewQuote) => creationLane(quote.org_id, quote.mode);

const writers = new WeakMap<Database, QuoteWriter>();

/** The quote writer of a database: one per connection pool, shared by all its requests. */
export function quoteWriter(db: Database): QuoteWriter {
  let writer = writers.get(db);
  if (!writer) {
    writer = new QuoteWriter(db);
    writers.set(db, writer);
  }
  return writer;
}

/** A duplicate's stored response found by its unique key: {@link StoredMeanwhile}; any other error as it is. */
const asStoredMeanwhile = (error: unknown): unknown =>
  (error as { constraint?: string }).constraint === STORED_RESPONSE_KEY ? new StoredMeanwhile() : error;
