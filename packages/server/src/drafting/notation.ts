/**
 * How numbers and codes are written, read before the words: thousands separators of each
 * locale, decimal commas, minus signs and SKU codes typed by the customer.
 */
import type { CatalogProduct } from './types.js';

/** The token a SKU code typed in the request becomes: `LAP-14` → `zsku0q` (0: catalog position). */
export const SKU_TOKEN = /^zsku(\d+)q$/;

/** The token put where a sentence ends. */
export const SENTENCE = 'zendq';

/** The token a sum of money becomes. */
export const MONEY = 'zmoneyq';
const MONEY_AMOUNT =
  /(?:[$€£]\s?\d[\d.,]*(?:[\s\u00a0]\d{3})*|\b\d[\d.,]*(?:[\s\u00a0]\d{3})*\s?(?:pesos|peso|d[oó]lares|dollars?|usd|mxn|eur|euros?|reais|real|brl|€|\$))(?![\p{L}\p{N}])/giu;

/** A number said to be a price ("precio 100", "price: 300", "Preis 50"): a sum of money too. */
const PRICE_AMOUNT =
  /(?<![\p{L}\p{N}])(?:precio|price|preço|preco|prix|preis|costo|coste|cost|custo)(?:\s+(?:unitario|unitaire|unit|de|of|du|von))?\s*:?\s*\d[\d.,]*(?![\p{L}\p{N}])/giu;

/** The token put before a number written with a minus sign ("-3 monitores"). */
export const MINUS = 'zminusq';

/**
 * Rewrites the request so that the tokenizer reads its numbers and codes as meant:
 * - `1,000` / `1.000` / `1 000` (and a no-break or thin space) are one thousand: a separator
 *   followed by groups of exactly three digits groups thousands, never a decimal point;
 * - `2,5` (a comma and one or two digits) is the decimal 2.5;
 * - `-3` is marked negative, so it is refused rather than read as 3;
 * - a sum of money ("100.000 pesos", "$5,000", "precio 100") becomes one token that is never a
 *   quantity;
 * - a SKU of the catalog (`LAP-14`, `lap14`, `LAP 14`) becomes one token naming that product,
 *   so its digits are never read as a quantity.
 */
export function prepareNotation(prompt: string, codes: SkuCodes): string {
  const text = prompt
    // A sum of money is a budget, never a quantity: "100.000 pesos", "$5,000", "500 €".
    .replace(MONEY_AMOUNT, ` ${MONEY} `)
    .replace(PRICE_AMOUNT, ` ${MONEY} `)
    .replace(
      /(?<![\d.,])(\d{1,3})((?:([.,\u00a0\u202f ])\d{3})(?:\3\d{3})*)(?![\d]|[.,]\d)/g,
      (_m, head, rest) => `${head}${rest.replace(/[.,\u00a0\u202f ]/g, '')}`,
    )
    .replace(/(?<![\d.,])(\d+),(\d{1,2})(?![\d])/g, '$1.$2')
    .replace(/(^|[\s(:;,])[-−–](?=\d)/g, `$1${MINUS} `)
    // "…teclado y mouse. También 1 switch": where a sentence ends, a bundle may end.
    .replace(/([.!?])\s+(?=[\p{Lu}\d¿¡])/gu, `$1 ${SENTENCE} `);
  if (!codes.pattern) return text;
  return text.replace(codes.pattern, (code: string) => {
    const position = codes.positions.get(codeKey(code));
    return position === undefined ? code : ` zsku${position}q `;
  });
}

/** The SKU codes of a catalog as one pattern, and the product each code names. */
export interface SkuCodes {
  pattern: RegExp | null;
  positions: Map<string, number>;
}

const codeKey = (code: string) => code.replace(/[-\s_]+/g, '').toLowerCase();

/**
 * One pattern for every SKU of a catalog that has a digit or a dash (`LAP-14`, also written
 * `lap14` or `LAP 14`); "LOGO" is a word, found by the name like any other. Built once per
 * catalog with its index: a request then costs one pass over its text.
 */
export function skuCodes(catalog: CatalogProduct[]): SkuCodes {
  const positions = new Map<string, number>();
  const patterns: string[] = [];
  catalog.forEach((product, position) => {
    const sku = product.sku.trim();
    if (sku.length < 3 || !/[\d-]/.test(sku) || positions.has(codeKey(sku))) return;
    positions.set(codeKey(sku), position);
    patterns.push(
      sku
        .split(/[-\s_]+/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[-\\s_]?'),
    );
  });
  if (patterns.length === 0) return { pattern: null, positions };
  // Longest first, so "LAP-14-PRO" is not read as "LAP-14".
  patterns.sort((a, b) => b.length - a.length);
  return {
    pattern: new RegExp(`(?<![\\p{L}\\p{N}])(?:${patterns.join('|')})(?![\\p{L}\\p{N}])`, 'giu'),
    positions,
  };
}
