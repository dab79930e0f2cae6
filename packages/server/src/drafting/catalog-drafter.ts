import { type CatalogIndex, type IndexedProduct, indexCatalog, STOPWORDS } from './catalog-index.js';
import { alternatives } from './lexicon.js';
import { ARTICLES, digitValue, isNumberWord, readQuantity } from './numbers.js';
import { forms, sameWord, tokenize } from './text.js';
import type { CatalogProduct, DraftedItem, Drafter, DraftRequest } from './types.js';

/** Words that join two requested things: a new line starts after them. */
const JOINERS = new Set([
  ',',
  ';',
  '+',
  '&',
  '/',
  'y',
  'e',
  'and',
  'et',
  'und',
  'con',
  'with',
  'com',
  'avec',
  'mit',
  'plus',
  'mas',
  'ademas',
  'also',
  'tambien',
]);
/** Words that negate what follows in their part of the sentence. */
const NEGATIONS = new Set([
  'sin',
  'without',
  'sem',
  'sans',
  'ohne',
  'no',
  'not',
  'nada',
  'excepto',
  'except',
  'salvo',
  'menos',
  'kein',
  'keine',
  'keinen',
  'pas',
  'nao',
  'nunca',
]);
/** "for each one": the line takes the quantity of the first thing asked for. */
const EACH = new Set(['cada', 'each', 'chaque', 'jede', 'jeden', 'jedes', 'jeweils', 'per']);
const FOR = new Set(['para', 'for', 'pour', 'fur', 'per', 'pra']);
const MONTHS = new Set([
  'mes',
  'meses',
  'month',
  'months',
  'mois',
  'monat',
  'monate',
  'monaten',
  'mensual',
  'mensuales',
]);
const YEARS = new Set([
  'ano',
  'anos',
  'year',
  'years',
  'an',
  'ans',
  'annee',
  'annees',
  'jahr',
  'jahre',
  'jahren',
  'anual',
  'anuales',
  'annual',
]);
const DURATION_LEAD = new Set(['por', 'durante', 'for', 'pendant', 'fur', 'durant', 'during']);
/** Words saying the number counts packs, not pieces. */
const PACK_WORDS = new Set([
  'paquete',
  'paquetes',
  'pack',
  'packs',
  'caja',
  'cajas',
  'paquet',
  'paquets',
  'pacote',
  'pacotes',
  'packung',
  'packungen',
  'box',
  'boxes',
]);
const MONTHLY_UNITS = new Set(['mes', 'month', 'mensual', 'monthly']);
const YEARLY_UNITS = new Set(['ano', 'año', 'year', 'anual', 'yearly']);

interface Segment {
  tokens: string[];
  negated: boolean;
}

interface Mention {
  product: IndexedProduct;
  score: number;
  /** Written as a number ("3", "tres", "una docena"). */
  quantity: number | undefined;
  /** "un", "a": one, unless something else says how many. */
  article: number | undefined;
  months: number | undefined;
  packsExplicit: boolean;
  each: boolean;
}

/**
 * The offline drafter: reads the request in any of the five languages, splits it into the things
 * asked for, finds each in the catalog by its name, aliases and SKU (plurals, accents and small
 * typos forgiven), reads quantities in digits or words, durations for monthly or yearly items,
 * packs, "for each one" and negations, and proposes nothing when nothing fits.
 */
export function createCatalogDrafter(): Drafter {
  return {
    name: 'catalog',
    async *draft(request: DraftRequest): AsyncIterable<DraftedItem> {
      for (const item of draftLines(request.prompt, request.catalog)) {
        if (request.signal?.aborted) return;
        yield item;
      }
    },
  };
}

