import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { streamText } from 'ai';
import {
  type CatalogProduct,
  type DraftedItem,
  type Drafter,
  type DraftRequest,
  type SkippedPhrase,
  validQuantity,
} from './types.js';

/** Where the OpenAI-compatible model lives (OpenAI, Ollama, vLLM, llama.cpp…). */
export interface LlmDrafterOptions {
  baseURL: string;
  model: string;
  apiKey?: string | undefined;
  /** For tests and proxies. */
  fetch?: typeof fetch;
}

/**
 * A drafter that asks a language model which catalog lines fit the request. The model only
 * proposes SKUs and quantities, one JSON object per line, read as the text streams in; each
 * proposal gets the catalog drafter's post-checks: unknown SKUs and quantities that are not above
 * 0 are dropped and reported to `onSkip` (as are the phrases the model says it skipped), and
 * every line is priced from the catalog. Prices never come from the model.
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
      const reported = new Set<string>();
      const skip = (text: string, reason: SkippedPhrase['reason']) => {
        // Model text shown to the customer: one short line, at most 20 of them.
        const clean = text
          .replace(/[\p{Cc}\s]+/gu, ' ')
          .trim()
          .slice(0, 120);
        if (!clean || reported.has(clean) || reported.size >= 20) return;
        reported.add(clean);
        request.onSkip?.({ text: clean, reason });
      };
      let buffer = '';
      // A line may hold one proposal or, from a chattier model, an array of them.
      const accept = (line: string): DraftedItem[] => {
        const items: DraftedItem[] = [];
        for (const entry of parseLine(line)) {
          if ('skipped' in entry) {
            skip(entry.skipped, 'not_in_catalog');
            continue;
          }
          const product = bySku.get(entry.sku.trim().toUpperCase());
          if (!product) {
            skip(entry.text ?? entry.sku, 'not_in_catalog');
            continue;
          }
          if (!validQuantity(entry.cantidad, product)) {
            skip(entry.text ?? `${product.nombre} × ${entry.cantidad}`, 'invalid_quantity');
            continue;
          }
          if (seen.has(product.id)) continue;
          seen.add(product.id);
          items.push(toItem(product, entry.cantidad));
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
    'Answer only with one JSON object per line, like {"sku":"LAP-14","cantidad":3,"text":"3 laptops"}',
    '(text: the words of the customer it comes from), nothing else: no prose, no code fences, no prices.',
    'For something the customer asks for that the catalog does not have, answer {"skipped":"their words"}.',
    'Use only SKUs of the catalog, in the order the customer mentions them, each at most once.',
    'cantidad is counted in the product unit: months for monthly items (a year is 12), years for',
    'yearly items, packs for items sold in packs (300 cards in packs of 100 is 3). "For each one"',
    'multiplies. Leave out what the customer says they do not want. If nothing fits, answer with nothing.',
    ...(locale ? [`The customer usually writes in the language "${locale}", but may use any.`] : []),
  ].join('\n');
}

/** One entry of the model's answer: a proposal (checked later against the catalog) or a skipped phrase. */
type Entry = { sku: string; cantidad: number; text?: string } | { skipped: string };

/**
 * The entries of one line of the model's answer: one object, or a JSON array of them on one
 * line. Proposals keep their quantity as given (the drafter refuses those not above 0).
 */
export function parseLine(line: string): Entry[] {
  const text = line
    .trim()
    .replace(/^[-*\d.)\s]+(?=[{[])/, '')
    .replace(/,\s*$/, '');
  if (!text.startsWith('{') && !text.startsWith('[')) return [];
  try {
    const value: unknown = JSON.parse(text);
    return (Array.isArray(value) ? value : [value]).map(readEntry).filter((e) => e !== undefined);
  } catch {
    return [];
  }
}

function readEntry(value: unknown): Entry | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { sku, cantidad: raw, text, skipped } = value as Record<string, unknown>;
  if (typeof skipped === 'string') return { skipped };
  const cantidad = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  if (typeof sku !== 'string' || typeof cantidad !== 'number') return undefined;
  return { sku, cantidad, ...(typeof text === 'string' ? { text } : {}) };
}

/** A `{ sku, cantidad }` line of the model's answer, or undefined for anything else. */
export function parseProposal(line: string): { sku: string; cantidad: number } | undefined {
  const text = line.trim();
  if (text.startsWith('[')) return undefined;
  return parseProposals(text)[0];
}

/** The valid proposals of a line: one object, or a JSON array of them on one line. */
export function parseProposals(line: string): { sku: string; cantidad: number }[] {
  return parseLine(line)
    .filter((e): e is { sku: string; cantidad: number } => 'sku' in e && validQuantity(e.cantidad))
    .map(({ sku, cantidad }) => ({ sku, cantidad }));
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
