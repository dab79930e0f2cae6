import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { createApp } from '../app.js';
import { COUPON_FAILURES_LIMIT } from '../services/coupon-attempts.js';
import { PUBLISHABLE_LIMITS } from '../services/limits.js';
import { VISITOR_FLUSH_MS } from '../services/visitor-counters.js';
import { createTestContext, type TestContext } from '../testing/harness.js';

// The basket preview prices from memory and counts its visitors in memory (routes/elements.ts,
// PreviewMemory). These tests hold it to what must not change: a change made through the API shows
// in the very next preview of the process that made it, a limited coupon is never remembered, the
// fast path and the full pipeline answer alike, and on PostgreSQL other processes follow within
// a notification (the catalog) or a flush (the counters).

type App = ReturnType<typeof createApp>;
type Json = Record<string, any>;

let t: TestContext;
let sk: string;
let pk: string;
const ORIGIN = 'http://127.0.0.1:8787';
const PATH = '/api/v1/elements/preview';
const postgres = inject('testDb') === 'postgres';
beforeAll(async () => {
  t = await createTestContext();
  sk = t.seed.keys.sk_test_write;
  pk = t.seed.keys.pk_test;
});
afterAll(() => t.close());

let visitor = 0;
const nextIp = () => `192.0.2.${(visitor++ % 250) + 1}`;

