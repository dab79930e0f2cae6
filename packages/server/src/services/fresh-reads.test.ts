import { describe, expect, it } from 'vitest';
import { freshReads } from './fresh-reads.js';

/** A read of `value` as it is when the read begins, answering when `finish()` is called. */
function controlledRead() {
  const pending: (() => void)[] = [];
  const state = { value: 0, reads: 0 };
  const read = (_key: string) =>
    new Promise<number>((resolve) => {
      state.reads++;
      const seen = state.value;
      pending.push(() => resolve(seen));
    });
  const finish = async () => {
    pending.shift()!();
    // Let the settled read's handlers run, and the queued read begin.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { state, read, finish };
}

describe('freshReads', () => {
  it('answers the callers who asked while a read was under way with one more read, begun after them', async () => {
    const { state, read, finish } = controlledRead();
    const shared = freshReads(read, (key) => key);
    const first = shared('org');
    state.value = 1; // a write commits after the first read began
    const later = Array.from({ length: 5 }, () => shared('org'));
    expect(state.reads).toBe(1);
    await finish();
    expect(await first).toBe(0);
    expect(state.reads).toBe(2);
    await finish();
    expect(await Promise.all(later)).toEqual([1, 1, 1, 1, 1]);
  });

  it('never hands a caller the queued read once it has begun: the caller waits for the next', async () => {
    const { state, read, finish } = controlledRead();
    const shared = freshReads(read, (key) => key);
    void shared('org');
    const queued = shared('org');
    await finish(); // the queued read begins, seeing 0
    state.value = 2;
    const after = shared('org');
    await finish();
    expect(await queued).toBe(0);
    await finish();
    expect(await after).toBe(2);
    expect(state.reads).toBe(3);
  });

  it('keeps keys apart and lets a failed read fail only its own callers', async () => {
    let fail = true;
    const shared = freshReads(
      async (key: string) => {
        if (fail) throw new Error(`no ${key}`);
        return key.length;
      },
      (key) => key,
    );
    const [a, b] = [shared('a'), shared('bb')];
    await expect(a).rejects.toThrow('no a');
    await expect(b).rejects.toThrow('no bb');
    fail = false;
    expect(await shared('bb')).toBe(2);
  });
});
