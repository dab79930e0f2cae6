import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { streamText } from 'ai';
import type { CatalogProduct, DraftedItem, Drafter, DraftRequest } from './types.js';

/** Where the OpenAI-compatible model lives (OpenAI, Ollama, vLLM, llama.cpp…). */
export interface LlmDrafterOptions {
  baseURL: string;
  model: string;
  apiKey?: string | undefined;
  /** For tests and proxies. */
  fetch?: typeof fetch;
}

const MAX_QUANTITY = 1_000_000;

/**
 * A drafter that asks a language model which catalog lines fit the request. The model only
 * proposes SKUs and quantities, one JSON object per line, read as the text streams in; each
 * proposal is checked against the catalog (unknown SKUs and impossible quantities are dropped)
 * and priced from it. Prices never come from the model.
 */
export function createLlmDrafter(options: LlmDrafterOptions): Drafter {
  const provider = createOpenAICompatible({
    name: 'svc-drafter',
    baseURL: options.baseURL,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return {
    name: 'llm',
    async *draft(request: DraftRequest): AsyncIterable<DraftedItem> {
      const bySku = new Map(request.catalog.map((p) => [p.sku.toUpperCase(), p]));
      const result = streamText({
        model: provider(options.model),
        temperature: 0,
        maxRetries: 1,
        system: systemPrompt(request.catalog, request.locale),
        prompt: request.prompt,
        ...(request.signal ? { abortSignal: request.signal } : {}),
      });
      const seen = new Set<string>();
      let buffer = '';
      // A line may hold one proposal or, from a chattier model, an array of them.
      const accept = (line: string): DraftedItem[] => {
        const items: DraftedItem[] = [];
        for (const proposal of parseProposals(line)) {
          const product = bySku.get(proposal.sku.trim().toUpperCase());
          if (!product || seen.has(product.id)) continue;
          seen.add(product.id);
          items.push(toItem(product, proposal.cantidad));
        }
        return items;
      };
      for await (const part of result.fullStream) {
        if (request.signal?.aborted) return;
        // The SDK reports a failed call as a part of the stream; end the draft with it.
        if (part.type === 'error')
          throw part.error instanceof Error ? part.error : new Error(String(part.error));
        if (part.type !== 'text-delta') continue;
        buffer += part.text;
        let newline = buffer.indexOf('\n');
        while (newline >= 0) {
          const items = accept(buffer.slice(0, newline));
          buffer = buffer.slice(newline + 1);
          for (const item of items) {
            if (request.signal?.aborted) return;
            yield item;
          }
          newline = buffer.indexOf('\n');
        }
      }
      for (const item of accept(buffer)) {
        if (request.signal?.aborted) return;
        yield item;
      }
    },
  };
}

function systemPrompt(catalog: CatalogProduct[], locale: string | undefined): string {
  const lines = catalog.map((p) => `${p.sku} | ${p.nombre} | ${p.unidad}`).join('\n');
  return [
    'You turn a customer request into quote lines from this catalog (SKU | name | unit):',
    lines,
    'Answer only with one JSON object per line, like {"sku":"LAP-14","cantidad":3}, nothing else:',
    'no prose, no code fences, no prices.',
    'Use only SKUs of the catalog, in the order the customer mentions them, each at most once.',
    'cantidad is counted in the product unit: months for monthly items (a year is 12), years for',
    'yearly items, packs for items sold in packs (300 cards in packs of 100 is 3). "For each one"',
    'multiplies. Leave out what the customer says they do not want. If nothing fits, answer with nothing.',
    ...(locale ? [`The customer usually writes in the language "${locale}", but may use any.`] : []),
  ].join('\n');
}

/** A `{ sku, cantidad }` line of the model's answer, or undefined for anything else. */
export function parseProposal(line: string): { sku: string; cantidad: number } | undefined {
  const text = line
    .trim()
    .replace(/^[-*\d.)\s]+(?=\{)/, '')
    .replace(/,\s*$/, '');
  if (!text.startsWith('{')) return undefined;
  try {
    return checkProposal(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** The valid proposals of a line: one object, or a JSON array of them on one line. */
export function parseProposals(line: string): { sku: string; cantidad: number }[] {
  const text = line.trim();
  if (!text.startsWith('[')) {
    const one = parseProposal(text);
    return one ? [one] : [];
  }
  try {
    const values: unknown = JSON.parse(text);
    if (!Array.isArray(values)) return [];
    return values.map(checkProposal).filter((p) => p !== undefined);
  } catch {
    return [];
  }
}

function checkProposal(value: unknown): { sku: string; cantidad: number } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { sku, cantidad: raw } = value as { sku?: unknown; cantidad?: unknown };
  const cantidad = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  if (typeof sku !== 'string' || typeof cantidad !== 'number') return undefined;
  if (!Number.isFinite(cantidad) || cantidad <= 0 || cantidad > MAX_QUANTITY) return undefined;
  return { sku, cantidad };
}

function toItem(product: CatalogProduct, cantidad: number): DraftedItem {
  return {
    descripcion: product.nombre,
    cantidad,
    unidad: product.unidad,
    precio_unitario: product.precio_lista,
    producto_id: product.id,
    sku: product.sku,
    tax_rate: product.tax_rate,
    confidence: 0.8,
  };
}
