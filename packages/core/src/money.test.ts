import { describe, expect, it } from 'vitest';
import { isCurrencyCode } from './currencies.js';
import {
  convertPrice,
  currencyExponent,
  formatMoney,
  fromMinor,
  roundHalfAwayFromZero,
  toMinor,
} from './money.js';

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
    // Large amounts keep their decimals: 62,500,000,003 centavos × 0.16 = 10,000,000,000.48.
    expect(roundHalfAwayFromZero(62_500_000_003 * 0.16)).toBe(10_000_000_000);
    expect(toMinor(123_456_789.0146, 'MXN')).toBe(12_345_678_901);
  });

  it('converts between major and minor units', () => {
    expect(fromMinor(toMinor(19.99, 'MXN'), 'MXN')).toBe(19.99);
    expect(fromMinor(1234, 'JPY')).toBe(1234);
  });

  it('formats money in the locale', () => {
    expect(formatMoney(24500, 'MXN', 'es-MX')).toBe('$24,500.00');
    expect(formatMoney(1234.5, 'EUR', 'de')).toMatch(/1\.234,50\s€/);
  });

  it('converts prices through the organization currency, to the minor unit, or not at all', () => {
    const rates = { USD: 18.5, EUR: 20 };
    expect(convertPrice(24500, 'MXN', 'USD', 'MXN', rates)).toBe(1324.32);
    expect(convertPrice(100, 'USD', 'MXN', 'MXN', rates)).toBe(1850);
    expect(convertPrice(100, 'USD', 'EUR', 'MXN', rates)).toBe(92.5);
    expect(convertPrice(10, 'USD', 'USD', 'MXN', {})).toBe(10);
    expect(convertPrice(1000, 'MXN', 'JPY', 'MXN', { JPY: 0.12 })).toBe(8333);
    expect(convertPrice(100, 'MXN', 'EUR', 'MXN', { USD: 18.5 })).toBeNull();
  });
});
