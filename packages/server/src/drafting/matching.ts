/** Finding the products a part of the request names: words, aliases, SKUs, attributes. */
import { ATTRIBUTE, attributeScore } from './attributes.js';
import { type CatalogIndex, type IndexedProduct, STOPWORDS, wordMatches } from './catalog-index.js';
import { negates } from './negations.js';
import { SKU_TOKEN } from './notation.js';
import { ARTICLES, digitValue, isNumberWord } from './numbers.js';
import { forms } from './text.js';
import { EACH, FOR, JOINERS, OF } from './words.js';

/** A product a part of the request names, and how well. */
export interface Found {
  product: IndexedProduct;
  score: number;
}

/**
 * Numbers that are part of a product's name are no quantities: "Microsoft 365", "wifi 6" (as the
 * catalog writes them), "office 365", "monitor de 27" (after a word of the product that has the
 * number). A number of an attribute becomes that attribute (`27` → `27in`); another is marked
 * `#365` so nothing reads it as a quantity.
 */
export function markNameNumbers(tokens: string[], index: CatalogIndex): string[] {
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
      // "Laptop 14 x 2": the count comes after the number of the name.
      digitValue(after) !== undefined ||
      JOINERS.has(after) ||
      STOPWORDS.has(after) ||
      forms(after).some((form) => owner.words.has(form));
    if (!describes) return token;
    return owner.token === token ? `#${token}` : owner.token;
  });
}

/**
 * "una de 16" after "laptops de 14 pulgadas": a segment that names nothing but a number, read
 * with the words of the thing named before it; kept only when the number then describes it.
 */
export function elidedMention(tokens: string[], previous: string[], index: CatalogIndex) {
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
 * The products a segment names: a SKU typed as such names its product outright; otherwise the
 * best-scoring product of its words.
 */
export function bestProducts(tokens: string[], index: CatalogIndex): Found[] {
  for (const token of tokens) {
    const sku = SKU_TOKEN.exec(token);
    const product = sku ? index.products[Number(sku[1])] : undefined;
    if (product) return [{ product, score: 6 }];
  }
  const words = tokens.filter(
    (t, k) => !STOPWORDS.has(t) && !isNumberWord(t) && !negates(index, tokens, k) && !EACH.has(t),
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
  // A noun the catalog does not know ("silla ergonómica") is what is asked for: then a match
  // on a detail of a name ("Mouse ergonómico") names nothing.
  // Not a word after "de" ("stations d'accueil": a detail) nor those it is for ("for 10 users").
  const unknown = tokens.some(
    (w, k) =>
      /^\p{L}{4,}$/u.test(w) &&
      !STOPWORDS.has(w) &&
      !OF.has(tokens[k - 1] ?? '') &&
      !FOR.has(tokens[k - 1] ?? '') &&
      !(isNumberWord(tokens[k - 1] ?? '') && FOR.has(tokens[k - 2] ?? '')) &&
      !negates(index, tokens, k) &&
      !EACH.has(w) &&
      !isNumberWord(w) &&
      wordMatches(index, w).size === 0,
  );
  let best: Found | undefined;
  for (const product of candidates) {
    const score = scoreProduct(words, weights, product, unknown);
    if (
      score >= 1 &&
      (!best || score > best.score || (score === best.score && product.position < best.product.position))
    )
      best = { product, score };
  }
  return best ? [best] : [];
}

/**
 * How well the words name a product: a fully matched alias counts twice its length (a longer
 * alias is more specific); each matched word of the name counts by its rarity in the catalog,
 * fully for the first two words (what the product is) and half for the rest (how it is);
 * a request that also has a word the catalog does not know must match the name's first word;
 * attributes ("32 GB") count for the product whose name has them (see `attributeScore`).
 */
function scoreProduct(
  words: string[],
  weights: Map<string, number>,
  product: IndexedProduct,
  unknown: boolean,
): number {
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
  // Without an alias, the name must be matched on what the product is, not only on a detail,
  // and on its first word when the request also names something unknown.
  if (aliasScore === 0 && !head) return 0;
  if (aliasScore === 0 && unknown && !matches(product.nameTokens[0]?.token ?? '')) return 0;
  return aliasScore + nameScore + attributeScore(words, product.nameTokens);
}
