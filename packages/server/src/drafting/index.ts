import { createCatalogDrafter } from './catalog-drafter.js';
import { createLlmDrafter } from './llm-drafter.js';
import type { Drafter } from './types.js';

export { createCatalogDrafter } from './catalog-drafter.js';
export { createLlmDrafter } from './llm-drafter.js';
export type { CatalogProduct, DraftedItem, Drafter, DraftRequest } from './types.js';

/** The LLM drafter when `AI_BASE_URL` is set, else the offline catalog drafter. */
export function createDrafter(ai: {
  baseUrl?: string | undefined;
  model?: string | undefined;
  apiKey?: string | undefined;
}): Drafter {
  if (ai.baseUrl)
    return createLlmDrafter({ baseURL: ai.baseUrl, model: ai.model ?? 'gpt-4o-mini', apiKey: ai.apiKey });
  return createCatalogDrafter();
}
