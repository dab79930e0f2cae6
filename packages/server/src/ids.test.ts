import { describe, expect, it } from 'vitest';
import { requestId } from './ids.js';

describe('requestId', () => {
  it('makes req_ and 24 hex characters that never repeat, across refills of its random pool', () => {
    // 4 KiB of random bytes make 341 ids: several refills.
    const ids = Array.from({ length: 2_000 }, requestId);
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
