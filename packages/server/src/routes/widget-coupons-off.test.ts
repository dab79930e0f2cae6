import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { decideSetupPlan } from '../services/setup-plans.js';
import { expectError, until } from '../testing/assertions.js';
import { comparable, newPublishableKey, serverWithSwitch } from '../testing/fast-paths.js';
import { createTestContext, type TestContext } from '../testing/harness.js';

// `features.coupons: false` turns the widget's coupons off: a publishable key's `cupon` is refused
// on the preview and on creation, through the full pipeline and the fast paths alike, before the
// coupon is looked up; a secret key still applies it.

let t: TestContext;
const ORIGIN = 'http://127.0.0.1:8787';
let laptopId: string;
let pk: string;
beforeAll(async () => {
  t = await createTestContext();
  laptopId = t.seed.products.find((p) => p.sku === 'LAP-14')!.id;
  pk = await newPublishableKey(t, ORIGIN);
});
afterAll(() => t.close());

type Json = Record<string, any>;
/** One laptop from the catalog. */
const basket = () => [{ descripcion: 'Laptop', cantidad: 1, precio_unitario: 24500, producto_id: laptopId }];
let visitor = 0;
/** Another client address for each request: per-IP allowances stay out of the way. */
const nextIp = () => `203.0.113.${(visitor++ % 250) + 1}`;

/**
 * Sets the widget's coupons of test mode as a merchant does: a setup plan, approved. Returns once
 * this process has heard every copy of the change message (on PostgreSQL its own NOTIFY comes back
 * through LISTEN too, a little later), so that none drops a key the next request has just cached.
 */
async function setCoupons(on: boolean) {
  const res = await t.call('POST', '/api/v1/setup/plans', {
    key: t.seed.keys.sk_test_write,
    body: { elements: { features: { coupons: on } } },
  });
  expect(res.status).toBe(200);
  const { data } = (await res.json()) as Json;
  const token = String(data.review_url).split('/').pop()!;
  let heard = 0;
  const unsubscribe = t.deps.keys.subscribe((message) => {
    if (message === `org:${t.seed.org.id}`) heard++;
  });
  try {
    expect(await decideSetupPlan(t.deps, token, true)).toBe('applied');
    const copies = inject('testDb') === 'postgres' ? 2 : 1;
    await until(async () => heard >= copies, 'the change message');
  } finally {
    unsubscribe();
  }
}

const uses = async (code: string) =>
  (
    await t.db.query<{ uses: number }>(
      `SELECT uses FROM coupons WHERE org_id = $1 AND mode = 'test' AND code = $2`,
      [t.seed.org.id, code],
    )
  )[0]!.uses;
