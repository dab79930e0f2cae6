/** Quantities written in words, in es, en, pt, fr and de (normalised: no accents). */

const UNITS = new Map<string, number>(
  Object.entries({
    ...words(
      // es
      'cero un uno una dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince ' +
        'dieciseis diecisiete dieciocho diecinueve veinte',
      [0, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20],
    ),
    ...words(
      'veintiun veintiuno veintiuna veintidos veintitres veinticuatro veinticinco veintiseis veintisiete ' +
        'veintiocho veintinueve',
      [21, 21, 21, 22, 23, 24, 25, 26, 27, 28, 29],
    ),
    ...words('treinta cuarenta cincuenta sesenta setenta ochenta noventa', [30, 40, 50, 60, 70, 80, 90]),
    ...words(
      'cien ciento doscientos doscientas trescientos trescientas cuatrocientos cuatrocientas quinientos ' +
        'quinientas seiscientos seiscientas setecientos setecientas ochocientos ochocientas novecientos novecientas',
      [100, 100, 200, 200, 300, 300, 400, 400, 500, 500, 600, 600, 700, 700, 800, 800, 900, 900],
    ),
    // en
    ...words(
      'zero one a an two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen ' +
        'sixteen seventeen eighteen nineteen twenty thirty forty fourty fifty sixty seventy eighty ninety',
      [
        0, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 30, 40, 40, 50, 60,
        70, 80, 90,
      ],
    ),
    // pt (words shared with es are above)
    ...words(
      'um uma dois duas quatro sete oito nove dez onze doze treze catorze quatorze dezesseis dezasseis ' +
        'dezessete dezassete dezoito dezenove dezanove vinte trinta quarenta cinquenta sessenta oitenta cem cento ' +
        'duzentos duzentas trezentos trezentas quatrocentos quinhentos',
      [
        1, 1, 2, 2, 4, 7, 8, 9, 10, 11, 12, 13, 14, 14, 16, 16, 17, 17, 18, 19, 19, 20, 30, 40, 50, 60, 80,
        100, 100, 200, 200, 300, 300, 400, 500,
      ],
    ),
    // fr
    ...words(
      'une deux trois quatre cinq sept huit neuf dix douze quinze treize seize dixsept dixhuit dixneuf vingt trente ' +
        'quarante cinquante soixante soixantedix quatrevingt quatrevingts quatrevingtdix cent',
      [1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 15, 13, 16, 17, 18, 19, 20, 30, 40, 50, 60, 70, 80, 80, 90, 100],
    ),
    // de
    ...words(
      'ein eine einen einem einer eins zwei drei vier funf fuenf sechs sieben acht neun zehn elf zwolf zwoelf ' +
        'dreizehn vierzehn funfzehn fuenfzehn sechzehn siebzehn achtzehn neunzehn zwanzig dreissig vierzig ' +
        'funfzig fuenfzig sechzig siebzig achtzig neunzig hundert einhundert',
      [
        1, 1, 1, 1, 1, 1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 10, 11, 12, 12, 13, 14, 15, 15, 16, 17, 18, 19, 20, 30,
        40, 50, 50, 60, 70, 80, 90, 100, 100,
      ],
    ),
  }),
);

function words(list: string, values: number[]): Record<string, number> {
  return Object.fromEntries(list.split(' ').map((word, i) => [word, values[i]!]));
}

/**
 * A number word glued from parts, as hyphens are removed by normalisation: "twentyfive",
 * "vingtcinq", "vingtetun", "soixantequinze", "funfundzwanzig", "treintaicinco".
 */
