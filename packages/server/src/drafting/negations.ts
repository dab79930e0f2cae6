import type { CatalogIndex } from './catalog-index.js';
import { forms } from './text.js';

/** Words that negate what follows in their part of the sentence ("sin", "ohne", "nada más"). */
export const NEGATIONS = new Set(
  (
    'sin without sem sans ohne no not nada excepto except salvo menos kein keine keinen keiner pas nao nunca ' +
    'ni nor nem nothing nichts rien none nenhum ninguno ninguna'
  ).split(' '),
);

/** Whether two words, as written, start an alias ("no break"): then the first is no negation. */
export function aliasPair(index: CatalogIndex, word: string, next: string | undefined): boolean {
  return !!next && forms(next).some((form) => index.rawBigrams.has(`${word} ${form}`));
}

/** Whether `tokens[k]` negates (and is not the start of an alias such as "no break"). */
export function negates(index: CatalogIndex, tokens: string[], k: number): boolean {
  return NEGATIONS.has(tokens[k]!) && !aliasPair(index, tokens[k]!, tokens[k + 1]);
}

/** A part of the sentence is negated when one of its first four words negates. */
export function isNegated(index: CatalogIndex, tokens: string[]): boolean {
  for (let k = 0; k < Math.min(4, tokens.length); k++) if (negates(index, tokens, k)) return true;
  return false;
}
