import type { Locale, Messages } from './i18n/index.js';

/** What every region of the form needs to speak and count: texts, language, money. */
export interface View {
  t: Messages;
  locale: Locale;
  /** An amount in the document currency, in the locale's format. */
  money(amount: number): string;
  /** A number in the locale's format. */
  number(value: number): string;
  /** Fills a message template (see `format` in i18n). */
  say(template: string, values?: Record<string, string | number>): string;
}
