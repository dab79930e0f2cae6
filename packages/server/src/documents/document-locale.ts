/**
 * The locale a document's figures are written in: its language as used in the merchant's country
 * (`es-MX`: $2,900.00; `es-ES`: 2900,00 €), so that its page, its PDF and its e-mails agree.
 */
export const documentLocale = (lang: string, country: string): string => `${lang}-${country}`;