function compound(token: string): number | undefined {
  if (token.length < 6) return undefined;
  // de: "zweieinhalb", "eineinhalb", "anderthalb": and a half
  if (token === 'anderthalb') return 1.5;
  const half = /^([a-z]+?)einhalb$/.exec(token);
  if (half) {
    const whole = UNITS.get(half[1]!) ?? (half[1] === 'ein' ? 1 : undefined);
    if (whole !== undefined && whole > 0) return whole + 0.5;
  }
  // de: units "und" tens
  const german = /^([a-z]+?)und([a-z]+zig|dreissig)$/.exec(token);
  if (german) {
    const unit = UNITS.get(german[1]!) ?? (german[1] === 'ein' ? 1 : undefined);
    const tens = UNITS.get(german[2]!);
    if (unit !== undefined && unit < 10 && tens !== undefined) return tens + unit;
  }
  // de: "zweihundert", "dreitausend", "zweihundertfunfzig"
  const scaled = /^([a-z]+?)(hundert|tausend)([a-z]*)$/.exec(token);
  if (scaled) {
    const times = UNITS.get(scaled[1]!) ?? compound(scaled[1]!);
    const rest = scaled[3] ? (UNITS.get(scaled[3]) ?? compound(scaled[3])) : 0;
    const scale = scaled[2] === 'hundert' ? 100 : 1000;
    if (times !== undefined && times > 0 && rest !== undefined && rest < scale) return times * scale + rest;
  }
  for (let cut = 3; cut < token.length - 1; cut++) {
    const head = token.slice(0, cut);
    const tail = token.slice(cut);
    const tens = UNITS.get(head);
    if (tens === undefined || tens < 20 || tens % 10 !== 0 || tens >= 100) continue;
    const joined = tail.replace(/^(?:et|und|and|y|i|e)(?=[a-z]{2})/, '');
    const unit = UNITS.get(tail) ?? compound(tail) ?? UNITS.get(joined) ?? compound(joined);
    // fr: soixante-dix-sept, quatre-vingt-douze
    if (unit !== undefined && unit > 0 && (unit < 10 || ((tens === 60 || tens === 80) && unit < 20)))
      return tens + unit;
  }
  return undefined;
}

/** The value of a number word, simple or compound. */
function unitValue(token: string): number | undefined {
  return UNITS.get(token) ?? compound(token);
}

/** Words that multiply everything before them (or stand alone for their value). */
const MULTIPLIERS = new Map<string, number>(
  Object.entries({
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
    decena: 10,
    decenas: 10,
    dezena: 10,
    dezenas: 10,
    dizaine: 10,
    dizaines: 10,
    centenar: 100,
    centenares: 100,
    centena: 100,
    centenas: 100,
    centaine: 100,
    centaines: 100,
    veintena: 20,
    vintena: 20,
    vingtaine: 20,
    vingtaines: 20,
    trentaine: 30,
    quarantaine: 40,
    cinquantaine: 50,
    soixantaine: 60,
  }),
);
/** "dos mil", "two thousand", "deux mille": closes the thousands of the number. */
const THOUSANDS = new Set(['mil', 'thousand', 'mille', 'tausend', 'miles', 'thousands', 'milhares']);
/** "dos millones", "two million", "drei Millionen": multiplies everything read before it. */
const MILLIONS = new Set(['millon', 'millones', 'million', 'millions', 'milhao', 'milhoes', 'millionen']);
/** "one hundred", "deux cents": multiplies the part of the number below a thousand. */
const HUNDREDS = new Set(['hundred', 'hundreds', 'hundert', 'cent', 'cents', 'cien']);

/** "a pair of", "un par de", "ein paar": a pair only after an article or a number. */
const PAIRS = new Set(['par', 'pares', 'pair', 'pairs', 'couple', 'paire', 'paires', 'paar']);
/** Words that join the parts of one number: "veinte y cinco", "vingt et un", "hundred and five". */
const NUMBER_JOINERS = new Set(['y', 'e', 'and', 'et', 'und']);

/** "media docena", "half a dozen", "ein halbes Jahr". */
export const HALF = new Set([
  'media',
  'medio',
  'half',
  'meia',
  'meio',
  'demi',
  'demie',
  'halbes',
  'halbe',
  'halben',
  'halb',
]);

/** Articles count as one only when nothing else gives the quantity. */
export const ARTICLES = new Set(['un', 'una', 'uno', 'a', 'an', 'um', 'uma', 'une', 'ein', 'eine', 'einen']);

/** The value of a digit token (`3`, `1.5`, `1,5` was split earlier), or undefined. */
export function digitValue(token: string): number | undefined {
  return /^\d+(?:\.\d+)?$/.test(token) ? Number(token) : undefined;
}

/** True when `token` can be part of a quantity written in words or digits. */
export function isNumberWord(token: string): boolean {
  return (
    digitValue(token) !== undefined ||
    unitValue(token) !== undefined ||
    MULTIPLIERS.has(token) ||
    THOUSANDS.has(token) ||
    MILLIONS.has(token) ||
    HUNDREDS.has(token) ||
    HALF.has(token)
  );
}

