// ISO 4217 currencies whose minor unit is not 2 decimals; every other active code has 2.
const ZERO_DECIMALS = new Set(
  'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF'.split(' '),
);
const THREE_DECIMALS = new Set('BHD IQD JOD KWD LYD OMR TND'.split(' '));
const FOUR_DECIMALS = new Set(['CLF', 'UYW']);

/**
 * Decimals of the currency's minor unit per ISO 4217: 2 for MXN, USD, EUR; 0 for JPY, CLP; 3 for KWD.
 * @param code - ISO 4217 code
 */
export function currencyExponent(code: string): number {
  if (ZERO_DECIMALS.has(code)) return 0;
  if (THREE_DECIMALS.has(code)) return 3;
  if (FOUR_DECIMALS.has(code)) return 4;
  return 2;
}

/**
 * Rounds half away from zero, immune to binary floating error: the value is first brought to 15
 * significant digits, so 1.005 × 100 (= 100.49999999999999) rounds to 101, as a person expects.
 * Fifteen digits keep three decimals of an amount up to 10^12 minor units (ten thousand million
 * pesos), so 10,000,000,000.48 centavos still rounds down; a double holds 15–17 digits in all.
 * @example roundHalfAwayFromZero(-2.5) // -3
 */
export function roundHalfAwayFromZero(x: number): number {
  if (!Number.isFinite(x)) return x;
  const cleaned = Number(Math.abs(x).toPrecision(15));
  const rounded = Math.floor(cleaned + 0.5);
  return x < 0 ? -rounded : rounded;
}

/**
 * An amount in major units (pesos) as integer minor units (centavos) of `currency`.
 * @example toMinor(19.99, 'MXN') // 1999
 */
export const toMinor = (amount: number, currency: string): number =>
  roundHalfAwayFromZero(amount * 10 ** currencyExponent(currency));

/**
 * Integer minor units back to major units.
 * @example fromMinor(1999, 'MXN') // 19.99
 */
export const fromMinor = (minor: number, currency: string): number => {
  const exponent = currencyExponent(currency);
  return exponent === 0 ? minor : Number((minor / 10 ** exponent).toFixed(exponent));
};

/**
 * A price converted into another currency with an organization's exchange rates, rounded to the
 * target's minor unit; `null` when a rate is missing (the caller fails closed, never invents one).
 * Rates say what 1 unit of a currency is worth in the organization's own currency. The server
 * prices quotes and the widget shows prices with this one function, so both agree to the cent.
 * @example convertPrice(24500, 'MXN', 'USD', 'MXN', { USD: 18.5 }) // 1324.32
 */
export function convertPrice(
  amount: number,
  from: string,
  to: string,
  orgCurrency: string,
  rates: Readonly<Record<string, number>>,
): number | null {
  if (from === to) return amount;
  const toOrg = from === orgCurrency ? 1 : rates[from];
  const fromOrg = to === orgCurrency ? 1 : rates[to];
  if (!toOrg || !fromOrg) return null;
  return fromMinor(toMinor((amount * toOrg) / fromOrg, to), to);
}

const formatters = new Map<string, Intl.NumberFormat>();

/**
 * Formats an amount in the locale's way, e.g. `$24,500.00` (es-MX) or `24.500,00 €` (de).
 * @param locale - a BCP 47 tag such as `es`, `es-MX` or `pt-BR`
 */
export function formatMoney(amount: number, currency: string, locale: string): string {
  const id = `${locale}|${currency}`;
  let formatter = formatters.get(id);
  if (!formatter) {
    formatter = new Intl.NumberFormat(locale, { style: 'currency', currency });
    formatters.set(id, formatter);
  }
  return formatter.format(amount);
}
