import { describe, expect, it } from 'vitest';
import { createCatalogDrafter, draftLines } from './catalog-drafter.js';
import { demoCatalog, evaluate } from './eval.js';
import dev from './fixtures/ai-draft-dev.json' with { type: 'json' };
import extra from './fixtures/ai-draft-extra.json' with { type: 'json' };
import type { CatalogProduct } from './types.js';

const catalog = demoCatalog();
const lines = (text: string, c: CatalogProduct[] = catalog) =>
  draftLines(text, c).map((i) => `${i.sku}×${i.cantidad}`);

describe('catalog drafter', () => {
  it('reads quantities in digits and in words, in five languages', () => {
    expect(lines('3 teclados')).toEqual(['KB-MX×3']);
    expect(lines('tres teclados')).toEqual(['KB-MX×3']);
    expect(lines('three keyboards')).toEqual(['KB-MX×3']);
    expect(lines('três teclados')).toEqual(['KB-MX×3']);
    expect(lines('trois claviers')).toEqual(['KB-MX×3']);
    expect(lines('drei Tastaturen')).toEqual(['KB-MX×3']);
    expect(lines('veinticinco mouse')).toEqual(['MOUSE-ERG×25']);
    expect(lines('treinta y cinco cables hdmi')).toEqual(['HDMI-2M×35']);
  });

  it('understands dozens, pairs, halves and thousands', () => {
    expect(lines('a dozen monitors')).toEqual(['MON-27×12']);
    expect(lines('media docena de monitores')).toEqual(['MON-27×6']);
    expect(lines('un par de monitores')).toEqual(['MON-27×2']);
    expect(lines('mil tarjetas')).toEqual(['TARJ-100×10']);
  });

  it('converts pieces into packs when the product is sold in packs', () => {
    expect(lines('300 tarjetas de presentación')).toEqual(['TARJ-100×3']);
    expect(lines('250 business cards')).toEqual(['TARJ-100×3']);
    expect(lines('2 paquetes de tarjetas')).toEqual(['TARJ-100×2']);
  });

  it('turns durations into months or years for monthly and yearly items', () => {
    expect(lines('soporte técnico mensual por 6 meses')).toEqual(['SOPORTE-MES×6']);
    expect(lines('respaldo en la nube por un año')).toEqual(['BACKUP-1TB×12']);
    expect(lines('hosting for 3 years')).toEqual(['HOSTING-ANUAL×3']);
  });

  it('drops what the customer says they do not want', () => {
    expect(lines('4 laptops sin monitores')).toEqual(['LAP-14×4']);
    expect(lines('4 laptops, no quiero monitores')).toEqual(['LAP-14×4']);
    expect(lines('2 laptops sans écran')).toEqual(['LAP-14×2']);
    expect(lines('2 no-break')).toEqual(['UPS-1KVA×2']);
  });

  it('forgives plurals, missing accents and small typos, and uses aliases', () => {
    expect(lines('4 laptps')).toEqual(['LAP-14×4']);
    expect(lines('2 monitres')).toEqual(['MON-27×2']);
    expect(lines('capacitacion de 3 horas')).toEqual(['CAP-HORA×3']);
    expect(lines('un nobreak')).toEqual(['UPS-1KVA×1']);
  });

  it('tells products apart by the attributes the customer names', () => {
    expect(lines('una laptop de 16 pulgadas')).toEqual(['LAP-16×1']);
    expect(lines('una laptop de 14"')).toEqual(['LAP-14×1']);
  });

  it('gives "for each one" the quantity of the first thing', () => {
    expect(lines('3 laptops con dock y monitor para cada una')).toEqual([
      'LAP-14×3',
      'DOCK-USB×3',
      'MON-27×3',
    ]);
  });

  it('proposes nothing when nothing fits', () => {
    expect(lines("Une machine à café, s'il vous plaît")).toEqual([]);
    expect(lines('Quiero reservar un vuelo')).toEqual([]);
    expect(lines('')).toEqual([]);
  });

  it('works for any catalog, not just the demo', () => {
    const print: CatalogProduct[] = [
      {
        id: 'a',
        sku: 'FLY-A5',
        nombre: 'Volantes A5 (paquete de 500)',
        unidad: 'paquete',
        precio_lista: 900,
        moneda: 'MXN',
        tax_rate: 0.16,
        aliases: ['volantes', 'flyers'],
      },
      {
        id: 'b',
        sku: 'LONA',
        nombre: 'Lona impresa por metro cuadrado',
        unidad: 'm2',
        precio_lista: 180,
        moneda: 'MXN',
        tax_rate: 0.16,
        aliases: ['banner', 'lona'],
      },
    ];
    expect(lines('1000 volantes y 3 lonas', print)).toEqual(['FLY-A5×2', 'LONA×3']);
  });

  it('prices every line from the catalog and stops when aborted', async () => {
    const controller = new AbortController();
    const items = [];
    for await (const item of createCatalogDrafter().draft({
      prompt: '2 laptops y 2 monitores',
      catalog,
      signal: controller.signal,
    })) {
      items.push(item);
      expect(item.precio_unitario).toBe(catalog.find((p) => p.sku === item.sku)!.precio_lista);
      controller.abort();
    }
    expect(items).toHaveLength(1);
  });

  it('keeps F1 above 0.9 on the development set and on our held-out-style set', async () => {
    for (const set of [dev, extra]) {
      const result = await evaluate(set.cases);
      expect(result.f1).toBeGreaterThanOrEqual(0.9);
    }
  });
});
