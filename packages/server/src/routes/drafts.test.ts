import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLlmDrafter } from '../drafting/llm-drafter.js';
import {
  type OpenAiTestServer,
  type ScriptedAnswer,
  startOpenAiTestServer,
} from '../drafting/openai-test-server.js';
import { expectError } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';

type Json = Record<string, any>;
const ORIGIN = { origin: 'http://127.0.0.1:8787' };

/** The events of an SSE body: `{ event, data }` in order; comments (heartbeats) skipped. */
export function parseSse(text: string): { event: string; data: Json }[] {
  return text
    .split(/\n\n/)
    .map((block) => block.split('\n').filter((line) => !line.startsWith(':')))
    .filter((lines) => lines.some((l) => l.startsWith('data:')))
    .map((lines) => ({
      event:
        lines
          .find((l) => l.startsWith('event:'))
          ?.slice(6)
          .trim() ?? 'message',
      data: JSON.parse(
        lines
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trim())
          .join('\n'),
      ),
    }));
}

describe('POST /elements/ai-draft with the catalog drafter', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext();
  });
  afterAll(() => t.close());
  const draft = (body: unknown, headers: Record<string, string> = {}) =>
    t.call('POST', '/api/v1/elements/ai-draft', {
      key: t.seed.keys.pk_test,
      body,
      headers: { ...ORIGIN, ...headers },
    });

  it('streams one item event per line, then done, as text/event-stream', async () => {
    const res = await draft({ prompt: 'Necesito 3 laptops y 10 horas de instalación' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN.origin);
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual(['item', 'item', 'done']);
    expect(events[0]!.data).toMatchObject({
      sku: 'LAP-14',
      cantidad: 3,
      precio_unitario: 24500,
      unidad: 'pieza',
      tax_rate: 0.16,
    });
    expect(Object.keys(events[0]!.data).sort()).toEqual([
      'cantidad',
      'confidence',
      'descripcion',
      'precio_unitario',
      'producto_id',
      'sku',
      'tax_rate',
      'unidad',
    ]);
    expect(events[0]!.data.producto_id).toBe(t.seed.products.find((p) => p.sku === 'LAP-14')!.id);
    expect(events[2]!.data).toEqual({ count: 2, skipped: [] });
  });

  it('sends only done when nothing fits', async () => {
    const events = parseSse(await (await draft({ prompt: "Une machine à café, s'il vous plaît" })).text());
    expect(events).toEqual([
      { event: 'done', data: { count: 0, skipped: [{ text: 'machine à café', reason: 'not_in_catalog' }] } },
    ]);
  });

  it('says in done what it skipped: things not in the catalog, parts of a period, impossible quantities', async () => {
    const events = parseSse(
      await (
        await draft({
          prompt: '2 monitores y una impresora, soporte mensual por 2 semanas, -3 teclados, 0 mouse',
        })
      ).text(),
    );
    expect(events.map((e) => e.event)).toEqual(['item', 'done']);
    expect(events[0]!.data).toMatchObject({ sku: 'MON-27', cantidad: 2 });
    expect(events[1]!.data).toEqual({
      count: 1,
      skipped: [
        { text: 'impresora', reason: 'not_in_catalog' },
        { text: 'soporte mensual por 2 semanas', reason: 'partial_period' },
        { text: '-3 teclados', reason: 'invalid_quantity' },
        { text: '0 mouse', reason: 'invalid_quantity' },
      ],
    });
  });

  it('drafts the packs that cover a count of units, and says so in done', async () => {
    const events = parseSse(await (await draft({ prompt: '250 tarjetas de presentación' })).text());
    expect(events[0]!.data).toMatchObject({ sku: 'TARJ-100', cantidad: 3 });
    expect(events[1]!.data).toEqual({
      count: 1,
      skipped: [],
      notes: [
        { text: '250 tarjetas de presentación', reason: 'units_to_packs', sku: 'TARJ-100', cantidad: 3 },
      ],
    });
  });

  it('prices drafted lines in the requested currency of the business', async () => {
    const events = parseSse(await (await draft({ prompt: 'una laptop', currency: 'USD' })).text());
    expect(events[0]!.data.precio_unitario).toBe(1324.32);
  });

  it('replays a draft sent again with its Idempotency-Key, whole, and refuses the key on another prompt', async () => {
    const key = { 'Idempotency-Key': 'draft-1' };
    const first = await draft({ prompt: 'Necesito 3 laptops' }, key);
    expect(first.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = await first.text();
    expect(parseSse(stream).map((e) => e.event)).toEqual(['item', 'done']);
    const again = await draft({ prompt: 'Necesito 3 laptops' }, key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(again.headers.get('cache-control')).toBe('no-cache');
    expect(await again.text()).toBe(stream);
    await expectError(await draft({ prompt: 'Necesito 4 laptops' }, key), 422, 'idempotency_key_reused');
  });

  it('answers errors before the stream as ordinary JSON errors', async () => {
    await expectError(await draft({ prompt: '' }), 400, 'invalid_request');
    const long = await expectError(await draft({ prompt: 'x'.repeat(2001) }), 400, 'invalid_request');
    expect(long.error).toContain('2000');
    // Counted in characters: 2,000 emoji (4,000 UTF-16 units) are within the limit, 2,001 are not.
    expect((await draft({ prompt: '🖥'.repeat(2000) })).status).toBe(200);
    await expectError(await draft({ prompt: '🖥'.repeat(2001) }), 400, 'invalid_request');
    await expectError(await draft({ prompt: 'x', currency: 'EUR' }), 400, 'invalid_request');
    await expectError(await draft({ prompt: 'x', extra: 1 }), 400, 'invalid_request');
    await expectError(
      await draft({ prompt: 'x' }, { origin: 'https://evil.example' }),
      403,
      'origin_not_allowed',
    );
  });

  it('limits drafts per client IP', async () => {
    const ip = { 'x-forwarded-for': '192.0.2.77' };
    // Inside one minute window: twenty-one drafts straddling a minute's end were counted in two.
    t.setNow(new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 60_000));
    try {
      for (let i = 0; i < 20; i++) expect((await draft({ prompt: 'un mouse' }, ip)).status).toBe(200);
      const over = await draft({ prompt: 'un mouse' }, ip);
      await expectError(over, 429, 'rate_limited');
      expect(over.headers.get('retry-after')).toBeTruthy();
    } finally {
      t.setNow(undefined);
    }
  });

  it('answers server-side callers as JSON on POST /cotizaciones/ia, for secret keys only', async () => {
    const res = await t.call('POST', '/api/v1/cotizaciones/ia', {
      key: t.seed.keys.sk_test_write,
      body: { prompt: 'tres teclados y tres mouse' },
    });
    const body = (await res.json()) as Json;
    expect(body.data.items.map((i: Json) => `${i.sku}×${i.cantidad}`)).toEqual(['KB-MX×3', 'MOUSE-ERG×3']);
    expect(body.data.skipped).toEqual([]);
    expect(body.data).not.toHaveProperty('notes');
    // Units drafted as packs are noted as the widget's stream notes them.
    const packs = (await (
      await t.call('POST', '/api/v1/cotizaciones/ia', {
        key: t.seed.keys.sk_test_write,
        body: { prompt: '250 tarjetas de presentación' },
      })
    ).json()) as Json;
    expect(packs.data.items).toMatchObject([{ sku: 'TARJ-100', cantidad: 3 }]);
    expect(packs.data.notes).toEqual([
      { text: '250 tarjetas de presentación', reason: 'units_to_packs', sku: 'TARJ-100', cantidad: 3 },
    ]);
    await expectError(
      await t.call('POST', '/api/v1/cotizaciones/ia', {
        key: t.seed.keys.pk_test,
        body: { prompt: 'x' },
        headers: ORIGIN,
      }),
      403,
      'insufficient_scope',
    );
  });
});

