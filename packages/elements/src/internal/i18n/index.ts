import { de } from './de.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import type { Messages } from './messages.js';
import { pt } from './pt.js';

export type { Messages } from './messages.js';

/** The widget's languages. */
export const LOCALES = ['es', 'en', 'pt', 'fr', 'de'] as const;
export type Locale = (typeof LOCALES)[number];

const ALL: Record<Locale, Messages> = { es, en, pt, fr, de };

/** The first supported language among `candidates` (tags like `pt-BR`), else Spanish. */
export function pickLocale(...candidates: (string | null | undefined)[]): Locale {
  for (const candidate of candidates) {
    const tag = candidate?.slice(0, 2).toLowerCase();
    if (tag && (LOCALES as readonly string[]).includes(tag)) return tag as Locale;
  }
  return 'es';
}

export const messagesFor = (locale: Locale): Messages => ALL[locale];