/** The drafted lines of a request, in the order they are mentioned. */
export function draftLines(prompt: string, catalog: CatalogProduct[]): DraftedItem[] {
  const index = indexCatalog(catalog);
  const segments = split(tokenize(prompt.slice(0, 2000)), index);
  const mentions: Mention[] = [];
  const excluded = new Set<string>();
  for (const segment of segments) {
    const found = bestProducts(segment.tokens, index);
    const amounts = readAmounts(segment.tokens, index);
    if (found.length === 0 && !segment.negated) {
      // "a training course of 5 hours": a quantity alone belongs to the thing just named.
      const previous = mentions[mentions.length - 1];
      if (previous && previous.quantity === undefined && amounts.quantity !== undefined)
        previous.quantity = amounts.quantity;
      if (previous && previous.months === undefined && amounts.months !== undefined)
        previous.months = amounts.months;
      continue;
    }
    for (const product of found) {
      if (segment.negated) {
        excluded.add(product.product.product.id);
        continue;
      }
      const earlier = mentions.find((m) => m.product === product.product);
      if (earlier) {
        // "hosting y dominio por 2 años": the same thing named twice; keep what each part says.
        earlier.quantity ??= amounts.quantity;
        earlier.months ??= amounts.months;
        continue;
      }
      mentions.push({ ...amounts, product: product.product, score: product.score });
    }
  }
  const firstQuantity = mentions.find((m) => m.quantity !== undefined)?.quantity;
  const anyEach = mentions.some((m) => m.each);
  const lines = new Map<string, DraftedItem>();
  for (const mention of mentions) {
    const { product } = mention.product;
    if (excluded.has(product.id) || lines.has(product.id)) continue;
    let quantity =
      mention.quantity ?? (anyEach && firstQuantity !== undefined ? firstQuantity : (mention.article ?? 1));
    const unit = product.unidad.toLowerCase();
    if (mention.months !== undefined) {
      if (MONTHLY_UNITS.has(unit)) quantity = (mention.quantity ?? 1) * mention.months;
      else if (YEARLY_UNITS.has(unit))
        quantity = (mention.quantity ?? 1) * Math.max(1, Math.round(mention.months / 12));
    }
    const pack = mention.product.packSize;
    if (pack && !mention.packsExplicit && quantity >= pack) quantity = Math.ceil(quantity / pack);
    lines.set(product.id, {
      descripcion: product.nombre,
      cantidad: quantity,
      unidad: product.unidad,
      precio_unitario: product.precio_lista,
      producto_id: product.id,
      sku: product.sku,
      tax_rate: product.tax_rate,
      confidence: Math.min(0.99, Math.round((0.5 + mention.score / 6) * 100) / 100),
    });
  }
  return [...lines.values()];
}

/** Splits the tokens into the things asked for, at joiners and before a second quantity. */
function split(tokens: string[], index: CatalogIndex): Segment[] {
  const segments: Segment[] = [];
  let current: string[] = [];
  const push = () => {
    if (current.length === 0) return;
    const negated = current
      .slice(0, 4)
      .some((t, k) => NEGATIONS.has(t) && !aliasPair(index, t, current[k + 1]));
    segments.push({ tokens: current, negated });
    current = [];
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (JOINERS.has(token)) {
      // "veinte y cinco" is one number, not two things.
      const before = tokens[i - 1];
      const after = tokens[i + 1];
      if (!(before && after && isNumberWord(before) && isNumberWord(after) && !ARTICLES.has(after))) {
        push();
        continue;
      }
    }
    const startsQuantity =
      digitValue(token) !== undefined &&
      !isNameNumber(tokens, i, index) &&
      current.some((t) => !STOPWORDS.has(t) && !isNumberWord(t));
    const startsNegation =
      NEGATIONS.has(token) &&
      !aliasPair(index, token, tokens[i + 1]) &&
      current.some((t) => !STOPWORDS.has(t) && !isNumberWord(t));
    // "antivirus para 5 equipos": a number after "for" belongs to the thing before it.
    if (
      startsQuantity &&
      !isDuration(tokens, i) &&
      !DURATION_LEAD.has(tokens[i - 1] ?? '') &&
      !FOR.has(tokens[i - 1] ?? '')
    ) {
      push();
    }
    if (startsNegation) push();
    current.push(token);
  }
  push();
  return segments;
}

/** Whether two words, as written, start an alias ("no break"): then the first is no negation. */
function aliasPair(index: CatalogIndex, word: string, next: string | undefined): boolean {
  return !!next && forms(next).some((form) => index.rawBigrams.has(`${word} ${form}`));
}

/** A number that is part of a product's name ("Microsoft 365", "switch 24"). */
function isNameNumber(tokens: string[], i: number, index: CatalogIndex): boolean {
  const before = tokens[i - 1];
  const after = tokens[i + 1];
  return (
    (!!before && index.nameBigrams.has(`${before} ${tokens[i]}`)) ||
    (!!after && index.nameBigrams.has(`${tokens[i]} ${after}`))
  );
}

function isDuration(tokens: string[], i: number): boolean {
  const quantity = readQuantity(tokens, i);
  const unit = quantity ? tokens[i + quantity.length] : undefined;
  return !!unit && (MONTHS.has(unit) || YEARS.has(unit));
}

