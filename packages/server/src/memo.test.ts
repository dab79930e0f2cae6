import { describe, expect, it } from 'vitest';
import { memoize } from './memo.js';

describe('memoize', () => {
  it('computes once per key, remembers undefined and null results too, and starts afresh at its limit', () => {
    const calls: string[] = [];
    const length = memoize((key: string) => {
      calls.push(key);
      return key === 'none' ? null : key === 'unknown' ? undefined : key.length;
    }, 4);
    expect([length('a'), length('bb'), length('a'), length('none'), length('none')]).toEqual([
      1,
      2,
      1,
      null,
      null,
    ]);
    expect([length('unknown'), length('unknown')]).toEqual([undefined, undefined]);
    expect(calls).toEqual(['a', 'bb', 'none', 'unknown']);
    // A fifth key: the four remembered ones are forgotten, then computed again when asked for.
    expect(length('cccc')).toBe(4);
    expect(length('a')).toBe(1);
    expect(calls).toEqual(['a', 'bb', 'none', 'unknown', 'cccc', 'a']);
  });
});
