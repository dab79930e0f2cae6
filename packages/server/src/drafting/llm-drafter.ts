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
        system: systemPrompt(request.catalog),
        prompt: request.prompt,
        ...(request.signal ? { abortSignal: request.signal } : {}),
      });
      const seen = new Set<string>();
      let buffer = '';
      const accept = (line: string): DraftedItem | undefined => {
        const proposal = parseProposal(line);
        const product = proposal && bySku.get(proposal.sku.toUpperCase());
        if (!proposal || !product || seen.has(product.id)) return undefined;
        seen.add(product.id);
        return toItem(product, proposal.cantidad);
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
          const item = accept(buffer.slice(0, newline));
          buffer = buffer.slice(newline + 1);
          if (item) yield item;
          newline = buffer.indexOf('\n');
        }
      }
      const last = accept(buffer);
      if (last && !request.signal?.aborted) yield last;
    },
  };
}

function systemPrompt(catalog: CatalogProduct[]): string {
  const lines = catalog.map((p) => `${p.sku} | ${p.nombre} | ${p.unidad}`).join('\n');
  return [
    'You turn a customer request into quote lines from this catalog (SKU | name | unit):',
    lines,
    'Answer only with one JSON object per line, like {"sku":"LAP-14","cantidad":3}, nothing else.',
    'Use only SKUs of the catalog. If nothing fits, answer with nothing.',
  ].join('\n');
}

/** A `{ sku, cantidad }` line of the model's answer, or undefined for anything else. */
export function parseProposal(line: string): { sku: string; cantidad: number } | undefined {
  const text = line.trim().replace(/^[-*\d.)\s]+(?=\{)/, '');
  if (!text.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(text) as { sku?: unknown; cantidad?: unknown };
    const cantidad = typeof value.cantidad === 'string' ? Number(value.cantidad) : value.cantidad;
    if (typeof value.sku !== 'string' || typeof cantidad !== 'number') return undefined;
    if (!Number.isFinite(cantidad) || cantidad <= 0 || cantidad > MAX_QUANTITY) return undefined;
    return { sku: value.sku, cantidad };
  } catch {
    return undefined;
  }
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
