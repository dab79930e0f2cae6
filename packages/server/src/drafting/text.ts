/** Text normalisation shared by the catalog index and the request parser. */

/** Lowercase, without accents; hyphenated words joined (no-break → nobreak, USB-C → usbc). */
export function normalize(text: string): string {
  return (
    text
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/ß/g, 'ss')
      // "4K-Monitore" stays two words: the letter before the dash ends a number's unit.
      .replace(/(?<!\p{N})(\p{L})-(\p{L}|\d)/gu, '$1$2')
      .replace(/(\d)\s*(?:"|''|”|″)/g, '$1 pulgadas ')
      .replace(/×/g, ' x ')
  );
}

/** Units written after a number that make it a property of the product, not a quantity. */
const ATTRIBUTE_UNITS = new Map<string, string>(
  Object.entries({
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
    go: 'gb',
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
  }),
);

/**
 * Words of a normalised text, with a number and its unit merged into one token (`16 gb` →
 * `16gb`, `27 pulgadas` → `27in`), so attributes match product names and are never read as
 * quantities.
 */
export function tokenize(text: string): string[] {
  const raw = normalize(text).match(/[\p{L}\p{N}.]+|[,;:+&/()]/gu) ?? [];
  const words = raw.map((w) => w.replace(/^\.+|\.+$/g, '')).filter((w) => w.length > 0);
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const next = words[i + 1];
    // "2x laptops", "monitor x3", "monitor x 3": a count written with a times sign.
    const times = /^(?:(\d+)x|x(\d+))$/.exec(word);
    if (times) {
      out.push(times[1] ?? times[2]!);
      continue;
    }
    // "2 x laptops": the sign goes; "monitor x 2 para diseño": it stays, so the count after it is
    // read as the thing's before it rather than starting another thing.
    const after = /^\d/.test(next ?? '');
    if (word === 'x' && after && !/^\d+$/.test(out[out.length - 1] ?? '') && out.length > 0) {
      out.push('x');
      continue;
    }
    if (word === 'x' && (after || /^\d+$/.test(out[out.length - 1] ?? ''))) continue;
    const glued = /^(\d+(?:\.\d+)?)([a-z]+)$/.exec(word);
    if (glued && ATTRIBUTE_UNITS.get(glued[2]!)) {
      out.push(`${glued[1]}${ATTRIBUTE_UNITS.get(glued[2]!)}`);
      continue;
    }
    if (/^\d+(?:\.\d+)?$/.test(word) && next && ATTRIBUTE_UNITS.get(next)) {
      out.push(`${word}${ATTRIBUTE_UNITS.get(next)}`);
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
  if (word.length > 5 && word.endsWith('e')) set.add(word.slice(0, -1));
  // pt: portateis → portatil, anuais → anual; fr: anuaux → anual
  if (word.length > 5 && word.endsWith('eis')) set.add(`${word.slice(0, -3)}il`);
  if (word.length > 5 && word.endsWith('ais')) set.add(`${word.slice(0, -3)}al`);
  if (word.length > 5 && word.endsWith('aux')) set.add(`${word.slice(0, -3)}al`);
  return [...set];
}

// Rows of the distance table, reused: the typo search compares many short words.
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/** Edit distance counting a swap of two neighbours as one edit ("teclaods"), stopping early above `max`. */
export function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (b.length + 1 > rows[0]!.length) rows = rows.map(() => new Int32Array(b.length + 1));
  let [before, previous, current] = rows as [Int32Array, Int32Array, Int32Array];
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, before[j - 2]! + 1);
      current[j] = value;
      if (value < best) best = value;
    }
    if (best > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}
