/**
 * The locale a document's figures are written in: its language as used in the merchant's country
 * (`es-MX`: $2,900.00; `es-ES`: 2900,00 €), so that its page, its PDF and its e-mails agree.
 */
export const documentLocale = (lang: string, country: string): string => `${lang}-${country}`;

/** A day (`YYYY-MM-DD`, or the date of an ISO timestamp) as a document writes it: long, in `locale`. */
export const formatDay = (iso: string, locale: string): string =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(
    new Date(`${iso.slice(0, 10)}T00:00:00Z`),
  );
