import { describe, expect, it } from 'vitest';
import { randomBase62, requestId } from './ids.js';

describe('requestId', () => {
  it('makes req_ and 24 hex characters that never repeat, across refills of its random pool', () => {
    // 4 KiB of random bytes make 341 ids: several refills.
    const ids = Array.from({ length: 2_000 }, requestId);
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('randomBase62', () => {
  it('makes tokens of the length asked for, from all 62 characters, never twice', () => {
    const tokens = Array.from({ length: 1_000 }, () => randomBase62(40));
    for (const token of tokens) expect(token).toMatch(/^[0-9A-Za-z]{40}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
    // 40,000 characters: every one of the 62 appears, none far more often than the others.
    const counts = new Map<string, number>();
    for (const char of tokens.join('')) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const n of counts.values()) expect(n).toBeGreaterThan(400);
    expect(randomBase62(3000)).toHaveLength(3000);
  });
});
