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

/**
 * A message kept to be shown (an error, a status): said at each render in the form's language of
 * that moment, so a new `locale` says it again in the new language.
 */
export type Text = (view: View) => string;

/** The names of the messages that are one template (not a group of them). */
export type MessageKey = { [K in keyof Messages]: Messages[K] extends string ? K : never }[keyof Messages];

/** The message `key`, filled with `values`, as a {@link Text}. */
export const said =
  (key: MessageKey, values?: Record<string, string | number>): Text =>
  (view) =>
    view.say(view.t[key], values);
