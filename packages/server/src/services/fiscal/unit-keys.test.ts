import { describe, expect, it } from 'vitest';
import { satUnitKey } from './unit-keys.js';

describe('satUnitKey', () => {
  it('reads a unit in the five languages, singular or plural, with or without accents', () => {
    expect(satUnitKey('hora')).toBe('HUR');
    expect(satUnitKey('Horas')).toBe('HUR');
    expect(satUnitKey('Stunden')).toBe('HUR');
    expect(satUnitKey('años')).toBe('ANN');
    expect(satUnitKey('meses')).toBe('MON');
    expect(satUnitKey('mes')).toBe('MON');
    expect(satUnitKey('Stück')).toBe('H87');
    expect(satUnitKey('boîte')).toBe('XBX');
    expect(satUnitKey('paquetes')).toBe('XPK');
    expect(satUnitKey('m²')).toBe('MTK');
    expect(satUnitKey('Servicio')).toBe('E48');
    expect(satUnitKey('licencias')).toBe('E48');
    expect(satUnitKey('Lizenzen')).toBe('E48');
    expect(satUnitKey('Dienstleistungen')).toBe('E48');
    expect(satUnitKey('Pakete')).toBe('XPK');
    expect(satUnitKey('Einheiten')).toBe('H87');
    expect(satUnitKey('metros cuadrados')).toBe('MTK');
  });

  it('names nothing for words it does not know', () => {
    expect(satUnitKey('tanque')).toBeUndefined();
    expect(satUnitKey('ms')).toBeUndefined();
    expect(satUnitKey('')).toBeUndefined();
    expect(satUnitKey(null)).toBeUndefined();
  });
});
