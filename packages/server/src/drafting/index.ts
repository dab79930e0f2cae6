import { createCatalogDrafter } from './catalog-drafter.js';
import { createLlmDrafter } from './llm-drafter.js';
import type { Drafter } from './types.js';

export { createCatalogDrafter } from './catalog-drafter.js';
export { createLlmDrafter, type LlmDrafterOptions } from './llm-drafter.js';
export type { CatalogProduct, DraftedItem, Drafter, DraftRequest } from './types.js';

/** Where the LLM lives: the process environment, or the server config's `ai` section. */
export interface DrafterSettings {
  AI_BASE_URL?: string | undefined;
  AI_MODEL?: string | undefined;
  AI_API_KEY?: string | undefined;
  baseUrl?: string | undefined;
  model?: string | undefined;
  apiKey?: string | undefined;
}

/** The model asked when `AI_MODEL` is not set. */
export const DEFAULT_MODEL = 'gpt-4o-mini';

/**
 * The LLM drafter when `AI_BASE_URL` is set, else the offline catalog drafter.
 *
 * @param settings - `process.env`, or the server config's `ai` (`baseUrl`, `model`, `apiKey`)
 * @example
 * ```ts
 * const drafter = createDrafter(process.env);
 * for await (const item of drafter.draft({ prompt: '3 laptops', catalog })) send(item);
 * ```
 */
export function createDrafter(settings: DrafterSettings): Drafter {
  const baseURL = settings.AI_BASE_URL || settings.baseUrl;
  if (!baseURL) return createCatalogDrafter();
  return createLlmDrafter({
    baseURL,
    model: settings.AI_MODEL || settings.model || DEFAULT_MODEL,
    apiKey: settings.AI_API_KEY || settings.apiKey,
  });
}