function widgetRequest(body: unknown, ip = nextIp()) {
  return new Request(`http://svc.test${PATH}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: {
      authorization: `Bearer ${pk}`,
      origin: ORIGIN,
      'content-type': 'application/json',
      'x-forwarded-for': ip,
    },
  });
}

/** A preview through the fast path (the app's fetch, once the key is known), and its JSON. */
async function preview(body: unknown, app: App = t.app, ip?: string) {
  const res = await app.fetch(widgetRequest(body, ip));
  return { status: res.status, body: (await res.json()) as Json };
}

/** The same preview through the fast path and through the full pipeline, which must agree. */
async function previewBoth(body: unknown) {
  const fast = await preview(body);
  const res = await t.app.fetchThroughPipeline(widgetRequest(body));
  const full = { status: res.status, body: (await res.json()) as Json };
  delete fast.body.request_id;
  delete full.body.request_id;
  expect(fast).toEqual(full);
  return fast;
}

/** Proposes a setup plan with the secret key and approves it on its review page, as a person would. */
async function applyPlan(plan: Json, app: App = t.app) {
  const proposed = await app.request('/api/v1/setup/plans', {
    method: 'POST',
    headers: { authorization: `Bearer ${sk}`, 'content-type': 'application/json' },
    body: JSON.stringify(plan),
  });
  expect(proposed.status).toBe(200);
  const path = new URL(((await proposed.json()) as Json).data.review_url).pathname;
  const page = await app.request(path);
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const decided = await app.request(path, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, decision: 'approve' }).toString(),
  });
  expect(decided.status).toBe(200);
  expect(await decided.text()).not.toMatch(/conflict/i);
}

const line = (producto_id: string, precio_unitario: number) => ({
  descripcion: 'Línea',
  cantidad: 1,
  precio_unitario,
  producto_id,
});
const laptop = (price = 24500) => line(t.seed.products.find((p) => p.sku === 'LAP-14')!.id, price);

describe('the preview from memory, in the process that made a change', () => {
  it('prices a product created through the API in the very next preview', async () => {
    // Memory holds the catalog before the change.
    expect((await previewBoth({ items: [laptop()] })).status).toBe(200);
    const created = await t.call('POST', '/api/v1/productos', {
      key: sk,
      body: { sku: 'MEM-1', nombre: 'Memoria', precio_lista: 100 },
    });
    expect(created.status).toBe(200);
    const id = ((await created.json()) as Json).data.id;
    const priced = await previewBoth({ items: [line(id, 100)] });
    expect(priced.status).toBe(200);
    expect(priced.body.data).toMatchObject({ subtotal: 100, items: [{ sku: 'MEM-1' }] });
  });

  it("shows a product's new price in the very next preview", async () => {
    expect((await previewBoth({ items: [laptop()] })).status).toBe(200);
    await applyPlan({
      productos: [
        { sku: 'LAP-14', nombre: 'Laptop 14"', unidad: 'pieza', precio_lista: 26000, moneda: 'MXN' },
      ],
    });
    const old = await previewBoth({ items: [laptop(24500)] });
    expect(old.status).toBe(400);
    expect(old.body.error).toContain('must be the catalog price 26000');
    const priced = await previewBoth({ items: [laptop(26000)], cupon: 'BIENVENIDA10' });
    expect(priced.status).toBe(200);
    expect(priced.body.data).toMatchObject({ subtotal: 26000, descuento: 2600 });
  });

  it('shows a coupon deactivated, and a new coupon, in the very next preview', async () => {
    const before = await previewBoth({ items: [laptop(26000)], cupon: 'memo15' });
    expect(before.body.data.cupon).toEqual({ code: 'MEMO15', valid: false, reason: 'not_found' });
    await applyPlan({ cupones: [{ code: 'MEMO15', tipo: 'porcentaje', valor: 15 }] });
    const valid = await previewBoth({ items: [laptop(26000)], cupon: 'memo15' });
    expect(valid.body.data).toMatchObject({ descuento: 3900, cupon: { code: 'MEMO15', valid: true } });
    await applyPlan({ cupones: [{ code: 'MEMO15', tipo: 'porcentaje', valor: 15, active: false }] });
    const inactive = await previewBoth({ items: [laptop(26000)], cupon: 'memo15' });
    expect(inactive.body.data).toMatchObject({
      descuento: 0,
      cupon: { code: 'MEMO15', valid: false, reason: 'inactive' },
    });
  });

  it('reads a limited coupon afresh: exhausted in the preview right after its last use', async () => {
    await applyPlan({
      cupones: [{ code: 'DOSVECES', tipo: 'monto', valor: 100, moneda: 'MXN', max_uses: 2 }],
    });
    for (let use = 0; use < 2; use++) {
      const valid = await previewBoth({ items: [laptop(26000)], cupon: 'DOSVECES' });
      expect(valid.body.data.cupon).toEqual({ code: 'DOSVECES', valid: true, reason: null });
      const created = await t.call('POST', '/api/v1/cotizaciones', {
        key: pk,
        headers: { origin: ORIGIN, 'x-forwarded-for': nextIp() },
        body: {
          items: [laptop(26000)],
          cupon: 'DOSVECES',
          cliente: { empresa: `Uso ${use}`, email: `uso${use}@cliente.example` },
        },
      });
      expect(created.status).toBe(200);
    }
    const exhausted = await previewBoth({ items: [laptop(26000)], cupon: 'DOSVECES' });
    expect(exhausted.body.data.cupon).toEqual({ code: 'DOSVECES', valid: false, reason: 'exhausted' });
  });
});

describe.runIf(postgres)('the preview from memory, across processes on one PostgreSQL', () => {
  it("follows another process's catalog changes by LISTEN/NOTIFY, and limited coupons at once", async () => {
    const peer = await t.openPeer();
    /** The peer's preview, asked again until it shows the change (its NOTIFY arrives within ms). */
    const peerPreviewOnceHeard = async (
      body: Json,
      heard: (res: Awaited<ReturnType<typeof preview>>) => boolean,
    ) => {
      const deadline = Date.now() + 5_000;
      let res = await preview(body, peer.app);
      while (!heard(res) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        res = await preview(body, peer.app);
      }
      return res;
    };
    expect((await preview({ items: [laptop(26000)] }, peer.app)).status).toBe(200);
    await applyPlan({
      productos: [
        { sku: 'LAP-14', nombre: 'Laptop 14"', unidad: 'pieza', precio_lista: 27000, moneda: 'MXN' },
      ],
    });
    const priced = await peerPreviewOnceHeard({ items: [laptop(27000)] }, (res) => res.status === 200);
    expect(priced.status).toBe(200);
    // A new coupon reaches the other process by the same message; once it has, a limited
    // coupon used up here is exhausted there without waiting for any further message.
    await applyPlan({ cupones: [{ code: 'UNAVEZ', tipo: 'porcentaje', valor: 5, max_uses: 1 }] });
    const before = await peerPreviewOnceHeard(
      { items: [laptop(27000)], cupon: 'UNAVEZ' },
      (res) => res.body.data?.cupon?.valid === true,
    );
    expect(before.body.data.cupon.valid).toBe(true);
    const created = await t.call('POST', '/api/v1/cotizaciones', {
      key: pk,
      headers: { origin: ORIGIN, 'x-forwarded-for': nextIp() },
      body: {
        items: [laptop(27000)],
        cupon: 'UNAVEZ',
        cliente: { empresa: 'Única', email: 'unica@cliente.example' },
      },
    });
    expect(created.status).toBe(200);
    const after = await preview({ items: [laptop(27000)], cupon: 'UNAVEZ' }, peer.app);
    expect(after.body.data.cupon).toEqual({ code: 'UNAVEZ', valid: false, reason: 'exhausted' });
  });

  it("holds a visitor's allowance across two processes to within one flush", async () => {
    const peer = await t.openPeer();
    const { limit } = PUBLISHABLE_LIMITS.preview;
    const ip = '198.51.100.200';
    const body = { items: [laptop(27000)] };
    // Inside one minute window, so the count cannot start afresh halfway.
    const second = new Date().getUTCSeconds();
    if (second > 40) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000));
    for (let i = 0; i < limit - 20; i++) expect((await preview(body, t.app, ip)).status).toBe(200);
    await t.app.previewMemory.counters.flush();
    // The other process has not read this visitor's counter yet: its first requests pass.
    for (let i = 0; i < 20; i++) expect((await preview(body, peer.app, ip)).status).toBe(200);
    // Its own timer flushes within VISITOR_FLUSH_MS of its first count, and reads back the
    // shared total: from then on it refuses.
    const counted = Date.now();
    let refused: Awaited<ReturnType<typeof preview>> | undefined;
    while (Date.now() < counted + 4 * VISITOR_FLUSH_MS) {
      const res = await preview(body, peer.app, ip);
      if (res.status === 429) {
        refused = res;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, VISITOR_FLUSH_MS / 10));
    }
    expect(refused?.body).toMatchObject({ code: 'rate_limited', error: expect.any(String) });
    expect(Date.now() - counted).toBeLessThan(2 * VISITOR_FLUSH_MS);
    // The first process learns the other's counts at its next flush.
    await preview(body, t.app, ip);
    await t.app.previewMemory.counters.flush();
    const res = await t.app.fetch(widgetRequest(body, ip));
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another visitor is not affected.
    expect((await preview(body, peer.app)).status).toBe(200);
  });

  it("holds a visitor's failed coupons across processes: at once for creation, within a flush for previews", async () => {
    const peer = await t.openPeer();
    const ip = '198.51.100.201';
    for (let i = 0; i < COUPON_FAILURES_LIMIT; i++) {
      const res = await preview({ items: [laptop(27000)], cupon: `ADIVINA${i}` }, t.app, ip);
      expect(res.body.data.cupon.valid).toBe(false);
    }
    // The same process knows at once.
    expect((await preview({ items: [laptop(27000)], cupon: 'BIENVENIDA10' }, t.app, ip)).status).toBe(429);
    // Quote creation on the other process reads the database, where failures are written at once.
    const created = await peer.app.request('/api/v1/cotizaciones', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${pk}`,
        origin: ORIGIN,
        'content-type': 'application/json',
        'x-forwarded-for': ip,
      },
      body: JSON.stringify({
        items: [laptop(27000)],
        cupon: 'BIENVENIDA10',
        cliente: { empresa: 'X', email: 'x@cliente.example' },
      }),
    });
    expect(created.status).toBe(429);
    // The other process's preview reads the counter back at its next flush.
    await preview({ items: [laptop(27000)], cupon: 'BIENVENIDA10' }, peer.app, ip);
    await peer.app.previewMemory.counters.flush();
    const refused = await preview({ items: [laptop(27000)], cupon: 'BIENVENIDA10' }, peer.app, ip);
    expect(refused).toMatchObject({ status: 429, body: { code: 'rate_limited' } });
  });
});