describe('POST /elements/ai-draft with the LLM drafter', () => {
  let t: TestContext;
  let llm: OpenAiTestServer;
  let script: ScriptedAnswer;
  beforeAll(async () => {
    llm = await startOpenAiTestServer(() => script);
    t = await createTestContext({ drafter: createLlmDrafter({ baseURL: llm.baseURL, model: 'm' }) });
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  it('streams the model proposals checked against the catalog', async () => {
    script = {
      chunks: [
        '{"sku":"MON-27","cantidad":2}\n',
        '{"sku":"FAKE","cantidad":2}\n',
        '{"sku":"HDMI-2M","cantidad":2}\n',
      ],
    };
    const res = await t.call('POST', '/api/v1/elements/ai-draft', {
      key: t.seed.keys.pk_test,
      body: { prompt: '2 monitors and 2 cables' },
      headers: ORIGIN,
    });
    const events = parseSse(await res.text());
    expect(
      events.map((e) =>
        e.event === 'item' ? `${e.data.sku}×${e.data.cantidad}@${e.data.precio_unitario}` : e.event,
      ),
    ).toEqual(['MON-27×2@7800', 'HDMI-2M×2@190', 'done']);
  });

  it('stops drafting when the client disconnects', async () => {
    script = {
      chunks: Array.from(
        { length: 40 },
        (_, i) => `{"sku":"${i % 2 ? 'MON-27' : 'KB-MX'}","cantidad":${i + 1}}\n`,
      ),
      delayMs: 40,
    };
    const before = llm.clientAborts;
    const controller = new AbortController();
    const res = await t.app.request('/api/v1/elements/ai-draft', {
      method: 'POST',
      signal: controller.signal,
      headers: {
        authorization: `Bearer ${t.seed.keys.pk_test}`,
        'content-type': 'application/json',
        ...ORIGIN,
      },
      body: JSON.stringify({ prompt: 'lots' }),
    });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('event: item');
    controller.abort();
    await reader.cancel();
    // The model's stream is cut as soon as the abort reaches it, long before its 40 lines are sent.
    await vi.waitFor(() => expect(llm.clientAborts).toBe(before + 1), { timeout: 1_000, interval: 10 });
  });

  it('stores nothing for a keyed draft its client left: the retry drafts again, whole', async () => {
    script = {
      chunks: Array.from({ length: 40 }, (_, i) => `{"sku":"MON-27","cantidad":${i + 1}}\n`),
      delayMs: 40,
    };
    const before = llm.clientAborts;
    const controller = new AbortController();
    const headers = {
      authorization: `Bearer ${t.seed.keys.pk_test}`,
      'content-type': 'application/json',
      'idempotency-key': 'draft-left',
      ...ORIGIN,
    };
    const body = JSON.stringify({ prompt: 'lots' });
    const cut = Promise.resolve(
      t.app.request('/api/v1/elements/ai-draft', {
        method: 'POST',
        signal: controller.signal,
        headers,
        body,
      }),
    )
      .then((res) => res.text())
      .catch(() => 'aborted');
    const asked = llm.requests.length;
    await vi.waitFor(() => expect(llm.requests.length).toBeGreaterThan(asked), {
      timeout: 1_000,
      interval: 10,
    });
    controller.abort();
    await vi.waitFor(() => expect(llm.clientAborts).toBe(before + 1), { timeout: 2_000, interval: 10 });
    await cut;
    script = { chunks: ['{"sku":"MON-27","cantidad":2}\n'] };
    const retry = await t.app.request('/api/v1/elements/ai-draft', { method: 'POST', headers, body });
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(parseSse(await retry.text()).map((e) => e.event)).toEqual(['item', 'done']);
  });

  it('reports a failure mid-stream as an error event after the lines already sent', async () => {
    script = {
      chunks: ['{"sku":"MON-27","cantidad":1}\n', '{"sku":"KB-MX","cantidad":1}\n'],
      breakAfter: 1,
      delayMs: 20,
    };
    const res = await t.call('POST', '/api/v1/elements/ai-draft', {
      key: t.seed.keys.pk_test,
      body: { prompt: 'x' },
      headers: ORIGIN,
    });
    const events = parseSse(await res.text());
    expect(events[0]).toMatchObject({ event: 'item', data: { sku: 'MON-27' } });
    expect(events.at(-1)).toEqual({
      event: 'error',
      data: { error: expect.any(String), code: 'service_unavailable' },
    });
  });
});
