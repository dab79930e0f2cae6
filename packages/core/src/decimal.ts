/**
 * A number as a person types it: `sep` is the locale's decimal separator (`.` or `,`), and the
 * other one is read too. The last mark is the decimal one, unless it repeats ("1.234.567") or is
 * not the locale's and stands alone before three digits, where it groups thousands ("1,500" in
 * English, "1.500" in German); a group mark is followed by three digits. Spaces (French groups
 * with them) are ignored.
 * @returns the number, or NaN for text that is not one
 * @example parseDecimal('1.234,5', ',') // 1234.5
 * @example parseDecimal('2,5', '.') // 2.5
 */
export function parseDecimal(raw: string, sep: string): number {
  const text = raw.replace(/\s/g, '');
  const marks = text.replace(/[^.,]/g, '');
  const last = marks.slice(-1);
  const grouping = marks.split(last).length > 2 || (last !== sep && /^[1-9]\d{0,2}[.,]\d{3}$/.test(text));
  const group = grouping ? last : last === '.' ? ',' : '.';
  const parts = text.split(group);
  const plain = parts.join('').replace(',', '.');
  // Every group mark is followed by three digits: "2,5," is not a number.
  return parts.every((part, i) => !i || /^\d{3}(\D|$)/.test(part)) && /^(\d+\.?\d*|\.\d+)$/.test(plain)
    ? Number(plain)
    : Number.NaN;
}

/**
 * A typed number checked against `min`, `max` and, with `whole`, whole units only; `places`
 * decimals are kept. Null when it does not qualify.
 */
export function readNumber(
  raw: string,
  sep: string,
  min: number,
  max: number,
  whole: boolean,
  places = 3,
): number | null {
  const value = parseDecimal(raw, sep);
  const k = 10 ** places;
  const clean = Math.round(value * k) / k;
  return clean >= min && clean <= max && (!whole || Number.isInteger(value)) ? clean : null;
}
