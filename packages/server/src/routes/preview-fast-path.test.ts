import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION } from '../config.js';
import { revokeApiKey } from '../services/api-keys.js';
import { PUBLISHABLE_LIMITS } from '../services/limits.js';
import {
  comparable,
  newPublishableKey as newKey,
  serverWithSwitch as switchedServer,
} from '../testing/fast-paths.js';
import { createTestContext, type TestContext } from '../testing/harness.js';

let t: TestContext;
const ORIGIN = 'http://127.0.0.1:8787';
const PATH = '/api/v1/elements/preview';
let laptopId: string;
beforeAll(async () => {
  t = await createTestContext();
  laptopId = t.seed.products.find((p) => p.sku === 'LAP-14')!.id;
});
afterAll(() => t.close());

const newPublishableKey = () => newKey(t, ORIGIN);
const basket = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    items: [{ descripcion: 'Laptop', cantidad: 2, precio_unitario: 24500, producto_id: laptopId }],
    ...extra,
  });
let visitor = 0;
/** Another client address for each request, unless one is given: per-IP allowances stay out of the way. */
const nextIp = () => `203.0.113.${(visitor++ % 250) + 1}`;

const serverWithSwitch = () => switchedServer(t, t.app.previewFromMemory, PATH);

describe('POST /elements/preview answered before routing', () => {
  it('answers every outcome exactly as the full pipeline does, over HTTP', async () => {
    const key = await newPublishableKey();
    const server = await serverWithSwitch();
    // A header given as '' is left out.
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(server.url, {
        method: 'POST',
        body,
        headers: Object.fromEntries(
          Object.entries({
            authorization: `Bearer ${key}`,
            origin: ORIGIN,
            'content-type': 'application/json',
            'x-forwarded-for': nextIp(),
            ...headers,
          }).filter(([, value]) => value !== ''),
        ),
      });
    const cases: [string, () => Promise<Response>, number][] = [
      ['a basket', () => post(basket()), 200],
      ['a valid coupon', () => post(basket({ cupon: 'bienvenida10' })), 200],
      ['an unknown coupon', () => post(basket({ cupon: 'NOPE' })), 200],
      // Priced from memory or read afresh (a limited coupon, a code memory cannot match): alike.
      ['a limited coupon', () => post(basket({ cupon: 'promo500' })), 200],
      ['an exhausted coupon', () => post(basket({ cupon: 'AGOTADO' })), 200],
      ['an inactive coupon', () => post(basket({ cupon: 'INACTIVO' })), 200],
      ['an expired coupon', () => post(basket({ cupon: 'EXPIRADO' })), 200],
      ['a coupon in another currency', () => post(basket({ cupon: 'USD50' })), 200],
      ['a code beyond ASCII', () => post(basket({ cupon: 'BIENVENIDÁ10' })), 200],
      ["a price that is not the catalog's", () => post(basket().replace('24500', '24000')), 400],
      [
        'a product not in the catalog',
        () => post(basket().replace(laptopId, '00000000-0000-4000-8000-000000000000')),
        400,
      ],
      ['an empty basket', () => post(JSON.stringify({ items: [] })), 400],
      ['an unknown field', () => post(basket({ cliente: { empresa: 'x' } })), 400],
      ['a currency of no business', () => post(basket({ base_currency: 'JPY' })), 400],
      ['text that is not JSON', () => post('{"items": ['), 400],
      ['bytes that are not UTF-8', () => post('"\udc00"'), 400],
      [
        'a JSON content type with a charset',
        () => post(basket(), { 'content-type': 'application/json; charset=utf-8' }),
        200,
      ],
      ['the current Service-Version', () => post(basket(), { 'service-version': API_VERSION }), 200],
      // Allowed by its Referer alone: no Origin, so no CORS headers (the pipeline's CORS needs one).
      ['a Referer and no Origin', () => post(basket(), { origin: '', referer: `${ORIGIN}/tienda` }), 200],
    ];
    try {
      // The first request teaches memory the key; from then on the switch alone decides.
      expect((await post(basket())).status).toBe(200);
      for (const [what, send, status] of cases) {
        server.setFast(false);
        const before = server.answered();
        const full = await comparable(await send());
        server.setFast(true);
        const fast = await comparable(await send());
        expect(server.answered(), what).toBe(before + 1);
        expect(full.status, what).toBe(status);
        expect(fast, what).toEqual(full);
      }
    } finally {
      await server.close();
    }
  });

  it('counts the per-IP allowance and answers 429 with Retry-After and CORS, as the pipeline does', async () => {
    const key = await newPublishableKey();
    const server = await serverWithSwitch();
    const ip = '198.51.100.77';
    const post = (forwardedFor = ip) =>
      fetch(server.url, {
        method: 'POST',
        body: basket(),
        headers: {
          authorization: `Bearer ${key}`,
          origin: ORIGIN,
          'content-type': 'application/json',
          'x-forwarded-for': forwardedFor,
        },
      });
    try {
      // Both paths count in the same counter: half the allowance each.
      const { limit } = PUBLISHABLE_LIMITS.preview;
      for (let i = 0; i < limit; i++) {
        server.setFast(i % 2 === 1);
        expect((await post()).status).toBe(200);
      }
      server.setFast(false);
      const full = await comparable(await post());
      server.setFast(true);
      const fast = await comparable(await post());
      expect(full.status).toBe(429);
      expect(full.body.code).toBe('rate_limited');
      // An address the visitor wrote before the balancer's own entry changes nothing, on both paths.
      for (const fastPath of [true, false]) {
        server.setFast(fastPath);
        expect((await post(`203.0.113.99, ${ip}`)).status).toBe(429);
      }
      expect(full.headers['retry-after']).toMatch(/^\d+$/);
      expect(full.headers['access-control-allow-origin']).toBe(ORIGIN);
      // The two answers may fall on either side of a second: the wait they give may differ by 1.
      const wait = (answer: typeof full) => Number(answer.headers['retry-after']);
      expect(Math.abs(wait(fast) - wait(full))).toBeLessThanOrEqual(1);
      const withoutWait = (answer: typeof full) => ({
        ...answer,
        headers: { ...answer.headers, 'retry-after': 'N' },
        body: { ...answer.body, error: String(answer.body.error).replace(/after \d+ s/, 'after N s') },
      });
      expect(withoutWait(fast)).toEqual(withoutWait(full));
    } finally {
      await server.close();
    }
  });

  it('leaves to the full pipeline, with nothing counted, whatever memory cannot decide alone', async () => {
    const key = await newPublishableKey();
    const revoked = await newPublishableKey();
    const server = await serverWithSwitch();
    server.setFast(true);
    const send = (
      headers: Record<string, string>,
      init: { body?: string; method?: string; path?: string } = {},
    ) =>
      fetch(`${server.url}${init.path ?? ''}`, {
        method: init.method ?? 'POST',
        body: init.body ?? basket(),
        headers: {
          origin: ORIGIN,
          'content-type': 'application/json',
          'x-forwarded-for': nextIp(),
          ...headers,
        },
      });
    const widget = (secret: string, extra: Record<string, string> = {}) => ({
      authorization: `Bearer ${secret}`,
      ...extra,
    });
    try {
      for (const secret of [key, revoked]) expect((await send(widget(secret))).status).toBe(200);
      expect(await revokeApiKey(t.db, (await t.deps.keys.find(revoked))!.key.id)).toBe(true);
      const answered = server.answered();
      const cases: [string, () => Promise<Response>, number, string][] = [
        ['no key', () => send({}), 401, 'missing_key'],
        ['an unknown key', () => send(widget(`pk_test_${'0'.repeat(32)}`)), 401, 'invalid_key'],
        ['a revoked key', () => send(widget(revoked)), 401, 'invalid_key'],
        ['a secret key', () => send(widget(t.seed.keys.sk_test_write)), 200, ''],
        [
          'a foreign origin',
          () => send(widget(key, { origin: 'https://evil.example' })),
          403,
          'origin_not_allowed',
        ],
        ['no origin', () => send(widget(key, { origin: '' })), 403, 'origin_not_allowed'],
        // Present, so its Referer is not asked (design.md section 4).
        [
          'Origin: null beside an allowed Referer',
          () => send(widget(key, { origin: 'null', referer: `${ORIGIN}/` })),
          403,
          'origin_not_allowed',
        ],
        [
          'another Service-Version',
          () => send(widget(key, { 'service-version': '2020-01-01' })),
          400,
          'invalid_request',
        ],
        [
          'another content type',
          () => send(widget(key, { 'content-type': 'text/plain' })),
          400,
          'invalid_json',
        ],
        [
          'a body over 64 KiB',
          () => send(widget(key), { body: basket({ x: 'x'.repeat(70_000) }) }),
          413,
          'payload_too_large',
        ],
        ['a query string', () => send(widget(key), { path: '?x=1' }), 200, ''],
      ];
      for (const [what, request, status, code] of cases) {
        const res = await request();
        expect(res.status, what).toBe(status);
        if (code) expect(((await res.json()) as { code: string }).code, what).toBe(code);
        else await res.arrayBuffer();
      }
      expect(server.answered()).toBe(answered);
      expect((await send(widget(key))).status).toBe(200);
      expect(server.answered()).toBe(answered + 1);
    } finally {
      await server.close();
    }
  });
});
