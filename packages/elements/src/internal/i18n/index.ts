import type { ErrorCode } from '@svc/core';
import { de } from './de.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import type { ErrorMessageKey, Messages } from './messages.js';
import { pt } from './pt.js';

export type { ErrorMessageKey, Messages } from './messages.js';

/** The widget's languages. */
export const LOCALES = ['es', 'en', 'pt', 'fr', 'de'] as const;
export type Locale = (typeof LOCALES)[number];

const ALL: Record<Locale, Messages> = { es, en, pt, fr, de };

/**
 * The first supported language among `candidates` (tags like `pt-BR`), else Spanish.
 * @example pickLocale(undefined, 'fr-CA') // 'fr'
 */
export function pickLocale(...candidates: (string | null | undefined)[]): Locale {
  for (const candidate of candidates) {
    const tag = candidate?.slice(0, 2).toLowerCase();
    if (tag && (LOCALES as readonly string[]).includes(tag)) return tag as Locale;
  }
  return 'es';
}

/** The texts of a language. */
export const messagesFor = (locale: Locale): Messages => ALL[locale];

const rules = new Map<Locale, Intl.PluralRules>();
const plurals = (locale: Locale) => {
  let rule = rules.get(locale);
  if (!rule) {
    rule = new Intl.PluralRules(locale);
    rules.set(locale, rule);
  }
  return rule;
};

/**
 * Fills a message template: `{name}` takes `values.name`; `{singular|plural}` picks a form by
 * `values.n` with the language's plural rules (French says "0 ligne", English "0 lines").
 * @example format('en', 'Done: {n} {line|lines} added.', { n: 2 }) // 'Done: 2 lines added.'
 */
export function format(
  locale: Locale,
  template: string,
  values: Record<string, string | number> = {},
): string {
  const n = values.n;
  const plural = typeof n === 'number' && plurals(locale).select(n) !== 'one';
  return template.replace(/\{([^|}]*)(?:\|([^}]*))?\}/g, (_, name: string, other?: string) =>
    other === undefined ? String(values[name] ?? '') : plural ? other : name,
  );
}

/**
 * The service error codes shown with the generic message (`internal_error`, as a code the widget
 * does not know), because what the person can do about them is the same as for any failure.
 * Named by type only: the script carries no list of them.
 */
type GenericCode =
  | 'invalid_json'
  | 'invalid_idempotency_key'
  | 'invalid_url'
  | 'invalid_client'
  | 'plan_limit_reached'
  | 'integration_limit_reached'
  | 'not_found'
  | 'method_not_allowed'
  | 'invalid_state';

/**
 * The message of the other codes without one of their own, because what the person can do about
 * them is that of another. Typed over every code of @svc/core, so a new code does not compile
 * until it has a message of its own (in every language, see {@link ErrorMessageKey}), one here,
 * or is a {@link GenericCode}.
 */
const SHARED_ERROR_MESSAGE: Record<Exclude<ErrorCode, ErrorMessageKey | GenericCode>, ErrorMessageKey> = {
  missing_key: 'invalid_key',
  insufficient_scope: 'origin_not_allowed',
  api_quota_exceeded: 'rate_limited',
  fx_unavailable: 'service_unavailable',
  fiscal_unavailable: 'service_unavailable',
  idempotency_unavailable: 'service_unavailable',
};

/** The message a service error code is shown with, or undefined for a generic or unknown code. */
export function errorMessageKey(code: string): ErrorMessageKey | undefined {
  if (Object.hasOwn(SHARED_ERROR_MESSAGE, code)) {
    return SHARED_ERROR_MESSAGE[code as keyof typeof SHARED_ERROR_MESSAGE];
  }
  return Object.hasOwn(es.errors, code) ? (code as ErrorMessageKey) : undefined;
}

/** The message template for a service error code (a code from a newer service gets the generic one). */
export const errorTemplate = (t: Messages, code: string): string =>
  t.errors[errorMessageKey(code) ?? 'internal_error'];
