import { memoize } from '../../memo.js';

/**
 * The Mexican tax authority's unit key (c_ClaveUnidad) for a product's unit written in words, in
 * any of the five languages, singular or plural: `hora` → `HUR`, `cajas` → `XBX`, `Stück` → `H87`.
 * The spec's rule for a line without `clave_unidad_sat` nor a product key: "deduced from the
 * product unit or `H87`". The pairs follow the demo catalog's (año ANN, caja XBX, hora HUR,
 * licencia E48, mes MON, paquete XPK, pieza H87, servicio E48).
 */
const UNIT_KEYS: Record<string, readonly string[]> = {
  H87: [
    'pieza',
    'pza',
    'pz',
    'piece',
    'pc',
    'pcs',
    'peca',
    'stuck',
    'stk',
    'unidad',
    'unit',
    'unite',
    'unidade',
    'einheit',
    'einheiten',
  ],
  E48: [
    'servicio',
    'service',
    'servico',
    'dienstleistung',
    'dienstleistungen',
    'leistung',
    'leistungen',
    'licencia',
    'license',
    'licence',
    'licenca',
    'lizenz',
    'lizenzen',
    'suscripcion',
    'subscription',
    'assinatura',
    'abonnement',
  ],
  ACT: [
    'actividad',
    'activity',
    'atividade',
    'activite',
    'aktivitat',
    'proyecto',
    'project',
    'projeto',
    'projet',
    'projekt',
    'projekte',
  ],
  HUR: ['hora', 'hour', 'hr', 'h', 'heure', 'stunde', 'std'],
  DAY: ['dia', 'day', 'jour', 'tag', 'tage'],
  WEE: ['semana', 'week', 'semaine', 'woche'],
  MON: ['mes', 'month', 'mois', 'monat', 'monate', 'mensualidad'],
  ANN: ['ano', 'year', 'an', 'annee', 'jahr', 'jahre', 'anualidad'],
  MIN: ['minuto', 'minute', 'min'],
  KGM: ['kg', 'kilo', 'kilogramo', 'kilogram', 'quilograma', 'kilogramme', 'kilogramm'],
  GRM: ['g', 'gr', 'gramo', 'gram', 'grama', 'gramme', 'gramm'],
  LTR: ['l', 'lt', 'litro', 'liter', 'litre'],
  MTR: ['m', 'metro', 'meter', 'metre'],
  MTK: [
    'm2',
    'metro cuadrado',
    'metros cuadrados',
    'square meter',
    'square metre',
    'metro quadrado',
    'metre carre',
    'quadratmeter',
  ],
  MTQ: ['m3', 'metro cubico', 'metros cubicos', 'cubic meter', 'cubic metre', 'metre cube', 'kubikmeter'],
  XBX: ['caja', 'box', 'caixa', 'boite', 'karton', 'schachtel'],
  XPK: ['paquete', 'package', 'pack', 'pacote', 'paquet', 'paket', 'pakete', 'packung', 'packungen'],
  KT: ['kit'],
  SET: ['juego', 'set', 'conjunto', 'jeu', 'satz'],
  XLT: ['lote', 'lot', 'partie'],
  XRO: ['rollo', 'roll', 'rolo', 'rouleau', 'rolle'],
};

const BY_WORD = new Map(
  Object.entries(UNIT_KEYS).flatMap(([key, words]) => words.map((word) => [word, key] as const)),
);

/** Lower case, without accents, `²`/`³` as digits, spaces collapsed. */
const normalize = (unit: string) =>
  unit
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/²/g, '2')
    .replace(/³/g, '3')
    .replace(/\./g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** The unit key for `unit`, or undefined when the words name no unit known here. */
export function satUnitKey(unit: string | null | undefined): string | undefined {
  return unit ? keyOfUnit(unit) : undefined;
}

// Remembered by the unit's words: a catalog has a few units, and lines are priced on hot paths
// (the widget's preview and submission), where normalizing each time would cost a few µs a line.
const keyOfUnit = memoize((unit: string): string | undefined => {
  const word = normalize(unit);
  // Regular plurals ("horas", "cajas", "meses", "hours", "Stunden"): the singular is tried after
  // the word, for words long enough not to become a symbol ("ms" is not metres). Irregular and
  // German plurals are listed as words.
  const singulars =
    word.length > 3 ? [word.replace(/es$/, ''), word.replace(/s$/, ''), word.replace(/n$/, '')] : [];
  for (const candidate of [word, ...singulars]) {
    const key = BY_WORD.get(candidate);
    if (key) return key;
  }
  return undefined;
}, 1_000);
