import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { maxChars } from './max-chars.js';

const title = v.pipe(v.string(), maxChars(3, 'must be at most 3 characters'));

describe('maxChars', () => {
  it('counts characters, not UTF-16 units: emoji and other astral characters count once', () => {
    expect(v.safeParse(title, '😀😀😀').success).toBe(true);
    expect(v.safeParse(title, 'abc').success).toBe(true);
    const over = v.safeParse(title, '😀😀😀😀');
    expect(over.success).toBe(false);
    expect(over.issues?.[0]?.message).toBe('must be at most 3 characters');
    expect(v.safeParse(title, 'abcd').success).toBe(false);
  });

  it('keeps maxLength’s type and requirement, which the JSON Schema of the API states', () => {
    expect(maxChars(200, 'at most 200')).toMatchObject({
      kind: 'validation',
      type: 'max_length',
      requirement: 200,
    });
  });
});
