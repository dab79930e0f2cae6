/** Text normalisation shared by the catalog index and the request parser. */

/** Lowercase, without accents; hyphenated words joined (no-break → nobreak, USB-C → usbc). */
export function normalize(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/(\p{L})-(\p{L}|\d)/gu, '$1$2')
    .replace(/(\d)\s*(?:"|''|”|″)/g, '$1 pulgadas ');
}

/** Units written after a number that make it a property of the product, not a quantity. */
const ATTRIBUTE_UNITS: Record<string, string> = {
  pulgadas: 'in',
  pulgada: 'in',
  inch: 'in',
  inches: 'in',
  in: 'in',
  polegadas: 'in',
  polegada: 'in',
  pouces: 'in',
  pouce: 'in',
  zoll: 'in',
  gb: 'gb',
  tb: 'tb',
  mb: 'mb',
  kva: 'kva',
  va: 'va',
  mp: 'mp',
  m: 'm',
  metros: 'm',
  metro: 'm',
  puertos: 'ports',
  puerto: 'ports',
  ports: 'ports',
  port: 'ports',
  portas: 'ports',
  w: 'w',
  hz: 'hz',
};

/**
 * Words of a normalised text, with a number and its unit merged into one token (`16 gb` →
 * `16gb`, `27 pulgadas` → `27in`), so attributes match product names and are never read as
 * quantities.
 */
export function tokenize(text: string): string[] {
  const raw = normalize(text).match(/[\p{L}\p{N}.]+|[,;+&/()]/gu) ?? [];
  const words = raw.map((w) => w.replace(/^\.+|\.+$/g, '')).filter((w) => w.length > 0);
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const next = words[i + 1];
    const glued = /^(\d+(?:\.\d+)?)([a-z]+)$/.exec(word);
    if (glued && ATTRIBUTE_UNITS[glued[2]!]) {
      out.push(`${glued[1]}${ATTRIBUTE_UNITS[glued[2]!]}`);
      continue;
    }
    if (/^\d+(?:\.\d+)?$/.test(word) && next && ATTRIBUTE_UNITS[next]) {
      out.push(`${word}${ATTRIBUTE_UNITS[next]}`);
      i++;
      continue;
    }
    out.push(word);
  }
  return out;
}

/** Forms a word may take in the singular (plurals of es/en/pt/fr/de, roughly). */
export function forms(word: string): string[] {
  const set = new Set([word]);
  if (word.length > 3 && word.endsWith('s')) set.add(word.slice(0, -1));
  if (word.length > 4 && word.endsWith('es')) set.add(word.slice(0, -2));
  if (word.length > 4 && word.endsWith('en')) set.add(word.slice(0, -2));
  if (word.length > 4 && word.endsWith('oes')) set.add(`${word.slice(0, -3)}ao`);
  if (word.length > 4 && word.endsWith('x')) set.add(word.slice(0, -1));
  return [...set];
}

/** Levenshtein distance, stopping early above `max`. */
export function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > max) return max + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Whether two words are the same word: equal, one a plural of the other, or a small typo
 * (one edit for words of 5+ letters, two for 9+). Numbers must match exactly.
 */
export function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const key = `${a}\u0000${b}`;
  let known = memo.get(key);
  if (known === undefined) {
    known = compare(a, b);
    if (memo.size > 50_000) memo.clear();
    memo.set(key, known);
  }
  return known;
}

// Requests repeat the same few words against the same catalog: remember the answers.
const memo = new Map<string, boolean>();

function compare(a: string, b: string): boolean {
  if (/\d/.test(a) || /\d/.test(b)) return false;
  const fa = forms(a);
  const fb = forms(b);
  if (fa.some((x) => fb.includes(x))) return true;
  const shortest = Math.min(a.length, b.length);
  if (shortest < 5) return false;
  const max = shortest >= 9 ? 2 : 1;
  return fa.some((x) => fb.some((y) => distance(x, y, max) <= max));
}
