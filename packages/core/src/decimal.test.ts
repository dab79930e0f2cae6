import { assert, describe, it } from 'vitest';
import { parseDecimal, readNumber } from './decimal.js';

describe('parseDecimal', () => {
  it('reads the locale’s decimal mark, and the other one when it cannot be grouping', () => {
    assert.equal(parseDecimal('2,5', ','), 2.5);
    assert.equal(parseDecimal('2.5', ','), 2.5);
    assert.equal(parseDecimal('2,5', '.'), 2.5);
    assert.equal(parseDecimal('1234,56', ','), 1234.56);
    assert.equal(parseDecimal('0.500', ','), 0.5);
    assert.equal(parseDecimal(',5', ','), 0.5);
  });

  it('reads thousands groups written the locale’s way or the other', () => {
    assert.equal(parseDecimal('1.500', ','), 1500);
    assert.equal(parseDecimal('1,500', '.'), 1500);
    assert.equal(parseDecimal('1.234.567', '.'), 1234567);
    assert.equal(parseDecimal('1.234,56', ','), 1234.56);
    assert.equal(parseDecimal('1,234.56', ','), 1234.56);
    assert.equal(parseDecimal('1\u202f234,5', ','), 1234.5, 'French groups with a narrow space');
  });

  it('is NaN for text that is not a number', () => {
    for (const raw of ['', 'zwei', '2x', '1,2,3.4,5', '12,34.5', '-3', '1e5', '2,5,'])
      assert.isNaN(parseDecimal(raw, ','), raw);
  });
});

describe('readNumber', () => {
  it('keeps min, max and whole units', () => {
    assert.equal(readNumber('2,5', ',', 0.001, 10, false), 2.5);
    assert.isNull(readNumber('2,5', ',', 1, 10, true), 'whole units only');
    assert.isNull(readNumber('0', ',', 0.001, 10, false));
    assert.isNull(readNumber('11', ',', 1, 10, true));
    assert.equal(readNumber('1,23456', ',', 0, 10, false, 2), 1.23);
  });
});
