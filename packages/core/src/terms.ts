/** Languages the product speaks. */
export const LANGUAGES = ['es', 'en', 'pt', 'fr', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Payment term codes: cash or net N days. */
export const TERM_CODES = ['contado', 'net7', 'net15', 'net30', 'net45', 'net60', 'net90'] as const;
export type TermCode = (typeof TERM_CODES)[number];

const CASH: Record<Language, string> = {
  es: 'Contado',
  en: 'Due on receipt',
  pt: 'À vista',
  fr: 'Comptant',
  de: 'Sofort fällig',
};
const NET: Record<Language, (days: number) => string> = {
  es: (d) => `Neto ${d} días`,
  en: (d) => `Net ${d}`,
  pt: (d) => `${d} dias líquidos`,
  fr: (d) => `Net ${d} jours`,
  de: (d) => `${d} Tage netto`,
};

/**
 * The readable label of a payment term in a language.
 * @example termLabel('net30', 'es') // 'Neto 30 días'
 */
export function termLabel(code: TermCode, lang: Language | string): string {
  const language = ((LANGUAGES as readonly string[]).includes(lang) ? lang : 'es') as Language;
  if (code === 'contado') return CASH[language];
  return NET[language](Number(code.slice(3)));
}
