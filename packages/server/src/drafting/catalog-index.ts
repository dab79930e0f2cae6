import { alternatives } from './lexicon.js';
import { type SkuCodes, skuCodes } from './notation.js';
import { packSizeOf } from './packs.js';
import { distance, forms, tokenize } from './text.js';
import type { CatalogProduct } from './types.js';

/** Words that carry no meaning for matching, in the five languages. */
export const STOPWORDS = new Set(
  (
    'de del la el los las lo al en para por con sin mi mis su sus tu que se me nos le les muy mas ' +
    'the of for to with my our your some please i we need want would like quote ' +
    'do da dos das no na nos nas em para com meu minha preciso gostaria ' +
    'du des le les au aux pour avec mon ma mes je voudrais besoin sil vous plait ' +
    'der die das den dem ein eine einen fur mit mein meine ich brauche bitte ' +
    'necesito quiero quisiera cotizacion cotizar presupuesto solicito favor ocupo requiero ' +
    // "and" says nothing of a product: "Hosting y dominio" is not named by the "y" of "2 horas y media".
    'y e and et und'
  ).split(' '),
);

/** A product with the token sequences that name it. */
export interface IndexedProduct {
  /** Where the product sits in the catalog array the index was built from. */
  position: number;
  /** Alias phrases and the SKU, each as content tokens: a full match names the product. */
  phrases: string[][];
  /** Content tokens of the product's name, each weighted by rarity in the catalog. */
  nameTokens: { token: string; weight: number }[];
  /** Pack size when the name says so ("paquete de 100", "pack of 50"). */
  packSize: number | null;
}

/** A product that has a number in its name, and where: "27" of "Monitor 27\" 4K" is `27in`, first. */
export interface NumberOwner {
  /** The product's words (names and aliases, with their plural forms). */
  words: Set<string>;
  /** The token the number is part of in the name (`27in`, or `365` alone). */
  token: string;
  /** How early the token comes: the earlier, the more it says what the product is. */
  rank: number;
}

/** Everything the drafter precomputes about one catalog. */
export interface CatalogIndex {
  products: IndexedProduct[];
  /** The SKU codes customers may type (`LAP-14 x 2`), as one pattern. */
  skus: SkuCodes;
  /** Number tokens that belong to a name ("microsoft 365"), never read as quantities. */
  nameBigrams: Set<string>;
  /** Word pairs of aliases as written, stopwords included ("no break" is not a negation). */
  rawBigrams: Set<string>;
  /**
   * For a number found in names ("365", "27" of `27in`), the words of the products that have it
   * and the token it stands for there: "office 365", "monitor de 27" name the product.
   */
  numberOwners: Map<string, NumberOwner[]>;
  /** Every token of names, aliases and SKUs, with the products that have it. */
  postings: Map<string, IndexedProduct[]>;
  /** Tokens of five letters or more by length, for the typo search. */
  byLength: Map<number, string[]>;
  /** The tokens by each of their singular and plural forms. */
  byForm: Map<string, string[]>;
  /** Each token's forms, and the letters each form has (see `letterMask`). */
  formsOf: Map<string, string[]>;
  masksOf: Map<string, number[]>;
  /** What each request word was found to match, remembered for the next requests. */
  matchCache: Map<string, Map<string, number>>;
}

const content = (tokens: string[]) => tokens.filter((t) => !STOPWORDS.has(t) && !/^[,;:+&/()]$/.test(t));

// The route reads the catalog afresh for each request (prices depend on the currency), so the
// index is keyed by what matching reads, not by the array: a repeated catalog costs a string join.
const cache = new Map<string, CatalogIndex>();
const CACHE_SIZE = 64;

