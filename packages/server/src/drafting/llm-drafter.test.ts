import { afterEach, describe, expect, it, vi } from 'vitest';
import { demoCatalog } from './eval.js';
import { createLlmDrafter, parseProposal, parseProposals } from './llm-drafter.js';
import { type OpenAiTestServer, startOpenAiTestServer } from './openai-test-server.js';
import type { DraftedItem, SkippedPhrase } from './types.js';

let server: OpenAiTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const catalog = demoCatalog();

describe('LLM drafter (OpenAI-compatible streaming over real HTTP)', () => {
  it('streams only catalog lines, priced from the catalog, as each line completes', async () => {
    server = await startOpenAiTestServer(() => ({
      // Proposals split across chunks, one unknown SKU, one impossible quantity, one price the model made up.
      chunks: [
        '{"sku":"LAP',
        '-14","cantidad":3}\n{"sku":"NOPE-1","cant',
        'idad":2}\n',
        '{"sku":"MON-27","cantidad":-1}\n',
        '{"sku":"INST-HORA","cantidad":10,"precio_unitario":1}',
      ],
    }));
    const drafter = createLlmDrafter({ baseURL: server.baseURL, model: 'test-model', apiKey: 'k' });
    const items: DraftedItem[] = [];
    for await (const item of drafter.draft({
      prompt: 'Necesito 3 laptops y 10 horas de instalación',
      catalog,
    }))
      items.push(item);
    expect(items.map((i) => [i.sku, i.cantidad, i.precio_unitario])).toEqual([
      ['LAP-14', 3, 24500],
      ['INST-HORA', 10, 650],
    ]);
    const request = server.requests[0]!;
    expect(request.model).toBe('test-model');
    expect(request.stream).toBe(true);
    expect(JSON.stringify(request.messages)).toContain('LAP-14');
    expect(JSON.stringify(request.messages)).toContain('Necesito 3 laptops');
  });

  it('drafts a part of a unit only of a product sold in parts', async () => {
    server = await startOpenAiTestServer(() => ({
      chunks: [
        '{"sku":"DOCK-USB","cantidad":1.5,"text":"1.5 docks"}\n',
        '{"sku":"INST-HORA","cantidad":2.5}\n',
      ],
    }));
    const drafter = createLlmDrafter({ baseURL: server.baseURL, model: 'm' });
    const sold = catalog.map((p) => ({ ...p, fraccionable: p.sku === 'INST-HORA' }));
    const items: DraftedItem[] = [];
    const skipped: SkippedPhrase[] = [];
    for await (const item of drafter.draft({
      prompt: '1.5 docks, 2.5 horas',
      catalog: sold,
      onSkip: (s) => skipped.push(s),
    }))
      items.push(item);
    expect(items.map((i) => [i.sku, i.cantidad])).toEqual([['INST-HORA', 2.5]]);
    expect(skipped).toEqual([{ text: '1.5 docks', reason: 'invalid_quantity' }]);
  });

  it("gives the catalog drafter's post-checks: refused lines and skipped phrases are reported", async () => {
    server = await startOpenAiTestServer(() => ({
      chunks: [
        '{"sku":"MON-27","cantidad":2,"text":"2 monitores"}\n',
        '{"sku":"PRN-1","cantidad":1,"text":"una impresora"}\n',
        '{"sku":"KB-MX","cantidad":0,"text":"0 teclados"}\n',
        '{"sku":"MOUSE-ERG","cantidad":-2}\n',
        '{"skipped":"una silla\\u0007 de oficina"}\n',
        '{"sku":"LAP-14","cantidad":1.5e9}',
      ],
    }));
    const drafter = createLlmDrafter({ baseURL: server.baseURL, model: 'm' });
    const items: DraftedItem[] = [];
    const skipped: SkippedPhrase[] = [];
    for await (const item of drafter.draft({
      prompt: '2 monitores, una impresora, 0 teclados, -2 mouse, una silla de oficina, muchas laptops',
      catalog,
      onSkip: (phrase) => skipped.push(phrase),
    }))
      items.push(item);
    expect(items.map((i) => [i.sku, i.cantidad, i.precio_unitario])).toEqual([['MON-27', 2, 7800]]);
    expect(skipped).toEqual([
      { text: 'una impresora', reason: 'not_in_catalog' },
      { text: '0 teclados', reason: 'invalid_quantity' },
      { text: 'Mouse ergonómico × -2', reason: 'invalid_quantity' },
      { text: 'una silla de oficina', reason: 'not_in_catalog' },
      { text: 'Laptop 14" Core i7, 16 GB × 1500000000', reason: 'invalid_quantity' },
    ]);
  });

  it('stops reading the model when aborted', async () => {
    server = await startOpenAiTestServer(() => ({
      chunks: [
        '{"sku":"LAP-14","cantidad":1}\n',
        ...Array.from({ length: 20 }, () => '{"sku":"MON-27","cantidad":1}\n'),
      ],
      delayMs: 50,
    }));
    const drafter = createLlmDrafter({ baseURL: server.baseURL, model: 'm' });
    const controller = new AbortController();
    const items: DraftedItem[] = [];
    const run = (async () => {
      for await (const item of drafter.draft({ prompt: 'x', catalog, signal: controller.signal })) {
        items.push(item);
        controller.abort();
      }
    })();
    await run.catch(() => {});
    expect(items).toHaveLength(1);
    // The request to the model is aborted as soon as the drafter is, long before its 21 lines end.
    await vi.waitFor(() => expect(server?.clientAborts).toBe(1), { timeout: 500, interval: 10 });
  });

  it('yields each proposal as soon as its line is complete', async () => {
    server = await startOpenAiTestServer(() => ({
      chunks: ['{"sku":"LOGO","can', 'tidad":1}\n', '{"sku":"WEB-LANDING","cantidad":1}'],
      delayMs: 200,
    }));
    const drafter = createLlmDrafter({ baseURL: server.baseURL, model: 'm' });
    const start = performance.now();
    const arrivals: [string, number][] = [];
    for await (const item of drafter.draft({ prompt: 'logo y web', catalog }))
      arrivals.push([item.sku, performance.now() - start]);
    expect(arrivals.map(([sku]) => sku)).toEqual(['LOGO', 'WEB-LANDING']);
    // The first line is complete after the second chunk, one pause before the last one.
    expect(arrivals[1]![1] - arrivals[0]![1]).toBeGreaterThan(150);
  });

  it('reads proposals leniently but never accepts bad ones', () => {
    expect(parseProposal('{"sku":"LAP-14","cantidad":2},')).toEqual({ sku: 'LAP-14', cantidad: 2 });
    expect(
      parseProposals('[{"sku":"A","cantidad":1},{"sku":"B","cantidad":-1},{"sku":"C","cantidad":2}]'),
    ).toEqual([
      { sku: 'A', cantidad: 1 },
      { sku: 'C', cantidad: 2 },
    ]);
    expect(parseProposals('```json')).toEqual([]);
    expect(parseProposal('1. {"sku":"LAP-14","cantidad":"2"}')).toEqual({ sku: 'LAP-14', cantidad: 2 });
    for (const bad of [
      '',
      'hello',
      '{"sku":1,"cantidad":2}',
      '{"sku":"A","cantidad":0}',
      '{"sku":"A","cantidad":1e9}',
      '{"sku":"A"',
      '{"sku":"A","cantidad":""}',
      '{"sku":"A","cantidad":null}',
      'null',
    ]) {
      expect(parseProposal(bad)).toBeUndefined();
    }
  });
});