const quoteCount = async () =>
  (
    await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM quotes WHERE org_id = $1`, [
      t.seed.org.id,
    ])
  )[0]!.n;

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: {
      authorization: `Bearer ${pk}`,
      origin: ORIGIN,
      'content-type': 'application/json',
      'x-forwarded-for': nextIp(),
      ...headers,
    },
  });

describe('features.coupons: false', () => {
  it('refuses a coupon on the preview, on both paths, with nothing counted; a secret key still applies it', async () => {
    const server = await serverWithSwitch(t, t.app.previewFromMemory, '/api/v1/elements/preview');
    try {
      // Memory learns the key, its organization and the catalog while coupons are on.
      server.setFast(true);
      const on = await post(server.url, { items: basket(), cupon: 'bienvenida10' });
      expect(on.status).toBe(200);
      expect(((await on.json()) as Json).data.cupon).toEqual({
        code: 'BIENVENIDA10',
        valid: true,
        reason: null,
      });
      const promoUses = await uses('PROMO500');
      await setCoupons(false);
      // Priced from memory (unlimited), read afresh (limited), or unknown: refused alike.
      for (const cupon of ['bienvenida10', 'PROMO500', 'NOPE']) {
        const answers = [];
        for (const fast of [false, true]) {
          server.setFast(fast);
          const before = server.answered();
          const res = await post(server.url, { items: basket(), cupon });
          expect(server.answered(), cupon).toBe(before + (fast ? 1 : 0));
          const error = await expectError(res.clone(), 400, 'invalid_request');
          expect(error.error, cupon).toMatch(/^cupon: coupons are not accepted here/);
          answers.push(await comparable(res));
        }
        expect(answers[1], cupon).toEqual(answers[0]);
      }
      // The basket without a coupon is priced as before.
      for (const fast of [false, true]) {
        server.setFast(fast);
        expect((await post(server.url, { items: basket() })).status).toBe(200);
      }
      expect(await uses('PROMO500')).toBe(promoUses);

      const secret = await t.call('POST', '/api/v1/elements/preview', {
        key: t.seed.keys.sk_test_write,
        body: { items: basket(), cupon: 'PROMO500' },
      });
      expect(secret.status).toBe(200);
      expect(((await secret.json()) as Json).data).toMatchObject({
        descuento: 500,
        cupon: { code: 'PROMO500', valid: true, reason: null },
      });

      // Turned on again, the widget's coupon applies again on both paths.
      await setCoupons(true);
      for (const fast of [false, true]) {
        server.setFast(fast);
        const res = await post(server.url, { items: basket(), cupon: 'bienvenida10' });
        expect(res.status).toBe(200);
        expect(((await res.json()) as Json).data.descuento).toBe(2450);
      }
    } finally {
      await setCoupons(true);
      await server.close();
    }
  });

  it('refuses a coupon on creation, on both paths, writing nothing and using nothing; a secret key still applies it', async () => {
    const server = await serverWithSwitch(t, t.app.submissionFromMemory, '/api/v1/cotizaciones');
    const cliente = { empresa: `Visitante ${randomUUID()}`, email: `${randomUUID()}@example.com` };
    const submit = (body: Json) => post(server.url, body, { 'idempotency-key': randomUUID() });
    try {
      // Memory learns the key, the client and the coupon while coupons are on: a later creation
      // naming them is priced from memory (InputsMemory).
      server.setFast(true);
      for (const cupon of ['bienvenida10', 'bienvenida10', 'PROMO500']) {
        expect((await submit({ items: basket(), cliente, cupon })).status).toBe(200);
      }
      const promoUses = await uses('PROMO500');
      const quotes = await quoteCount();
      await setCoupons(false);
      for (const cupon of ['bienvenida10', 'PROMO500']) {
        const answers = [];
        for (const fast of [false, true]) {
          server.setFast(fast);
          const before = server.answered();
          const res = await submit({ items: basket(), cliente, cupon });
          expect(server.answered(), cupon).toBe(before + (fast ? 1 : 0));
          const error = await expectError(res.clone(), 400, 'invalid_request');
          expect(error.error, cupon).toMatch(/^cupon: coupons are not accepted here/);
          answers.push(await comparable(res));
        }
        expect(answers[1], cupon).toEqual(answers[0]);
      }
      expect(await quoteCount()).toBe(quotes);
      expect(await uses('PROMO500')).toBe(promoUses);

      // Without a coupon the widget's quote is made as before.
      server.setFast(true);
      expect((await submit({ items: basket(), cliente })).status).toBe(200);
      expect(await quoteCount()).toBe(quotes + 1);

      const secret = await t.call('POST', '/api/v1/cotizaciones', {
        key: t.seed.keys.sk_test_write,
        body: { items: basket(), cliente, cupon: 'PROMO500' },
      });
      expect(secret.status).toBe(200);
      expect(((await secret.json()) as Json).data.total).toBe(27840);
      expect(await uses('PROMO500')).toBe(promoUses + 1);
    } finally {
      await setCoupons(true);
      await server.close();
    }
  });

  it.runIf(inject('testDb') === 'postgres')(
    'reaches another process on the same PostgreSQL through its change message',
    async () => {
      const peer = await t.openPeer();
      const ask = (path: string, body: Json) =>
        peer.app.request(path, {
          method: 'POST',
          body: JSON.stringify(body),
          headers: {
            authorization: `Bearer ${pk}`,
            origin: ORIGIN,
            'content-type': 'application/json',
            'x-forwarded-for': nextIp(),
          },
        });
      const preview = () => ask('/api/v1/elements/preview', { items: basket(), cupon: 'bienvenida10' });
      try {
        // The peer's memory knows the key, its organization and the catalog with coupons on.
        expect((await preview()).status).toBe(200);
        await setCoupons(false);
        // Its NOTIFY arrives within milliseconds: asked again until it has.
        const deadline = Date.now() + 5_000;
        let res = await preview();
        while (res.status === 200 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          res = await preview();
        }
        const error = await expectError(res, 400, 'invalid_request');
        expect(error.error).toMatch(/^cupon: coupons are not accepted here/);
        const quotes = await quoteCount();
        const created = await ask('/api/v1/cotizaciones', {
          items: basket(),
          cliente: { empresa: `Visitante ${randomUUID()}` },
          cupon: 'bienvenida10',
        });
        expect((await expectError(created, 400, 'invalid_request')).error).toMatch(/^cupon: /);
        expect(await quoteCount()).toBe(quotes);
      } finally {
        await setCoupons(true);
      }
    },
  );
});
