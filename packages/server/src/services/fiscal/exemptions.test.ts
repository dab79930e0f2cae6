import { describe, expect, it } from 'vitest';
import { derivedExemption } from './exemptions.js';

describe('derivedExemption', () => {
  it('gives a Spanish seller Spain’s causes and other EU sellers the EU classification', () => {
    expect(derivedExemption('ES', 'FR')).toBe('E5');
    expect(derivedExemption('ES', 'US')).toBe('E2');
    expect(derivedExemption('DE', 'FR')).toBe('VATEX-EU-IC');
    expect(derivedExemption('DE', 'MX')).toBe('VATEX-EU-G');
  });

  it('derives nothing the client does not tell: domestic, unknown country, a seller outside the EU', () => {
    expect(derivedExemption('ES', 'ES')).toBeNull();
    expect(derivedExemption('ES', null)).toBeNull();
    expect(derivedExemption('MX', 'ES')).toBeNull();
  });
});