/** The index of a catalog, built once per distinct catalog (names, aliases, SKUs, units). */
export function indexCatalog(catalog: CatalogProduct[]): CatalogIndex {
  const key = catalog
    .map((p) => `${p.sku}\u0001${p.nombre}\u0001${p.unidad}\u0001${p.aliases.join('\u0002')}`)
    .join('\u0003');
  const hit = cache.get(key);
  if (hit) {
    // Least recently used goes first when the cache is full.
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const index = buildIndex(catalog);
  cache.set(key, index);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return index;
}

function buildIndex(catalog: CatalogProduct[]): CatalogIndex {
  const names = catalog.map((p) => [...new Set(content(tokenize(p.nombre)))]);
  const df = new Map<string, number>();
  for (const tokens of names) for (const token of tokens) df.set(token, (df.get(token) ?? 0) + 1);
  const nameBigrams = new Set<string>();
  const rawBigrams = new Set<string>();
  const numberOwners = new Map<string, NumberOwner[]>();
  const products = catalog.map((product, position) => {
    const written = [...product.aliases, product.sku.replace(/-/g, ' ')].map(tokenize);
    const phrases = written.map(content).filter((tokens) => tokens.length > 0);
    for (const tokens of written.slice(0, -1)) {
      for (let k = 0; k + 1 < tokens.length; k++) rawBigrams.add(`${tokens[k]} ${tokens[k + 1]}`);
    }
    const nameContent = names[position]!;
    for (const tokens of [...phrases, nameContent]) {
      for (let k = 0; k + 1 < tokens.length; k++) nameBigrams.add(`${tokens[k]} ${tokens[k + 1]}`);
    }
    const words = new Set(
      [...nameContent, ...phrases.flat()].filter((t) => !/\d/.test(t)).flatMap((t) => forms(t)),
    );
    for (const [rank, token] of [...new Set([...nameContent, ...phrases.flat()])].entries()) {
      const number = /^(\d+)(?:in|gb|tb|mb|kva|va|mp|m|ports|w|hz)?$/.exec(token)?.[1];
      if (!number) continue;
      const owners = numberOwners.get(number) ?? [];
      owners.push({ words, token, rank });
      numberOwners.set(number, owners);
    }
    return {
      position,
      phrases,
      nameTokens: nameContent.map((token) => ({ token, weight: 1 / (df.get(token) ?? 1) })),
      packSize: packSizeOf(product.nombre),
    };
  });
  // Products whose names start with the same word are called by it when one of them is:
  // "Laptop 16\" Core i9" is a "laptop" even when only "Laptop 14\"" lists the alias.
  const oneWordAliases = new Set(
    products.flatMap((p) =>
      p.phrases
        .filter((phrase) => phrase.length === 1 && phrase[0] === p.nameTokens[0]?.token)
        .map((phrase) => phrase[0]!),
    ),
  );
  for (const product of products) {
    const head = product.nameTokens[0]?.token;
    if (head && oneWordAliases.has(head) && !product.phrases.some((p) => p.length === 1 && p[0] === head))
      product.phrases.push([head]);
  }
  const postings = new Map<string, IndexedProduct[]>();
  for (const product of products) {
    const tokens = new Set([...product.phrases.flat(), ...product.nameTokens.map((t) => t.token)]);
    for (const token of tokens) {
      const list = postings.get(token) ?? [];
      list.push(product);
      postings.set(token, list);
    }
  }
  const byLength = new Map<number, string[]>();
  for (const token of postings.keys()) {
    // Typos are looked for in words of five letters or more, never in numbers.
    if (token.length < 5 || /\d/.test(token)) continue;
    const list = byLength.get(token.length) ?? [];
    list.push(token);
    byLength.set(token.length, list);
  }
  const byForm = new Map<string, string[]>();
  const formsOf = new Map<string, string[]>();
  const masksOf = new Map<string, number[]>();
  for (const token of postings.keys()) {
    const tokenForms = /\d/.test(token) ? [token] : forms(token);
    formsOf.set(token, tokenForms);
    masksOf.set(token, tokenForms.map(letterMask));
    for (const form of tokenForms) {
      const list = byForm.get(form) ?? [];
      list.push(token);
      byForm.set(form, list);
    }
  }
  return {
    products,
    skus: skuCodes(catalog),
    nameBigrams,
    rawBigrams,
    numberOwners,
    postings,
    byLength,
    byForm,
    formsOf,
    masksOf,
    matchCache: new Map(),
  };
}

/** How much a written word counts for a catalog token it matches. */
const WRITTEN = 1;
/** The last part of a compound ("netzwerk*kabel*"). */
const COMPOUND = 0.75;
/** The same thing in another language (lexicon). */
const TRANSLATED = 0.6;

/**
 * The catalog tokens a request word matches, each with how much the match counts: the word as
 * written (plurals and small typos forgiven), the last part of a compound, or a translation.
 * Looked up once per word and catalog, so a request costs a few map reads per word, whatever
 * the size of the catalog.
 */
export function wordMatches(index: CatalogIndex, word: string): Map<string, number> {
  const known = index.matchCache.get(word);
  if (known) return known;
  const found = new Map<string, number>();
  const add = (token: string, weight: number) => {
    if ((found.get(token) ?? 0) < weight) found.set(token, weight);
  };
  if (/\d/.test(word)) {
    // "i9", "cat6", "16gb": only as written.
    if (index.postings.has(word)) add(word, WRITTEN);
  } else {
    for (const token of similar(index, word, true)) add(token, WRITTEN);
    for (const form of forms(word)) {
      for (let cut = 3; form.length - cut >= 4; cut++) {
        if (index.postings.has(form.slice(cut))) add(form.slice(cut), COMPOUND);
      }
    }
    // Lexicon words are spelled right: plurals only, no typo search.
    for (const other of alternatives(word).slice(1)) {
      for (const token of similar(index, other, false)) add(token, TRANSLATED);
    }
    // German compounds name two things: "antiviruslizenzen" is an antivirus licence,
    // "hdmikabel" a HDMI cable ("Antivirus-Lizenzen", "HDMI-Kabel" once the dash is gone).
    if (found.size === 0 || [...found.values()].every((w) => w < WRITTEN)) {
      for (let cut = 3; word.length - cut >= 4; cut++) {
        const head = word.slice(0, cut);
        // The first part as written ("antivirus") or in another language ("virenschutz").
        const heads = index.postings.has(head)
          ? [head]
          : head.length >= 5
            ? alternatives(head)
                .slice(1)
                .filter((a) => index.postings.has(a))
            : [];
        if (heads.length === 0) continue;
        const tail = wordMatches(index, word.slice(cut));
        if (tail.size === 0) continue;
        for (const token of heads) add(token, COMPOUND);
        for (const [token, weight] of tail) add(token, Math.min(weight, COMPOUND));
        break;
      }
    }
  }
  if (index.matchCache.size > 20_000) index.matchCache.clear();
  index.matchCache.set(word, found);
  return found;
}

/**
 * Catalog tokens that are the same word as `word`: a plural or singular of it (any language's
 * rule, see `forms`), or, when `typos` is set, a small typo away: one edit for words of 5+
 * letters, two for 9+ (numbers only as written).
 */
function similar(index: CatalogIndex, word: string, typos: boolean): Set<string> {
  const out = new Set<string>();
  const wordForms = forms(word);
  for (const form of wordForms) for (const token of index.byForm.get(form) ?? []) out.add(token);
  if (!typos || word.length < 5) return out;
  const wordMasks = wordForms.map(letterMask);
  // Plurals differ by up to three letters, typos by two.
  for (let length = word.length - 5; length <= word.length + 5; length++) {
    for (const token of index.byLength.get(length) ?? []) {
      if (out.has(token)) continue;
      const max = Math.min(word.length, token.length) >= 9 ? 2 : 1;
      const typo = index.formsOf.get(token)!.some((y, k) =>
        wordForms.some(
          (x, w) =>
            // One edit changes which letters a word has by two at most: a cheap test first.
            popcount(wordMasks[w]! ^ index.masksOf.get(token)![k]!) <= 2 * max && distance(x, y, max) <= max,
        ),
      );
      if (typo) out.add(token);
    }
  }
  return out;
}

/** Which of the letters a–z a word has, as bits. */
function letterMask(word: string): number {
  let mask = 0;
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i) - 97;
    if (code >= 0 && code < 26) mask |= 1 << code;
  }
  return mask;
}

function popcount(bits: number): number {
  let n = bits - ((bits >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
