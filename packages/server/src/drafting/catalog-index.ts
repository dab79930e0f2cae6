import { tokenize } from './text.js';
import type { CatalogProduct } from './types.js';

/** Words that carry no meaning for matching, in the five languages. */
export const STOPWORDS = new Set(
  (
    'de del la el los las lo al en para por con sin mi mis su sus tu que se me nos le les muy mas ' +
    'the of for to with my our your some please i we need want would like quote ' +
    'do da dos das no na nos nas em para com meu minha preciso gostaria ' +
    'du des le les au aux pour avec mon ma mes je voudrais besoin sil vous plait ' +
    'der die das den dem ein eine einen fur mit mein meine ich brauche bitte ' +
    'necesito quiero quisiera cotizacion cotizar presupuesto solicito favor ocupo requiero'
  ).split(' '),
);

/** A product with the token sequences that name it. */
export interface IndexedProduct {
  product: CatalogProduct;
  /** Alias phrases and the SKU, each as content tokens: a full match names the product. */
  phrases: string[][];
  /** Content tokens of the product's name, each weighted by rarity in the catalog. */
  nameTokens: { token: string; weight: number }[];
  /** Pack size when the name says so ("paquete de 100", "pack of 50"). */
  packSize: number | null;
}

/** Everything the drafter precomputes about one catalog. */
export interface CatalogIndex {
  products: IndexedProduct[];
  /** Number tokens that belong to a name ("microsoft 365"), never read as quantities. */
  nameBigrams: Set<string>;
  /** Word pairs of aliases as written, stopwords included ("no break" is not a negation). */
  rawBigrams: Set<string>;
}

const content = (tokens: string[]) => tokens.filter((t) => !STOPWORDS.has(t) && !/^[,;+&/()]$/.test(t));

const cache = new WeakMap<CatalogProduct[], CatalogIndex>();

/** The index of a catalog, built once per catalog array. */
export function indexCatalog(catalog: CatalogProduct[]): CatalogIndex {
  const hit = cache.get(catalog);
  if (hit) return hit;
  const names = catalog.map((p) => [...new Set(content(tokenize(p.nombre)))]);
  const df = new Map<string, number>();
  for (const tokens of names) for (const token of tokens) df.set(token, (df.get(token) ?? 0) + 1);
  const nameBigrams = new Set<string>();
  const rawBigrams = new Set<string>();
  const products = catalog.map((product, i) => {
    const phrases = [...product.aliases, product.sku.replace(/-/g, ' ')]
      .map((phrase) => content(tokenize(phrase)))
      .filter((tokens) => tokens.length > 0);
    for (const alias of product.aliases) {
      const tokens = tokenize(alias);
      for (let k = 0; k + 1 < tokens.length; k++) rawBigrams.add(`${tokens[k]} ${tokens[k + 1]}`);
    }
    for (const tokens of [...phrases, content(tokenize(product.nombre))]) {
      for (let k = 0; k + 1 < tokens.length; k++) nameBigrams.add(`${tokens[k]} ${tokens[k + 1]}`);
    }
    const pack = /(?:paquete|pack|caja|box|paquet|packung|pacote)\s+(?:de|of|com|von)?\s*(\d+)/i.exec(
      product.nombre,
    );
    return {
      product,
      phrases,
      nameTokens: names[i]!.map((token) => ({ token, weight: 1 / (df.get(token) ?? 1) })),
      packSize: pack ? Number(pack[1]) : null,
    };
  });
  const index = { products, nameBigrams, rawBigrams };
  cache.set(catalog, index);
  return index;
}
