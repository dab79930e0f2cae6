import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCatalogDrafter, draftLines, draftRequest } from './catalog-drafter.js';
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
    // After tens, "un"/"una" is the number's one, not another thing: 41, 21, 21, 31.
    expect(lines('cuarenta y una cámaras')).toEqual(['CCTV-CAM×41']);
    expect(lines('vinte e um mouses')).toEqual(['MOUSE-ERG×21']);
    expect(lines('vingt et un claviers')).toEqual(['KB-MX×21']);
    expect(lines('trente et une caméras')).toEqual(['CCTV-CAM×31']);
    expect(lines('veinte laptops y un monitor')).toEqual(['LAP-14×20', 'MON-27×1']);
    // French 70s and 90s: 60 and 80 plus 10–19.
    expect(lines('soixante et onze claviers')).toEqual(['KB-MX×71']);
    expect(lines('quatre-vingt-douze claviers')).toEqual(['KB-MX×92']);
  });

  it('adds up a product asked for twice with a count each time, and reads "y media" as the half it is', () => {
    expect(lines('2 laptops para ventas y 3 laptops para diseño')).toEqual(['LAP-14×5']);
    expect(lines('2 monitores y otros 3 monitores')).toEqual(['MON-27×5']);
    // Named twice in one thing: not twice.
    expect(lines('hosting y dominio por 2 años')).toEqual(['HOSTING-ANUAL×2']);
    // The "y" of "y media" names no product ("Hosting y dominio").
    expect(lines('consultoría de 2 horas y media')).toEqual(['CONS-HORA×2.5']);
    expect(lines('instalación de 2 horas y media')).toEqual(['INST-HORA×2.5']);
  });

  it('reads people or places followed by what they come with as a bundle, without an "each"', () => {
    expect(lines('10 usuarios con correo corporativo y antivirus')).toEqual(['M365-BASIC×10', 'AV-ANUAL×10']);
    expect(lines('5 employees with a laptop and a mouse')).toEqual(['LAP-14×5', 'MOUSE-ERG×5']);
    expect(lines('2 oficinas con un access point')).toEqual(['AP-WIFI6×2']);
    // Things with things are not seats: the docking is one.
    expect(lines('3 laptops con docking')).toEqual(['LAP-14×3', 'DOCK-USB×1']);
  });

  it('reads a German compound whose first part has two letters by its last part', () => {
    expect(lines('IT-Support für drei Monate')).toEqual(['SOPORTE-MES×3']);
  });

  it('never reads a price as a quantity, and keeps a count written with "x" to its thing', () => {
    expect(lines('LAP-14 x 2 precio 100')).toEqual(['LAP-14×2']);
    expect(lines('3 monitores, precio unitario 5000')).toEqual(['MON-27×3']);
    expect(lines('Preis 50 für 4 Tastaturen')).toEqual(['KB-MX×4']);
    expect(lines('monitor x 2 para la oficina')).toEqual(['MON-27×2']);
    expect(lines('laptop x 2 y monitor x 3')).toEqual(['LAP-14×2', 'MON-27×3']);
  });

  it('understands dozens, pairs, halves and thousands', () => {
    expect(lines('a dozen monitors')).toEqual(['MON-27×12']);
    expect(lines('media docena de monitores')).toEqual(['MON-27×6']);
    expect(lines('un par de monitores')).toEqual(['MON-27×2']);
    expect(lines('mil tarjetas')).toEqual(['TARJ-100×10']);
    // Millions scale everything before them ("tres mil millones"), in five languages.
    expect(lines('un millón de mouse')).toEqual(['MOUSE-ERG×1000000']);
    expect(lines('one million mice')).toEqual(['MOUSE-ERG×1000000']);
    expect(lines('um milhão de mouses')).toEqual(['MOUSE-ERG×1000000']);
    expect(lines('un million de souris')).toEqual(['MOUSE-ERG×1000000']);
    expect(lines('eine Million Mäuse')).toEqual(['MOUSE-ERG×1000000']);
    expect(lines('medio millón de mouse')).toEqual(['MOUSE-ERG×500000']);
    // Over the drafter's 1,000,000: said, not drafted as 2 or 3,000.
    for (const text of ['dos millones de mouse', 'two million mice', 'tres mil millones de mouse']) {
      const over = draftRequest(text, catalog);
      expect(over.items).toEqual([]);
      expect(over.skipped).toEqual([{ text: expect.stringMatching(/mi/), reason: 'invalid_quantity' }]);
    }
  });

  it('drafts a part of a unit only of a product sold in parts, and says what it left out', () => {
    const sold = (fraccionable: boolean) =>
      catalog.map((p) => (p.sku === 'DOCK-USB' ? { ...p, fraccionable } : p));
    expect(lines('1.5 docking stations', sold(true))).toEqual(['DOCK-USB×1.5']);
    const whole = draftRequest('1.5 docking stations y 2 monitores', sold(false));
    expect(whole.items.map((i) => `${i.sku}×${i.cantidad}`)).toEqual(['MON-27×2']);
    expect(whole.skipped).toEqual([{ text: expect.stringContaining('docking'), reason: 'invalid_quantity' }]);
    expect(lines('2 docking stations', sold(false))).toEqual(['DOCK-USB×2']);
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

  it('keeps F1 above 0.9 on every set, and on every kind of case', async () => {
    for (const set of ['dev', 'extra', 'kinds']) {
      const result = await evaluate(loadCases(set));
      expect(result.f1, result.misses.join('\n')).toBeGreaterThanOrEqual(0.9);
      for (const kind of result.kinds) expect(kind.f1, `${set}/${kind.kind}`).toBeGreaterThanOrEqual(0.9);
    }
    const kinds = new Set(loadCases('kinds').map((c) => `${c.kind}/${c.lang}`));
    for (const kind of [
      'bundle',
      'duration',
      'notation',
      'pack',
      'sku',
      'attribute',
      'morphology',
      'negation',
    ])
      for (const lang of ['es', 'en', 'pt', 'fr', 'de'])
        expect(kinds, `${kind}/${lang}`).toContain(`${kind}/${lang}`);
  });

  it('never drafts a line with a quantity of 0 or less, or a price not from the catalog, whatever is written', () => {
    const prices = new Map(catalog.map((p) => [p.sku, p.precio_lista]));
    const words = [
      ...catalog.flatMap((p) => [p.sku, ...p.aliases]),
      ...('0 -1 -3 0,5 0.0 1,000 1.000 1 000 2,5 x2 ×0 2x 0x : , y and sin no cada each par docena media medio half ' +
        'mil thousand cero zero null semana semanas weeks mes meses year año trimestre quinzaine por for para ' +
        'puestos people mismo periodo same period 999999999 1e9 NaN Infinity - – −'.split(' ')),
    ];
    const phrase = fc
      .array(fc.oneof(fc.constantFrom(...words), fc.string({ maxLength: 6 })), { maxLength: 14 })
      .map((parts) => parts.join(' '));
    fc.assert(
      fc.property(fc.oneof(phrase, fc.string({ maxLength: 80 })), (prompt) => {
        const { items, skipped } = draftRequest(prompt, catalog);
        for (const item of items) {
          expect(Number.isFinite(item.cantidad) && item.cantidad > 0, `${prompt} → ${item.cantidad}`).toBe(
            true,
          );
          expect(item.precio_unitario).toBe(prices.get(item.sku));
        }
        for (const s of skipped) expect(s.text.length).toBeGreaterThan(0);
      }),
      { numRuns: 1500 },
    );
  });

  it('reads thousands separators of every locale as thousands, never as a decimal point', () => {
    expect(lines('1,000 business cards')).toEqual(['TARJ-100×10']);
    expect(lines('1.000 tarjetas')).toEqual(['TARJ-100×10']);
    expect(lines('1 000 cartes de visite')).toEqual(['TARJ-100×10']);
    expect(lines('1\u202f000 cartes de visite')).toEqual(['TARJ-100×10']);
    expect(lines('12.000 tarjetas')).toEqual(['TARJ-100×120']);
    expect(lines('1,5 horas de consultoría')).toEqual(['CONS-HORA×1.5']);
    expect(lines('1.5 hours of consulting')).toEqual(['CONS-HORA×1.5']);
    expect(lines('two thousand five hundred business cards')).toEqual(['TARJ-100×25']);
    expect(lines('dois mil e quinhentos cartões de visita')).toEqual(['TARJ-100×25']);
    expect(lines('deux mille cinq cents cartes de visite')).toEqual(['TARJ-100×25']);
  });

  it('reports what it did not draft, and why', () => {
    const skipped = (text: string) => draftRequest(text, catalog).skipped;
    expect(skipped('2 monitores y una impresora')).toEqual([{ text: 'impresora', reason: 'not_in_catalog' }]);
    expect(skipped('zwei Monitore und ein Drucker')).toEqual([{ text: 'Drucker', reason: 'not_in_catalog' }]);
    expect(skipped('un switch, nada más')).toEqual([]);
    expect(skipped('3 laptops, sin instalación')).toEqual([]);
    expect(skipped('Tengo un presupuesto de 50000 pesos, necesito 3 laptops')).toEqual([]);
    expect(skipped('0 laptops')).toEqual([{ text: '0 laptops', reason: 'invalid_quantity' }]);
    expect(skipped('-2 monitores')).toEqual([{ text: '-2 monitores', reason: 'invalid_quantity' }]);
    expect(skipped('hosting por 18 meses')).toEqual([
      { text: 'hosting por 18 meses', reason: 'partial_period' },
    ]);
    expect(lines('hosting por 18 meses')).toEqual([]);
  });

  it('says when it turned a count of units into packs', () => {
    expect(draftRequest('250 tarjetas de presentación', catalog).notes).toEqual([
      { text: '250 tarjetas de presentación', reason: 'units_to_packs', sku: 'TARJ-100', cantidad: 3 },
    ]);
    expect(draftRequest('3 paquetes de tarjetas', catalog).notes).toEqual([]);
  });

  it('multiplies every item of a per-seat bundle by the seats', () => {
    expect(lines('Equipar 4 puestos, cada uno con laptop, monitor y teclado')).toEqual([
      'LAP-14×4',
      'MON-27×4',
      'KB-MX×4',
    ]);
    expect(lines('laptop y 2 monitores para cada uno de los 3 empleados')).toEqual(['LAP-14×3', 'MON-27×6']);
    expect(lines('10 horas de instalación y 4 puestos, cada uno con laptop')).toEqual([
      'INST-HORA×10',
      'LAP-14×4',
    ]);
    expect(lines('una sucursal con 6 puestos; cada puesto con laptop')).toEqual(['LAP-14×6']);
    // Without "each", a count of people is what the items are for, not a multiplier.
    expect(lines('mouse y teclado para 15 empleados')).toEqual(['MOUSE-ERG×15', 'KB-MX×15']);
  });

  it('takes durations in any form, in the unit the product is sold by', () => {
    expect(lines('soporte por año y medio')).toEqual(['SOPORTE-MES×18']);
    expect(lines('support for a year and a half')).toEqual(['SOPORTE-MES×18']);
    expect(lines('hosting por 24 meses')).toEqual(['HOSTING-ANUAL×2']);
    expect(lines('respaldo por 90 días')).toEqual(['BACKUP-1TB×3']);
    expect(lines('soporte por 52 semanas')).toEqual(['SOPORTE-MES×12']);
    expect(lines('soporte por 4 semanas')).toEqual([]);
    expect(lines('soporte 6 meses y hosting por el mismo periodo')).toEqual(['SOPORTE-MES×6']);
  });

  it('reads SKU codes as the product, never their digits as quantities', () => {
    expect(lines('LAP-14 x 2')).toEqual(['LAP-14×2']);
    expect(lines('lap14 ×3 y MON-27')).toEqual(['LAP-14×3', 'MON-27×1']);
    expect(lines('HDMI-2M')).toEqual(['HDMI-2M×1']);
    // A SKU is counted in its own unit: the pack.
    expect(lines('TARJ-100 x 3')).toEqual(['TARJ-100×3']);
  });
});