/** The quantity, duration, "each" and pack words of one segment. */
function readAmounts(tokens: string[], index: CatalogIndex) {
  let quantity: number | undefined;
  let article: number | undefined;
  let months: number | undefined;
  let each = false;
  let packsExplicit = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (EACH.has(token)) each = true;
    if (PACK_WORDS.has(token)) packsExplicit = true;
    if (
      (MONTHS.has(token) || YEARS.has(token)) &&
      months === undefined &&
      DURATION_LEAD.has(tokens[i - 1] ?? '')
    ) {
      // "por año", "for a year" without a number
      months = YEARS.has(token) ? 12 : 1;
    }
    if (!isNumberWord(token) || isNameNumber(tokens, i, index) || EACH.has(tokens[i - 1] ?? '')) continue;
    const read = readQuantity(tokens, i);
    if (!read) continue;
    const unit = tokens[i + read.length];
    if (unit && (MONTHS.has(unit) || YEARS.has(unit))) {
      months = YEARS.has(unit) ? read.value * 12 : read.value;
    } else if (read.length === 1 && ARTICLES.has(token)) {
      article ??= read.value;
    } else if (quantity === undefined) {
      quantity = read.value;
    }
    i += read.length - 1;
  }
  return { quantity, article, months, each, packsExplicit };
}

/**
 * The products a segment names: the best-scoring one, plus any other whose alias is matched in
 * full by other words of the segment ("docking y monitor" was split already; this catches
 * "laptop monitor").
 */
function bestProducts(tokens: string[], index: CatalogIndex): { product: IndexedProduct; score: number }[] {
  const words = tokens.filter(
    (t, k) =>
      !STOPWORDS.has(t) &&
      !isNumberWord(t) &&
      !(NEGATIONS.has(t) && !aliasPair(index, t, tokens[k + 1])) &&
      !EACH.has(t),
  );
  if (words.length === 0) return [];
  let best: { product: IndexedProduct; score: number } | undefined;
  for (const product of index.products) {
    const score = scoreProduct(words, product);
    if (score >= 1 && (!best || score > best.score)) best = { product, score };
  }
  return best ? [best] : [];
}

const expansions = new WeakMap<string[], string[]>();
/** The words with their equivalents in the other languages (cached per word list). */
function expanded(words: string[]): string[] {
  let out = expansions.get(words);
  if (!out) {
    out = [...new Set(words.flatMap(alternatives))];
    expansions.set(words, out);
  }
  return out;
}

/** A number with its unit ("16in", "1tb", "24ports"): a property that must agree with the name. */
const ATTRIBUTE = /^(\d+(?:\.\d+)?)(in|gb|tb|mb|kva|va|mp|m|ports|w|hz)$/;

/**
 * How well the words name a product: a fully matched alias counts twice its length (a longer
 * alias is more specific); each matched word of the name counts by its rarity in the catalog,
 * fully for the first two words (what the product is) and half for the rest (how it is);
 * an attribute in the request ("16 pulgadas") counts for the product whose name has it and
 * against one whose name has another value of it.
 */
function scoreProduct(words: string[], product: IndexedProduct): number {
  // A word written by the customer counts fully; one reached through another language a bit less.
  const matches = (token: string): number =>
    words.some((w) => sameWord(w, token)) ? 1 : expanded(words).some((w) => sameWord(w, token)) ? 0.75 : 0;
  let aliasScore = 0;
  for (const phrase of product.phrases) {
    const found = phrase.map(matches);
    if (found.every((m) => m > 0)) aliasScore = Math.max(aliasScore, 2 * found.reduce((a, b) => a + b, 0));
  }
  let nameScore = 0;
  let head = false;
  product.nameTokens.forEach(({ token, weight }, position) => {
    const found = matches(token);
    if (!found) return;
    nameScore += (position < 2 ? weight : weight / 2) * found;
    if (position < 2 && !ATTRIBUTE.test(token)) head = true;
  });
  let attributes = 0;
  for (const word of words) {
    const attribute = ATTRIBUTE.exec(word);
    if (!attribute) continue;
    const sameUnit = product.nameTokens.filter(({ token }) => ATTRIBUTE.exec(token)?.[2] === attribute[2]);
    if (sameUnit.some(({ token }) => token === word)) attributes += 2;
    else if (sameUnit.length > 0) attributes -= 3;
  }
  // Without an alias, the name must be matched on what the product is, not only on a detail.
  if (aliasScore === 0 && !head) return 0;
  return aliasScore + nameScore + attributes;
}
