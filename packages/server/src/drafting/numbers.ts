/** Quantities written in words, in es, en, pt, fr and de (normalised: no accents). */

const UNITS: Record<string, number> = {
  // es
  uno: 1,
  un: 1,
  una: 1,
  dos: 2,
  tres: 3,
  cuatro: 4,
  cinco: 5,
  seis: 6,
  siete: 7,
  ocho: 8,
  nueve: 9,
  diez: 10,
  once: 11,
  doce: 12,
  trece: 13,
  catorce: 14,
  quince: 15,
  dieciseis: 16,
  diecisiete: 17,
  dieciocho: 18,
  diecinueve: 19,
  veinte: 20,
  veintiuno: 21,
  veintidos: 22,
  veinticinco: 25,
  treinta: 30,
  cuarenta: 40,
  cincuenta: 50,
  sesenta: 60,
  setenta: 70,
  ochenta: 80,
  noventa: 90,
  cien: 100,
  ciento: 100,
  doscientos: 200,
  trescientos: 300,
  cuatrocientos: 400,
  quinientos: 500,
  // en
  one: 1,
  a: 1,
  an: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  hundred: 100,
  // pt
  um: 1,
  uma: 1,
  dois: 2,
  duas: 2,
  sete: 7,
  oito: 8,
  nove: 9,
  dez: 10,
  onze: 11,
  doze: 12,
  vinte: 20,
  trinta: 30,
  cem: 100,
  cento: 100,
  // fr
  une: 1,
  deux: 2,
  trois: 3,
  quatre: 4,
  cinq: 5,
  sept: 7,
  huit: 8,
  neuf: 9,
  dix: 10,
  douze: 12,
  quinze: 15,
  vingt: 20,
  trente: 30,
  cent: 100,
  // de
  ein: 1,
  eine: 1,
  einen: 1,
  zwei: 2,
  drei: 3,
  vier: 4,
  funf: 5,
  fuenf: 5,
  sechs: 6,
  sieben: 7,
  acht: 8,
  neun: 9,
  zehn: 10,
  elf: 11,
  zwolf: 12,
  zwoelf: 12,
  zwanzig: 20,
  dreissig: 30,
  hundert: 100,
};

/** Words that multiply what comes before them (or stand alone for their value). */
const MULTIPLIERS: Record<string, number> = {
  mil: 1000,
  thousand: 1000,
  mille: 1000,
  tausend: 1000,
  docena: 12,
  docenas: 12,
  dozen: 12,
  dozens: 12,
  duzia: 12,
  duzias: 12,
  douzaine: 12,
  douzaines: 12,
  dutzend: 12,
  par: 2,
  pares: 2,
  pair: 2,
  pairs: 2,
  couple: 2,
  paire: 2,
  paires: 2,
  paar: 2,
  hundred: 100,
  cien: 100,
  cent: 100,
  hundert: 100,
};

const HALF = new Set(['media', 'medio', 'half', 'meia', 'meio', 'demi', 'demie', 'halbes', 'halbe']);

/** Articles count as one only when nothing else gives the quantity. */
export const ARTICLES = new Set(['un', 'una', 'uno', 'a', 'an', 'um', 'uma', 'une', 'ein', 'eine', 'einen']);

/** The value of a digit token (`3`, `1.5`, `1,5` was split earlier), or undefined. */
export function digitValue(token: string): number | undefined {
  return /^\d+(?:\.\d+)?$/.test(token) ? Number(token) : undefined;
}

/** True when `token` can be part of a quantity written in words or digits. */
export function isNumberWord(token: string): boolean {
  return digitValue(token) !== undefined || token in UNITS || token in MULTIPLIERS || HALF.has(token);
}

/**
 * Reads a quantity starting at `tokens[start]`: digits, words (`tres`, `veinte y cinco`), scales
 * (`dos mil`, `una docena`, `media docena`, `un par`, `half a dozen`). Returns the value and how
 * many tokens it used, or undefined.
 */
export function readQuantity(tokens: string[], start: number): { value: number; length: number } | undefined {
  let i = start;
  let value: number | undefined;
  let half = false;
  for (; i < tokens.length; i++) {
    const token = tokens[i]!;
    const digits = digitValue(token);
    if (HALF.has(token) && value === undefined) {
      half = true;
      continue;
    }
    if (digits !== undefined && value === undefined) {
      value = digits;
      continue;
    }
    if (token in MULTIPLIERS && !(token in UNITS && value === undefined)) {
      value = (value ?? 1) * MULTIPLIERS[token]!;
      continue;
    }
    if (token in UNITS && digits === undefined) {
      const unit = UNITS[token]!;
      if (value === undefined) value = unit;
      else if (value >= 20 && value % 10 === 0 && unit < 10) value += unit;
      else if (value >= 100 && unit < 100) value += unit;
      else break;
      continue;
    }
    // "veinte y cinco", "half a dozen": joiners inside a number.
    if (
      (token === 'y' || token === 'e' || token === 'and') &&
      value !== undefined &&
      value >= 20 &&
      value % 10 === 0
    ) {
      const next = tokens[i + 1];
      if (next && next in UNITS && UNITS[next]! < 10) continue;
    }
    if (token === 'a' && half) continue;
    break;
  }
  if (value === undefined) return undefined;
  if (half) value = value / 2;
  return { value, length: i - start };
}
