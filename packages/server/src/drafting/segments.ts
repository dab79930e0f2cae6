/** Splitting a request into the things asked for, and reading each part's amounts. */
import { isAttribute } from './attributes.js';
import { type CatalogIndex, STOPWORDS } from './catalog-index.js';
import { DURATION_LEAD, isDurationAt, PERIODS, readDuration } from './durations.js';
import { isNegated, negates } from './negations.js';
import { MINUS } from './notation.js';
import {
  ARTICLES,
  addsHalf,
  digitValue,
  HALF,
  halfAfter,
  isNumberWord,
  isTens,
  readQuantity,
} from './numbers.js';
import { PACK_WORDS } from './packs.js';
import { COUNT_WORDS, EACH, FOR, JOINERS, OTHER, TIMES, WITH } from './words.js';

/** One thing asked for: its tokens, whether it is negated, and the word that joined it. */
export interface Segment {
  tokens: string[];
  negated: boolean;
  /** The word that joined it to the part before ("y", "con", ","). */
  joiner: string | undefined;
}

/** Splits the tokens into the things asked for, at joiners and before a second quantity. */
export function split(tokens: string[], index: CatalogIndex): Segment[] {
  const segments: Segment[] = [];
  let current: string[] = [];
  let joiner: string | undefined;
  const push = () => {
    if (current.length === 0) return;
    segments.push({ tokens: current, negated: isNegated(index, current), joiner });
    current = [];
    joiner = undefined;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (JOINERS.has(token)) {
      // "veinte y cinco" is one number, not two things.
      const before = tokens[i - 1];
      const after = tokens[i + 1];
      // "cuarenta y una", "vingt et un", "vinte e um": after tens, an article is their one.
      const oneNumber =
        before &&
        after &&
        isNumberWord(before) &&
        isNumberWord(after) &&
        (!ARTICLES.has(after) || isTens(before)) &&
        // "2 y 3 monitores" are two counts: only words make one number.
        digitValue(before) === undefined &&
        digitValue(after) === undefined;
      // "dos horas y media": a half that belongs to the number before; "laptop con 32 GB": an
      // attribute of the thing before, not another thing.
      const attribute = WITH.has(token) && isAttribute(after);
      if (!oneNumber && !addsHalf(tokens, i) && !attribute && !yearAndHalf(tokens, i)) {
        push();
        joiner = token;
        continue;
      }
    }
    // "y otros 3 monitores": "otros" names nothing, so the number is still its part's.
    const startsQuantity =
      (digitValue(token) !== undefined || token === MINUS) &&
      tokens[i - 1] !== MINUS &&
      current.some((t) => !STOPWORDS.has(t) && !isNumberWord(t) && !OTHER.has(t));
    const startsNegation =
      negates(index, tokens, i) && current.some((t) => !STOPWORDS.has(t) && !isNumberWord(t));
    // "antivirus para 5 equipos": a number after "for" belongs to the thing before it, and so
    // does one after "x" ("LAP-14 x 2 para ventas").
    if (
      startsQuantity &&
      !isDurationAt(tokens, i) &&
      !DURATION_LEAD.has(tokens[i - 1] ?? '') &&
      !FOR.has(tokens[i - 1] ?? '') &&
      !TIMES.has(tokens[i - 1] ?? '')
    ) {
      push();
    }
    if (startsNegation) push();
    current.push(token);
  }
  push();
  return segments;
}

/** "año y medio", "a year and a half": the half belongs to the period before. */
function yearAndHalf(tokens: string[], i: number): boolean {
  if (!PERIODS.has(tokens[i - 1] ?? '')) return false;
  const k = tokens[i + 1] === 'a' ? i + 2 : i + 1;
  return HALF.has(tokens[k] ?? '');
}

/** What {@link readAmounts} found in one part. */
export type Amounts = ReturnType<typeof readAmounts>;

/** The quantity, duration, "each" and pack words of one segment. */
export function readAmounts(tokens: string[]) {
  let quantity: number | undefined;
  let article: number | undefined;
  let months: number | undefined;
  let each = false;
  let packsExplicit = false;
  /** The word right after the quantity. */
  let counted: string | undefined;
  /** "para 5 equipos": a count of those it is for. */
  let viaFor = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (EACH.has(token)) each = true;
    if (PACK_WORDS.has(token)) packsExplicit = true;
    const period = PERIODS.get(token);
    if (period !== undefined && months === undefined && DURATION_LEAD.has(tokens[i - 1] ?? '')) {
      // "por año", "for a year" without a number; "por año y medio"
      months = yearAndHalf(tokens, i + 1) ? period * 1.5 : period;
    }
    if (!isNumberWord(token) || EACH.has(tokens[i - 1] ?? '')) continue;
    const duration = readDuration(tokens, i);
    if (duration) {
      months ??= duration.months;
      i += duration.length - 1;
      continue;
    }
    // "media hora", "half an hour", "eine halbe Stunde"
    const unitAfterHalf = ARTICLES.has(tokens[i + 1] ?? '') ? tokens[i + 2] : tokens[i + 1];
    if (HALF.has(token) && COUNT_WORDS.has(unitAfterHalf ?? '')) {
      quantity ??= 0.5;
      continue;
    }
    const read = readQuantity(tokens, i);
    if (!read) continue;
    if (read.length === 1 && ARTICLES.has(token)) {
      article ??= read.value;
      // "una hora y media", "an hour and a half"
      if (quantity === undefined && COUNT_WORDS.has(tokens[i + 1] ?? '') && addsHalf(tokens, i + 2))
        quantity = read.value + 0.5;
    } else if (quantity === undefined) {
      // "-3 monitores": kept negative, so the line is refused rather than drafted as 3.
      quantity = tokens[i - 1] === MINUS ? -read.value : read.value;
      counted = tokens[i + read.length];
      viaFor = FOR.has(tokens[i - 1] ?? '');
      // "dos horas y media", "two and a half hours"
      for (let k = i + read.length; k <= i + read.length + 1 && k < tokens.length; k++) {
        // "una docena y media" is 18
        if (addsHalf(tokens, k)) quantity += halfAfter(tokens[i + read.length - 1]);
      }
    }
    i += read.length - 1;
  }
  // A number with nothing but what it counts: "5 hours" may give its quantity to the thing before.
  const countsOnly =
    (counted !== undefined && COUNT_WORDS.has(counted)) ||
    tokens.every(
      (t) => STOPWORDS.has(t) || isNumberWord(t) || COUNT_WORDS.has(t) || HALF.has(t) || /^\W$/.test(t),
    );
  return { quantity, article, months, each, packsExplicit, countsOnly, viaFor };
}
