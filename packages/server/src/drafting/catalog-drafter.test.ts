import { describe, expect, it } from 'vitest';
import { createCatalogDrafter, draftLines } from './catalog-drafter.js';
import { indexCatalog } from './catalog-index.js';
import { demoCatalog, evaluate, loadCases } from './eval.js';
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

  it('reads compound number words and counts written with a times sign or a colon', () => {
    expect(lines('twenty-five mice')).toEqual(['MOUSE-ERG×25']);
    expect(lines('vingt-cinq souris')).toEqual(['MOUSE-ERG×25']);
    expect(lines('fünfundzwanzig Tastaturen')).toEqual(['KB-MX×25']);
    expect(lines('dos mil quinientas tarjetas')).toEqual(['TARJ-100×25']);
    expect(lines('laptop x2, monitor x3')).toEqual(['LAP-14×2', 'MON-27×3']);
    expect(lines('Monitores: 4, teclados: 4')).toEqual(['MON-27×4', 'KB-MX×4']);
    expect(lines('asesoría de dos horas y media')).toEqual(['CONS-HORA×2.5']);
  });

  it('does not read numbers of names, dates or prices as quantities', () => {
    expect(lines('Office 365 para 12 usuarios')).toEqual(['M365-BASIC×12']);
    expect(lines('un monitor de 27')).toEqual(['MON-27×1']);
    expect(lines('un access point wifi 6')).toEqual(['AP-WIFI6×1']);
    expect(lines('Necesito un logo para el 15 de marzo')).toEqual(['LOGO×1']);
    expect(lines('Tengo un presupuesto de 50000 pesos, necesito 3 laptops')).toEqual(['LAP-14×3']);
  });

  it('understands German compounds and words of the trade in other languages', () => {
    expect(lines('zwei Bildschirme')).toEqual(['MON-27×2']);
    expect(lines('Cloud-Backup für ein Jahr')).toEqual(['BACKUP-1TB×12']);
    expect(lines('Drei Überwachungskameras und eine USV')).toEqual(['CCTV-CAM×3', 'UPS-1KVA×1']);
    expect(lines('trois ordinateurs portables mais pas de souris')).toEqual(['LAP-14×3']);
  });

  it('spreads counts over the things they cover', () => {
    expect(lines('mouse y teclado para 15 empleados')).toEqual(['MOUSE-ERG×15', 'KB-MX×15']);
    expect(lines('two workstations with two monitors each')).toEqual(['LAP-16×2', 'MON-27×4']);
    expect(lines('3 laptops, cada una con 2 monitores')).toEqual(['LAP-14×3', 'MON-27×6']);
    expect(lines('Need 3 laptops with docking stations')).toEqual(['LAP-14×3', 'DOCK-USB×3']);
    expect(lines('un access point para la oficina y otro para la bodega')).toEqual(['AP-WIFI6×2']);
    expect(lines('dos laptops de 14 pulgadas y una de 16')).toEqual(['LAP-14×2', 'LAP-16×1']);
  });

  it('tells a family of products apart by their details', () => {
    expect(lines('2 laptops core i9')).toEqual(['LAP-16×2']);
    expect(lines('2 laptops')).toEqual(['LAP-14×2']);
  });

  it('treats every word as text, whatever it is called', () => {
    expect(lines('constructor de 3 laptops')).toEqual(['LAP-14×3']);
    expect(lines('3 constructor __proto__ hasOwnProperty')).toEqual([]);
  });

  it('indexes a catalog once by its content, and prices from the catalog of the request', () => {
    const copy = catalog.map((p) => ({ ...p, precio_lista: p.precio_lista * 2, moneda: 'USD' }));
    expect(indexCatalog(copy)).toBe(indexCatalog(catalog));
    const [item] = draftLines('una laptop', copy);
    expect(item).toMatchObject({ sku: 'LAP-14', precio_unitario: 49000, producto_id: 'LAP-14' });
    const renamed = catalog.map((p) => (p.sku === 'LOGO' ? { ...p, aliases: [...p.aliases, 'isotipo'] } : p));
    expect(indexCatalog(renamed)).not.toBe(indexCatalog(catalog));
    expect(lines('un isotipo', renamed)).toEqual(['LOGO×1']);
  });

  it('sends the first item within 20 ms', async () => {
    const drafter = createCatalogDrafter();
    const times: number[] = [];
    for (const prompt of ['Necesito 3 laptops y 10 horas de instalación', 'Quote for 2 4K monitors']) {
      const start = performance.now();
      for await (const _ of drafter.draft({ prompt, catalog: catalog.map((p) => ({ ...p })) })) break;
      times.push(performance.now() - start);
    }
    expect(Math.min(...times)).toBeLessThan(20);
  });

  it('keeps F1 above 0.9 on the development set and on our held-out-style set', async () => {
    for (const set of ['dev', 'extra']) {
      const result = await evaluate(loadCases(set));
      expect(result.f1, result.misses.join('\n')).toBeGreaterThanOrEqual(0.9);
    }
  });
});
