import { seatCount } from './bundles.js';
import { type IndexedProduct, indexCatalog, STOPWORDS } from './catalog-index.js';
import { inProductUnit, PERIODS, samePeriod } from './durations.js';
import { bestProducts, elidedMention, type Found, markNameNumbers } from './matching.js';
import { prepareNotation, SKU_TOKEN } from './notation.js';
import { isNumberWord } from './numbers.js';
import { toPacks } from './packs.js';
import { phraseText } from './phrases.js';
import { type Amounts, readAmounts, split } from './segments.js';
import { normalize, tokenize } from './text.js';
import {
  type CatalogProduct,
  type DraftedItem,
  type Drafter,
  type DraftNote,
  type DraftRequest,
  type SkippedPhrase,
  validQuantity,
} from './types.js';
import { COUNT_WORDS, EACH, FOR, MORE, OTHER, WITH } from './words.js';

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
  /** Which segment named it, and that segment's tokens (for notes and skipped phrases). */
  segment: number;
  tokens: string[];
}

/** What a request gives: the lines, the phrases drafted as nothing, and what was changed. */
export interface DraftOutcome {
  items: DraftedItem[];
  skipped: SkippedPhrase[];
  notes: DraftNote[];
}

/** Money and dates in a request are a budget or a deadline, never a thing asked for. */
const MONEY_AND_DATES = new Set(
  (
    'zmoneyq peso pesos dolar dolares dollar dollars usd mxn eur euro euros real reais brl ' +
    'enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre ' +
    'january february march april may june july august september october november december ' +
    'janeiro fevereiro marco maio junho julho setembro outubro novembro dezembro ' +
    'janvier fevrier mars avril mai juin juillet aout octobre decembre ' +
    'januar februar marz maerz juni juli oktober dezember'
  ).split(' '),
);

/**
 * The offline drafter: reads the request in any of the five languages, splits it into the things
 * asked for, finds each in the catalog by its name, aliases and SKU (plurals, accents, compounds
 * and small typos forgiven), reads quantities in digits or words, durations for monthly or
 * yearly items, packs, per-seat bundles, "for each one" and negations, and proposes nothing
 * when nothing fits. What it read as a request but could not draft goes to `onSkip`.
 */
export function createCatalogDrafter(): Drafter {
  warmUp();
  return {
    name: 'catalog',
    async *draft(request: DraftRequest): AsyncIterable<DraftedItem> {
      const outcome = draftRequest(request.prompt, request.catalog);
      for (const item of outcome.items) {
        if (request.signal?.aborted) return;
        yield item;
      }
      for (const phrase of outcome.skipped) request.onSkip?.(phrase);
      for (const note of outcome.notes) request.onNote?.(note);
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
    'a dozen widgts and a service for 6 months, for each one; 1.000 cosas grandes',
    'zwei Widgets und ein Service für ein halbes Jahr; 300 cosas grandes x2, W-1 x 3, para cada uno de 4 puestos',
  ])
    draftRequest(prompt, catalog);
}

/** The drafted lines of a request, in the order they are mentioned. */
export function draftLines(prompt: string, catalog: CatalogProduct[]): DraftedItem[] {
  return draftRequest(prompt, catalog).items;
}

