import { describe, expect, it } from 'vitest';
import type { Org } from './orgs.js';
import { exchangeRate } from './pricing.js';

const org = {
  currency: 'MXN',
  widget: { fx_rates: { USD: 18.5, EUR: 20, VND: 0.0000001 } },
} as unknown as Org;

describe('exchangeRate', () => {
  it('gives units of the second currency per unit of the first, to six decimals', () => {
    expect(exchangeRate(org, 'USD', 'MXN')).toBe(18.5);
    expect(exchangeRate(org, 'MXN', 'USD')).toBe(0.054054);
    expect(exchangeRate(org, 'EUR', 'USD')).toBe(1.081081);
  });

  it('answers 503 fx_unavailable without a rate, or with one six decimals cannot write', () => {
    expect(() => exchangeRate(org, 'JPY', 'MXN')).toThrow(
      expect.objectContaining({ status: 503, code: 'fx_unavailable' }),
    );
    expect(() => exchangeRate(org, 'VND', 'MXN')).toThrow(
      expect.objectContaining({ status: 503, code: 'fx_unavailable' }),
    );
  });
});
