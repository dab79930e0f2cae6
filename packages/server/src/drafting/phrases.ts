/** The words of a phrase as the customer wrote them, for what the drafter reports back. */
import { STOPWORDS } from './catalog-index.js';
import { MINUS, SKU_TOKEN } from './notation.js';
import { ARTICLES } from './numbers.js';
import type { CatalogProduct } from './types.js';
import { EACH, FOR, JOINERS } from './words.js';

const plain = (word: string) =>
  word
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/-/g, '');

/**
 * The text of a part of the request, from its first meaningful word to its last ("necesito una
 * impresora" → "impresora", "2 impresoras" stays), each word as written (accents, case) when
 * it can be found in the request.
 */
export function phraseText(tokens: string[], prompt: string, catalog: CatalogProduct[]): string {
  const written = new Map<string, string>();
  for (const word of prompt.split(/[^\p{L}\p{N}.'’-]+/u)) {
    const key = plain(word.replace(/^[.'’-]+|[.'’-]+$/g, ''));
    if (key && !written.has(key)) written.set(key, word.replace(/^[.'’-]+|[.'’-]+$/g, ''));
  }
  const skip = (t: string) =>
    STOPWORDS.has(t) || ARTICLES.has(t) || JOINERS.has(t) || FOR.has(t) || EACH.has(t);
  let start = 0;
  let end = tokens.length;
  while (start < end && skip(tokens[start]!)) start++;
  while (end > start && skip(tokens[end - 1]!)) end--;
  return tokens
    .slice(start, end)
    .map((t) => {
      if (t === MINUS) return '-';
      const sku = SKU_TOKEN.exec(t);
      if (sku) return catalog[Number(sku[1])]?.sku ?? t;
      return written.get(t.replace(/^#/, '')) ?? t.replace(/^#/, '');
    })
    .join(' ')
    .replace(/- (\d)/g, '-$1');
}
