/** A caller waiting to be counted. */
interface Waiter {
  resolve(place: number): void;
  reject(error: unknown): void;
}

/**
 * Counters whose concurrent increments share statements: while a statement adding to a counter
 * is under way, the callers that come wait, and the next statement adds them all at once (`add(n)`
 * returns the counter's new total) and gives each its own place in the total, in the order they
 * came, as one statement each would have. The database adds, so places stay exact across
 * processes; a process has one statement in flight per counter instead of one per caller, which
 * spares a busy counter's callers from queueing one by one for its row's lock.
 */
export class CountTogether {
  /** The callers waiting, per counter with a statement under way. */
  readonly #lanes = new Map<string, Waiter[]>();

  /** Counts one caller in counter `id` and returns its place (the total right after it). */
  async count(id: string, add: (n: number) => Promise<number>): Promise<number> {
    const waiting = this.#lanes.get(id);
    if (waiting) return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    const lane: Waiter[] = [];
    this.#lanes.set(id, lane);
    try {
      return await add(1);
    } finally {
      void this.#countWaiting(id, lane, add);
    }
  }

  /** Counts the callers that waited behind a statement, each batch in one more statement. */
  async #countWaiting(id: string, lane: Waiter[], add: (n: number) => Promise<number>): Promise<void> {
    while (lane.length > 0) {
      const batch = lane.splice(0);
      try {
        let place = (await add(batch.length)) - batch.length;
        for (const waiter of batch) waiter.resolve(++place);
      } catch (error) {
        for (const waiter of batch) waiter.reject(error);
      }
    }
    this.#lanes.delete(id);
  }
}
