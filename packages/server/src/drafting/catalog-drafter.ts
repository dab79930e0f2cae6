import {
  type CatalogIndex,
  type IndexedProduct,
  indexCatalog,
  STOPWORDS,
  wordMatches,
} from './catalog-index.js';
import { ARTICLES, digitValue, isNumberWord, readQuantity } from './numbers.js';
import { forms, normalize, tokenize } from './text.js';
import type { CatalogProduct, DraftedItem, Drafter, DraftRequest } from './types.js';

/** Words that join two requested things: a new line starts after them. */
const JOINERS = new Set([
  ',',
  ':',
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
/** "con docking", "with monitors": things that come with the ones before. */
const WITH = new Set(['con', 'with', 'com', 'avec', 'mit']);
/** "y otro para la bodega": one more of the thing before. */
const OTHER = new Set(
  'otro otra otros otras another outro outra outros outras autre autres weitere weiteren weiteres noch'.split(
    ' ',
  ),
);
const OF = new Set(['de', 'of', 'da', 'do', 'du', 'von', 'des']);
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
/** `unidad` values of things sold by the month or by the year. */
const MONTHLY_UNITS = new Set([
  'mes',
  'meses',
  'month',
  'months',
  'mensual',
  'monthly',
  'mois',
  'monat',
  'mensal',
  'mensuel',
]);
const YEARLY_UNITS = new Set([
  'ano',
  'anos',
  'year',
  'years',
  'anual',
  'annual',
  'yearly',
  'an',
  'annee',
  'jahr',
  'anuel',
]);
/** Words that only say what a number counts ("5 horas", "12 unidades"): the number is a quantity. */
const COUNT_WORDS = new Set(
  (
    'hora horas hour hours hr hrs h heure heures stunde stunden unidad unidades unit units pieza piezas pza pzas ' +
    'pz pc pcs piece pieces unite unites stuck stk peca pecas unidade total en mas more veces times x'
  ).split(' '),
);

interface Segment {
  tokens: string[];
  negated: boolean;
  /** The word that joined it to the part before ("y", "con", ","). */
  joiner: string | undefined;
}

/** How many of a thing were asked for so far. */
function countOf(amounts: { quantity: number | undefined; article: number | undefined }): number {
  return amounts.quantity ?? amounts.article ?? 1;
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
  /** The quantity counts those it is for ("para 5 equipos"). */
  viaFor: boolean;
}

/**
 * The offline drafter: reads the request in any of the five languages, splits it into the things
 * asked for, finds each in the catalog by its name, aliases and SKU (plurals, accents and small
 * typos forgiven), reads quantities in digits or words, durations for monthly or yearly items,
 * packs, "for each one" and negations, and proposes nothing when nothing fits.
 */
export function createCatalogDrafter(): Drafter {
  warmUp();
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

let warm = false;

/**
 * Runs the drafter once on a made-up catalog so that the first customer does not pay for the
 * JavaScript engine compiling it (about 10 ms on a small server): the first item is due in 20 ms.
 */
function warmUp(): void {
  if (warm) return;
  warm = true;
  const product = (sku: string, nombre: string, unidad: string, aliases: string[]): CatalogProduct => ({
    id: sku,
    sku,
    nombre,
    unidad,
    precio_lista: 1,
    moneda: 'XXX',
    tax_rate: null,
    aliases,
  });
  const catalog = [
    product('W-1', 'Widget grande 20" (paquete de 10)', 'paquete', ['widget', 'cosa grande']),
    product('S-1', 'Servicio mensual de prueba', 'mes', ['servicio', 'service']),
    product('H-1', 'Hora de prueba', 'hora', ['prueba', 'test hour']),
  ];
  for (const prompt of [
    'Necesito tres widgets de 20 pulgadas y 2 horas de prueba, sin servicio',
    'a dozen widgts and a service for 6 months, for each one',
    'zwei Widgets und ein Service für ein Jahr; 300 cosas grandes x2',
  ])
    draftLines(prompt, catalog);
}

/** The drafted lines of a request, in the order they are mentioned. */
export function draftLines(prompt: string, catalog: CatalogProduct[]): DraftedItem[] {
  const index = indexCatalog(catalog);
  const segments = split(markNameNumbers(tokenize(prompt.slice(0, 2000)), index), index);
  const mentions: Mention[] = [];
  const excluded = new Set<IndexedProduct>();
  // "3 laptops, cada una con 2 monitores": "each" said before the thing it multiplies.
  let pendingEach = false;
  let previousTokens: string[] = [];
  for (const segment of segments) {
    let found = bestProducts(segment.tokens, index);
    let tokens = segment.tokens;
    if (found.length === 0 && !segment.negated) {
      // "dos laptops de 14 pulgadas y una de 16": the thing is the one just named.
      const elided = elidedMention(segment.tokens, previousTokens, index);
      if (elided) ({ found, tokens } = elided);
    }
    if (found.length > 0) previousTokens = tokens;
    const amounts = readAmounts(tokens);
    if (pendingEach && found.length > 0) amounts.each = true;
    pendingEach = found.length === 0 && amounts.each && amounts.quantity === undefined;
    const another = tokens.some((t) => OTHER.has(t));
    if (found.length === 0 && !segment.negated) {
      const previous = mentions[mentions.length - 1];
      // "un access point para la oficina y otro para la bodega"
      if (previous && another) previous.quantity = countOf(previous) + (amounts.quantity ?? 1);
      // "a training course of 5 hours": a quantity alone belongs to the thing just named, more
      // than a count of those it is for ("capacitación para 10 usuarios de 4 horas").
      else if (
        previous &&
        (previous.quantity === undefined || previous.viaFor) &&
        amounts.quantity !== undefined &&
        amounts.countsOnly
      ) {
        previous.quantity = amounts.quantity;
        previous.viaFor = false;
      }
      if (previous && previous.months === undefined && amounts.months !== undefined)
        previous.months = amounts.months;
      continue;
    }
    for (const product of found) {
      if (segment.negated) {
        excluded.add(product.product);
        continue;
      }
      const earlier = mentions.find((m) => m.product === product.product);
      if (earlier) {
        // "hosting y dominio por 2 años": the same thing named twice; keep what each part says.
        if (another) earlier.quantity = countOf(earlier) + countOf(amounts);
        else earlier.quantity ??= amounts.quantity;
        earlier.months ??= amounts.months;
        continue;
      }
      if (amounts.viaFor) {
        // "mouse y teclado para 15 empleados": the count covers the things listed before it.
        for (let k = mentions.length - 1; k >= 0; k--) {
          const before = mentions[k]!;
          if (before.quantity !== undefined || before.article !== undefined || before.months !== undefined)
            break;
          before.quantity = amounts.quantity;
        }
      }
      // "3 laptops with docking stations": things in the plural that come with counted ones.
      const previous = mentions[mentions.length - 1];
      if (
        previous?.quantity !== undefined &&
        amounts.quantity === undefined &&
        amounts.article === undefined &&
        segment.joiner !== undefined &&
        WITH.has(segment.joiner) &&
        tokens.some((t) => t.length > 3 && t.endsWith('s') && !STOPWORDS.has(t))
      )
        amounts.quantity = previous.quantity;
      mentions.push({ ...amounts, product: product.product, score: product.score });
    }
  }
  const firstQuantity = mentions.find((m) => m.quantity !== undefined)?.quantity;
  const anyEach = mentions.some((m) => m.each);
  const lines = new Map<string, DraftedItem>();
  for (const mention of mentions) {
    const product = catalog[mention.product.position]!;
    if (excluded.has(mention.product) || lines.has(product.id)) continue;
    // What "each" refers to: the first thing whose quantity was said, if it is another one.
    const base = mentions.find((m) => m !== mention && m.quantity !== undefined)?.quantity;
    let quantity =
      mention.quantity === undefined
        ? anyEach && firstQuantity !== undefined
          ? firstQuantity
          : (mention.article ?? 1)
        : mention.each && base !== undefined && mentions.indexOf(mention) > 0
          ? mention.quantity * base
          : mention.quantity;
    const unit = normalize(product.unidad).trim();
    if (mention.months !== undefined) {
      if (MONTHLY_UNITS.has(unit)) quantity = (mention.quantity ?? 1) * mention.months;
      else if (YEARLY_UNITS.has(unit))
        quantity = (mention.quantity ?? 1) * Math.max(1, Math.round(mention.months / 12));
    }
    const pack = mention.product.packSize;
    // "300 tarjetas" counts pieces; "3 tarjetas" of a pack of 100 can only mean packs.
    if (pack && !mention.packsExplicit && quantity > pack / 10) quantity = Math.ceil(quantity / pack);
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
  let joiner: string | undefined;
  const push = () => {
    if (current.length === 0) return;
    const negated = current
      .slice(0, 4)
      .some((t, k) => NEGATIONS.has(t) && !aliasPair(index, t, current[k + 1]));
    segments.push({ tokens: current, negated, joiner });
    current = [];
    joiner = undefined;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (JOINERS.has(token)) {
      // "veinte y cinco" is one number, not two things.
      const before = tokens[i - 1];
      const after = tokens[i + 1];
      // "dos horas y media": a half that belongs to the number before.
      if (
        !(before && after && isNumberWord(before) && isNumberWord(after) && !ARTICLES.has(after)) &&
        !addsHalf(tokens, i)
      ) {
        push();
        joiner = token;
        continue;
      }
    }
    const startsQuantity =
      digitValue(token) !== undefined && current.some((t) => !STOPWORDS.has(t) && !isNumberWord(t));
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

/**
 * Numbers that are part of a product's name are no quantities: "Microsoft 365", "wifi 6" (as the
 * catalog writes them), "office 365", "monitor de 27" (after a word of the product that has the
 * number). A number of an attribute becomes that attribute (`27` → `27in`); another is marked
 * `#365` so nothing reads it as a quantity.
 */
function markNameNumbers(tokens: string[], index: CatalogIndex): string[] {
  return tokens.map((token, i) => {
    if (digitValue(token) === undefined) return token;
    const before = tokens[i - 1];
    const after = tokens[i + 1];
    if (
      (before && index.nameBigrams.has(`${before} ${token}`)) ||
      (after && index.nameBigrams.has(`${token} ${after}`))
    )
      return `#${token}`;
    // "monitor de 27" but not "soporte por 1 año", "monitores 2 y teclados": the number ends the
    // description, and only "de"/"of" may come between.
    let k = i - 1;
    if (OF.has(tokens[k] ?? '') && k > 0) k--;
    const word = tokens[k];
    const owners = index.numberOwners.get(token);
    if (!word || !owners || isNumberWord(word)) return token;
    const owner = owners
      .filter((o) => forms(word).some((form) => o.words.has(form)))
      .sort((a, b) => a.rank - b.rank)[0];
    if (!owner) return token;
    const describes =
      !after ||
      JOINERS.has(after) ||
      STOPWORDS.has(after) ||
      forms(after).some((form) => owner.words.has(form));
    if (!describes) return token;
    return owner.token === token ? `#${token}` : owner.token;
  });
}

function isDuration(tokens: string[], i: number): boolean {
  const quantity = readQuantity(tokens, i);
  const unit = quantity ? tokens[i + quantity.length] : undefined;
  return !!unit && (MONTHS.has(unit) || YEARS.has(unit));
}

/** The quantity, duration, "each" and pack words of one segment. */
function readAmounts(tokens: string[]) {
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
    if (
      (MONTHS.has(token) || YEARS.has(token)) &&
      months === undefined &&
      DURATION_LEAD.has(tokens[i - 1] ?? '')
    ) {
      // "por año", "for a year" without a number
      months = YEARS.has(token) ? 12 : 1;
    }
    if (!isNumberWord(token) || EACH.has(tokens[i - 1] ?? '')) continue;
    const read = readQuantity(tokens, i);
    if (!read) continue;
    const unit = tokens[i + read.length];
    if (unit && (MONTHS.has(unit) || YEARS.has(unit))) {
      months = YEARS.has(unit) ? read.value * 12 : read.value;
    } else if (read.length === 1 && ARTICLES.has(token)) {
      article ??= read.value;
    } else if (quantity === undefined) {
      quantity = read.value;
      counted = tokens[i + read.length];
      viaFor = FOR.has(tokens[i - 1] ?? '');
      // "dos horas y media", "two and a half hours"
      for (let k = i + read.length; k <= i + read.length + 1 && k < tokens.length; k++) {
        if (addsHalf(tokens, k)) quantity += 0.5;
      }
    }
    i += read.length - 1;
  }
  // A number with nothing but what it counts: "5 hours" may give its quantity to the thing before.
  const countsOnly =
    (counted !== undefined && COUNT_WORDS.has(counted)) ||
    tokens.every(
      (t) => STOPWORDS.has(t) || isNumberWord(t) || COUNT_WORDS.has(t) || HALF_WORDS.has(t) || /^\W$/.test(t),
    );
  return { quantity, article, months, each, packsExplicit, countsOnly, viaFor };
}

/**
 * "una de 16" after "laptops de 14 pulgadas": a segment that names nothing but a number, read
 * with the words of the thing named before it; kept only when the number then describes it.
 */
function elidedMention(tokens: string[], previous: string[], index: CatalogIndex) {
  const numbers = tokens.filter((t) => digitValue(t) !== undefined);
  if (numbers.length === 0 || previous.length === 0) return undefined;
  const nouns = previous.filter(
    (t) => !STOPWORDS.has(t) && !isNumberWord(t) && !/\d/.test(t) && !/^\W$/.test(t),
  );
  const kept = tokens.filter((t) => !ARTICLES.has(t));
  const combined = markNameNumbers([...nouns, ...kept], index);
  const marked = combined.slice(nouns.length);
  if (marked.every((t, k) => t === kept[k])) return undefined;
  let k = 0;
  const own = tokens.map((t) => (ARTICLES.has(t) ? t : marked[k++]!));
  const found = bestProducts(combined, index);
  return found.length > 0 ? { found, tokens: own } : undefined;
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
  const weights = new Map<string, number>();
  const candidates = new Set<IndexedProduct>();
  for (const word of words) {
    for (const [token, weight] of wordMatches(index, word)) {
      if ((weights.get(token) ?? 0) < weight) weights.set(token, weight);
      for (const product of index.postings.get(token) ?? []) candidates.add(product);
    }
  }
  let best: { product: IndexedProduct; score: number } | undefined;
  for (const product of candidates) {
    const score = scoreProduct(words, weights, product);
    if (
      score >= 1 &&
      (!best || score > best.score || (score === best.score && product.position < best.product.position))
    )
      best = { product, score };
  }
  return best ? [best] : [];
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
function scoreProduct(words: string[], weights: Map<string, number>, product: IndexedProduct): number {
  // A word written by the customer counts fully; one reached through another language a bit less.
  const matches = (token: string): number => weights.get(token) ?? 0;
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

const HALF_WORDS = new Set(['media', 'medio', 'half', 'meia', 'meio', 'demi', 'demie', 'halb', 'halbe']);

/** Whether `tokens[i]` starts "y media", "and a half", "e meia", "et demie", "und halb" (not "media docena"). */
function addsHalf(tokens: string[], i: number): boolean {
  if (!['y', 'and', 'e', 'et', 'und'].includes(tokens[i] ?? '')) return false;
  const k = tokens[i + 1] === 'a' ? i + 2 : i + 1;
  if (!HALF_WORDS.has(tokens[k] ?? '')) return false;
  const next = tokens[k + 1];
  return !next || !isNumberWord(next);
}