/** The drafted lines of a request, what it skipped and what it changed. */
export function draftRequest(prompt: string, catalog: CatalogProduct[]): DraftOutcome {
  const index = indexCatalog(catalog);
  // The first 2,000 characters, never half of one (an emoji is two UTF-16 units).
  const text = prompt.length <= 2000 ? prompt : Array.from(prompt).slice(0, 2000).join('');
  const allTokens = markNameNumbers(tokenize(prepareNotation(text, index.skus)), index);
  const segments = split(allTokens, index);
  const mentions: Mention[] = [];
  const excluded = new Set<IndexedProduct>();
  const skipped: SkippedPhrase[] = [];
  const notes: DraftNote[] = [];
  const skip = (tokens: string[], reason: SkippedPhrase['reason']) => {
    const phrase = phraseText(tokens, text, catalog);
    if (phrase && !skipped.some((s) => s.text === phrase)) skipped.push({ text: phrase, reason });
  };
  // "equipar 4 puestos, cada uno con…": the seats every item of the bundle is multiplied by.
  // `eachBefore`: "for each of the 6 people", said before the seats, covers what comes before
  // it too ("laptop y 2 monitores para cada uno de los 3 empleados").
  // `end`: the part where something more starts ("…y mouse. También 1 switch").
  let bundle: { seats: number; segment: number; eachBefore: boolean; end?: number } | undefined;
  // "3 laptops, cada una con 2 monitores": "each" said before the thing it multiplies.
  let pendingEach = false;
  let previousTokens: string[] = [];
  // "for the same period": the last duration said.
  let lastMonths: number | undefined;
  segments.forEach((segment, position) => {
    let found: Found[] = bestProducts(segment.tokens, index);
    let tokens = segment.tokens;
    if (found.length === 0 && !segment.negated) {
      // "dos laptops de 14 pulgadas y una de 16": the thing is the one just named.
      const elided = elidedMention(segment.tokens, previousTokens, index);
      if (elided) ({ found, tokens } = elided);
    }
    if (
      bundle &&
      bundle.end === undefined &&
      segment.joiner !== undefined &&
      MORE.has(segment.joiner) &&
      mentions.some((m) => m.segment > bundle!.segment)
    )
      bundle.end = position;
    if (!segment.negated && !bundle) {
      const next = segments[position + 1]?.joiner;
      const seats = seatCount(tokens, allTokens, next !== undefined && WITH.has(next));
      if (seats !== undefined) {
        // Things named with the seats ("5 new hires need a laptop") are part of the bundle.
        const eachBefore =
          tokens.slice(0, seats.start).some((t) => EACH.has(t)) ||
          !!segments[position - 1]?.tokens.some((t) => EACH.has(t));
        bundle = { seats: seats.seats, segment: found.length === 0 ? position : position - 1, eachBefore };
        if (found.length === 0) return;
        tokens = [...tokens.slice(0, seats.start), ...tokens.slice(seats.start + seats.length)];
      }
    }
    if (found.length > 0) previousTokens = tokens;
    const amounts = readAmounts(tokens);
    // A SKU typed as such is counted in its own unit: "TARJ-100 x 3" is three packs.
    if (tokens.some((t) => SKU_TOKEN.test(t))) amounts.packsExplicit = true;
    if (amounts.months === undefined && samePeriod(tokens)) amounts.months = lastMonths;
    if (amounts.months !== undefined) lastMonths = amounts.months;
    if (pendingEach && found.length > 0) amounts.each = true;
    pendingEach = found.length === 0 && amounts.each && amounts.quantity === undefined;
    const another = tokens.some((t) => OTHER.has(t));
    if (found.length === 0) {
      if (segment.negated) return;
      const previous = mentions[mentions.length - 1];
      let used = false;
      // "un access point para la oficina y otro para la bodega"
      if (previous && another) {
        previous.quantity = countOf(previous) + (amounts.quantity ?? 1);
        used = true;
      }
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
        used = true;
      }
      if (previous && previous.months === undefined && amounts.months !== undefined) {
        previous.months = amounts.months;
        previous.tokens = [...previous.tokens, ...tokens];
        used = true;
      }
      if (!used && asksForSomething(tokens, amounts)) skip(tokens, 'not_in_catalog');
      return;
    }
    for (const product of found) {
      if (segment.negated) {
        excluded.add(product.product);
        continue;
      }
      const earlier = mentions.find((m) => m.product === product.product);
      if (earlier) {
        // "hosting y dominio por 2 años": the same thing named twice; keep what each part says.
        // "2 laptops para ventas y 3 laptops para diseño": asked twice, with a count each time.
        if (another || (earlier.quantity !== undefined && amounts.quantity !== undefined && !earlier.viaFor))
          earlier.quantity = countOf(earlier) + countOf(amounts);
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
      mentions.push({
        ...amounts,
        product: product.product,
        score: product.score,
        segment: position,
        tokens,
      });
    }
  });
  const firstQuantity = mentions.find((m) => m.quantity !== undefined)?.quantity;
  const anyEach = mentions.some((m) => m.each);
  const lines = new Map<string, DraftedItem>();
  for (const mention of mentions) {
    const product = catalog[mention.product.position]!;
    if (excluded.has(mention.product) || lines.has(product.id)) continue;
    let quantity: number;
    if (
      bundle &&
      mention.segment < (bundle.end ?? Number.POSITIVE_INFINITY) &&
      (mention.segment > bundle.segment || bundle.eachBefore || mention.quantity === undefined)
    ) {
      // Every item of a per-seat bundle, times the seats ("cada uno con laptop y 2 monitores").
      quantity = countOf(mention) * bundle.seats;
    } else {
      // What "each" refers to: the first thing whose quantity was said, if it is another one.
      const base = mentions.find((m) => m !== mention && m.quantity !== undefined)?.quantity;
      quantity =
        mention.quantity === undefined
          ? anyEach && firstQuantity !== undefined
            ? firstQuantity
            : (mention.article ?? 1)
          : mention.each && base !== undefined && mentions.indexOf(mention) > 0
            ? mention.quantity * base
            : mention.quantity;
    }
    if (mention.months !== undefined) {
      const period = inProductUnit(mention.months, normalize(product.unidad).trim());
      if (period && 'fraction' in period) {
        // Two weeks of a monthly service, 18 months of a yearly one: not ours to round.
        skip(mention.tokens, 'partial_period');
        continue;
      }
      // "soporte por 12 meses para 3 equipos": those it is for do not multiply the months.
      if (period) quantity = (mention.viaFor ? 1 : (mention.quantity ?? 1)) * period.quantity;
    }
    const packs = toPacks(quantity, mention.product.packSize, mention.packsExplicit);
    quantity = packs.packs;
    if (!validQuantity(quantity, product)) {
      skip(mention.tokens, 'invalid_quantity');
      continue;
    }
    if (packs.units !== undefined)
      notes.push({
        text: phraseText(mention.tokens, text, catalog),
        reason: 'units_to_packs',
        sku: product.sku,
        cantidad: quantity,
      });
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
  return { items: [...lines.values()], skipped, notes };
}

/**
 * Whether a part that named nothing in the catalog still asked for something: a count or an
 * article before a word that is neither a unit, a period, money, nor a filler ("una impresora",
 * "5 sillas de oficina"; not "gracias", not "50000 pesos").
 */
function asksForSomething(tokens: string[], amounts: Amounts): boolean {
  if (amounts.quantity === undefined && amounts.article === undefined) return false;
  if (tokens.some((t) => MONEY_AND_DATES.has(t))) return false;
  // What is asked for follows its count: "tengo un presupuesto" asks for nothing.
  const first = tokens.findIndex((t) => isNumberWord(t));
  return tokens
    .slice(first + 1)
    .some(
      (t) =>
        t.length >= 3 &&
        /^\p{L}+$/u.test(t) &&
        !STOPWORDS.has(t) &&
        !isNumberWord(t) &&
        !COUNT_WORDS.has(t) &&
        !PERIODS.has(t) &&
        !EACH.has(t) &&
        !FOR.has(t) &&
        !OTHER.has(t),
    );
}
