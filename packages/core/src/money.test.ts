import { describe, expect, it } from 'vitest';
import { isCurrencyCode } from './currencies.js';
import { currencyExponent, formatMoney, fromMinor, roundHalfAwayFromZero, toMinor } from './money.js';

describe('money', () => {
  it('knows ISO 4217 exponents', () => {
    expect([
      currencyExponent('MXN'),
      currencyExponent('JPY'),
      currencyExponent('CLP'),
      currencyExponent('KWD'),
    ]).toEqual([2, 0, 0, 3]);
  });

  it('recognises real currency codes only', () => {
    expect(isCurrencyCode('MXN')).toBe(true);
    expect(isCurrencyCode('XXQ')).toBe(false);
    expect(isCurrencyCode('mxn')).toBe(false);
  });

  it('rounds half away from zero despite binary floating error', () => {
    expect(roundHalfAwayFromZero(2.5)).toBe(3);
    expect(roundHalfAwayFromZero(-2.5)).toBe(-3);
    expect(roundHalfAwayFromZero(1.005 * 100)).toBe(101);
    expect(toMinor(2.675, 'MXN')).toBe(268);
    expect(toMinor(1.0005, 'KWD')).toBe(1001);
  });

  it('converts between major and minor units', () => {
    expect(fromMinor(toMinor(19.99, 'MXN'), 'MXN')).toBe(19.99);
    expect(fromMinor(1234, 'JPY')).toBe(1234);
  });

  it('formats money in the locale', () => {
    expect(formatMoney(24500, 'MXN', 'es-MX')).toBe('$24,500.00');
    expect(formatMoney(1234.5, 'EUR', 'de')).toMatch(/1\.234,50\s€/);
  });
});
