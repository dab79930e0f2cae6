/**
 * A read that concurrent callers share without any of them getting an answer older than its own
 * call: each caller joins the next read to begin, never one already under way. With a read under
 * way, callers queue for one more, which begins when it ends and answers all of them; so a hot key
 * costs at most two reads in flight, however many callers ask, and each answer still reflects
 * every write committed before its caller asked (what a read of its own would give).
 *
 * Callers whose arguments have the same `keyOf` share reads (the first one's argument is read).
 * One small entry is kept per key (an organization and mode, say), for the process's life.
 */
export function freshReads<A, V>(
  read: (arg: A) => Promise<V>,
  keyOf: (arg: A) => string,
): (arg: A) => Promise<V> {
  const slots = new Map<string, { running?: Promise<V> | undefined; queued?: Promise<V> | undefined }>();
  const begin = (arg: A, slot: { running?: Promise<V> | undefined }) => {
    const running: Promise<V> = read(arg).finally(() => {
      if (slot.running === running) slot.running = undefined;
    });
    slot.running = running;
    return running;
  };
  return (arg) => {
    const key = keyOf(arg);
    let slot = slots.get(key);
    if (!slot) {
      slot = {};
      slots.set(key, slot);
    }
    if (!slot.running) return begin(arg, slot);
    const queuedFor = slot;
    slot.queued ??= slot.running
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        queuedFor.queued = undefined;
        return begin(arg, queuedFor);
      });
    return slot.queued;
  };
}
