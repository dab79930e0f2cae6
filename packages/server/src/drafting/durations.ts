/**
 * Durations ("por 6 meses", "medio año", "un trimestre", "for the same period") and what they
 * mean in the unit a product is sold by. A duration is kept in months; weeks and days are
 * fractions of a month unless they add up to whole ones.
 */
import { ARTICLES, HALF, readQuantity } from './numbers.js';

const periods = (months: number, words: string) => words.split(' ').map((word) => [word, months] as const);

/** Period words and their length in months. */
export const PERIODS = new Map<string, number>([
  ...periods(1, 'mes meses month months mois monat monate monaten mensual mensuales'),
  ...periods(12, 'ano anos year years an ans annee annees jahr jahre jahren jahres anual anuales annual'),
  ...periods(3, 'trimestre trimestres quarter quarters quartal quartale quartals'),
  ...periods(6, 'semestre semestres halbjahr'),
  ...periods(2, 'bimestre bimestres'),
  ...periods(12 / 52, 'semana semanas week weeks semaine semaines woche wochen'),
  ...periods(1 / 30, 'dia dias day days jour jours tag tage tagen'),
  ...periods(0.5, 'quincena quincenas fortnight quinzaine quinzena'),
]);

/** Words that may lead a duration: "por 6 meses", "for a year", "pendant trois mois". */
export const DURATION_LEAD = new Set([
  'por',
  'durante',
  'for',
  'pendant',
  'fur',
  'durant',
  'during',
  'pelo',
  'pela',
]);

/** "el mismo periodo", "the same period", "denselben Zeitraum": the previous duration. */
const SAME = new Set([
  'mismo',
  'misma',
  'same',
  'mesmo',
  'mesma',
  'meme',
  'selben',
  'denselben',
  'gleichen',
  'gleiche',
]);
const PERIOD_NOUNS = new Set([
  'periodo',
  'period',
  'plazo',
  'tiempo',
  'time',
  'term',
  'prazo',
  'periode',
  'duree',
  'zeitraum',
  'dauer',
  'zeit',
]);

/** Whether the tokens say "for the same period". */
export function samePeriod(tokens: string[]): boolean {
  return tokens.some((t, k) => SAME.has(t) && PERIOD_NOUNS.has(tokens[k + 1] ?? ''));
}

/**
 * Reads a duration starting at `tokens[i]`: "6 meses", "un año", "medio año", "ein halbes Jahr",
 * "año y medio", "a year and a half". Returns its length in months and how many tokens it used.
 */
export function readDuration(tokens: string[], i: number): { months: number; length: number } | undefined {
  let k = i;
  let count = 1;
  if (HALF.has(tokens[k] ?? '')) {
    // "medio año", "half a year", "meio ano"
    count = 0.5;
    k++;
    if (ARTICLES.has(tokens[k] ?? '')) k++;
  } else {
    const read = readQuantity(tokens, k);
    if (!read) return undefined;
    count = read.value;
    k += read.length;
    // "ein halbes Jahr", "un demi"
    if (HALF.has(tokens[k] ?? '')) {
      count *= 0.5;
      k++;
    }
  }
  const months = PERIODS.get(tokens[k] ?? '');
  if (months === undefined) return undefined;
  k++;
  let total = count * months;
  // "año y medio", "a year and a half", "un an et demi"
  const joiner = tokens[k];
  const after = tokens[k + 1] === 'a' ? tokens[k + 2] : tokens[k + 1];
  if (joiner && ['y', 'and', 'e', 'et', 'und'].includes(joiner) && HALF.has(after ?? '')) {
    total += months / 2;
    k += tokens[k + 1] === 'a' ? 3 : 2;
  }
  return { months: total, length: k - i };
}

/** Whether a duration starts at `tokens[i]`. */
export function isDurationAt(tokens: string[], i: number): boolean {
  return readDuration(tokens, i) !== undefined;
}

/** `unidad` values of things sold by the month or by the year. */
const MONTHLY_UNITS = new Set('mes meses month months mensual monthly mois monat mensal mensuel'.split(' '));
const YEARLY_UNITS = new Set('ano anos year years anual annual yearly an annee jahr anuel'.split(' '));

/**
 * A duration in the unit of a product sold by the month or year: `{ quantity }` when it is a
 * whole number of that unit, `{ fraction }` when it is not (two weeks of a monthly service,
 * 18 months of a yearly one: the drafter drafts nothing and says so), `undefined` when the
 * product is not sold by time (a duration then does not change its quantity).
 */
export function inProductUnit(
  months: number,
  unidad: string,
): { quantity: number } | { fraction: number } | undefined {
  const size = MONTHLY_UNITS.has(unidad) ? 1 : YEARLY_UNITS.has(unidad) ? 12 : undefined;
  if (size === undefined) return undefined;
  const value = months / size;
  const whole = Math.round(value);
  if (whole >= 1 && Math.abs(value - whole) < 1e-6) return { quantity: whole };
  return { fraction: value };
}