/**
 * Reads a quantity starting at `tokens[start]`: digits, words (`tres`, `veinte y cinco`), scales
 * (`dos mil quinientas`, `two thousand five hundred`, `una docena`, `media docena`, `un par`,
 * `half a dozen`). Returns the value and how many tokens it used, or undefined.
 */
export function readQuantity(tokens: string[], start: number): { value: number; length: number } | undefined {
  let i = start;
  // Thousands already closed ("dos mil" → 2000) and the part below them ("quinientas").
  let total = 0;
  let current: number | undefined;
  let seen = false;
  let half = false;
  // After "docena", "par": nothing more is added to the number.
  let closed = false;
  const value = () => total + (current ?? 0);
  for (; i < tokens.length; i++) {
    const token = tokens[i]!;
    const digits = digitValue(token);
    if (HALF.has(token) && !seen) {
      half = true;
      continue;
    }
    if (digits !== undefined) {
      if (seen) break;
      current = digits;
      seen = true;
      continue;
    }
    // "tres mil millones": the thousands read so far are millions too.
    if (MILLIONS.has(token)) {
      total = (total + (current ?? 1)) * 1_000_000;
      current = undefined;
      seen = true;
      continue;
    }
    if (THOUSANDS.has(token)) {
      total += (current ?? 1) * 1000;
      current = undefined;
      seen = true;
      continue;
    }
    if (HUNDREDS.has(token) && seen && current !== undefined && current < 100) {
      current *= 100;
      continue;
    }
    if (HUNDREDS.has(token) && !seen && !UNITS.has(token)) {
      current = 100;
      seen = true;
      continue;
    }
    const times = MULTIPLIERS.get(token);
    if (times !== undefined) {
      if (PAIRS.has(token) && !seen) break;
      total = (seen ? value() : 1) * times;
      current = undefined;
      seen = true;
      closed = true;
      continue;
    }
    const unit = digits === undefined ? unitValue(token) : undefined;
    if (unit !== undefined) {
      if (current === undefined && (!seen || (!closed && unit < 1000))) current = unit;
      else if (current !== undefined && addable(current, unit)) current += unit;
      else break;
      seen = true;
      continue;
    }
    if (NUMBER_JOINERS.has(token) && seen && value() >= 20) {
      const next = unitValue(tokens[i + 1] ?? '');
      if (next !== undefined && (current === undefined || addable(current, next))) continue;
    }
    if (token === 'a' && half) continue;
    break;
  }
  if (!seen) return undefined;
  return { value: half ? value() / 2 : value(), length: i - start };
}

/** What "y media" adds after `last`, the last word of a number: half a dozen after "docena", else 0.5. */
export function halfAfter(last: string | undefined): number {
  return (MULTIPLIERS.get(last ?? '') ?? 1) / 2;
}

/** Whether `tokens[i]` starts "y media", "and a half", "e meia", "et demie", "und halb" (not "media docena"). */
export function addsHalf(tokens: string[], i: number): boolean {
  if (!['y', 'and', 'e', 'et', 'und'].includes(tokens[i] ?? '')) return false;
  const k = tokens[i + 1] === 'a' ? i + 2 : i + 1;
  if (!HALF.has(tokens[k] ?? '')) return false;
  const next = tokens[k + 1];
  return !next || !isNumberWord(next);
}

/** Whether `token` is a word for whole tens, 20 to 90 ("cuarenta", "vingt", "thirty"). */
export function isTens(token: string): boolean {
  const value = unitValue(token);
  return value !== undefined && value >= 20 && value < 100 && value % 10 === 0;
}

/** Whether `unit` fills an empty place of `value`: "veinte" + "cinco", "mil" + "doscientos". */
function addable(value: number, unit: number): boolean {
  if (value < 20 || unit <= 0) return false;
  // French counts 70–79 and 90–99 as 60 and 80 plus 10–19: "soixante et onze", "quatre-vingt-douze".
  if ((value % 100 === 60 || value % 100 === 80) && unit >= 10 && unit < 20) return true;
  for (const place of [1000, 100, 10]) if (value % place === 0 && unit < place) return true;
  return false;
}
