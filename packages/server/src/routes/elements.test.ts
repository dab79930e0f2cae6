import { randomUUID } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { PUBLISHABLE_LIMITS } from '../services/limits.js';
import { runHousekeeping } from '../services/scheduler.js';
import { expectError } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';

let t: TestContext;
let pk: string;
let product: (sku: string) => string;
const ORIGIN = 'http://127.0.0.1:8787';
beforeAll(async () => {
  t = await createTestContext();
  pk = t.seed.keys.pk_test;
  const ids = new Map(t.seed.products.map((p) => [p.sku, p.id]));
  product = (sku) => ids.get(sku)!;
});
afterAll(() => t.close());

type Json = Record<string, any>;
const asWidget = (
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  key = pk,
) =>
  t.call(method, path, {
    key,
    body,
    headers: { origin: ORIGIN, 'x-forwarded-for': '198.51.100.1', ...headers },
  });
const laptop = (cantidad = 1) => ({
  descripcion: 'Laptop',
  cantidad,
  precio_unitario: 24500,
  producto_id: product('LAP-14'),
});
const count = async (table: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n;
const couponUses = async (code = 'BIENVENIDA10') =>
  (
    await t.db.query<{ uses: number }>(
      `SELECT uses FROM coupons WHERE code = $1 AND mode = 'test' AND org_id = $2`,
      [code, t.seed.org.id],
    )
  )[0]!.uses;

describe('publishable keys: what they may call', () => {
  it('only reaches the widget operations; everything else is 403 insufficient_scope', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/me'],
      ['GET', '/api/v1/cotizaciones'],
      ['GET', '/api/v1/events'],
      ['GET', '/api/v1/clientes'],
      ['POST', '/api/v1/productos'],
      ['GET', '/api/v1/emails'],
      ['POST', '/api/test-mode/reset'],
    ]) {
      await expectError(
        await asWidget(method!, path!, method === 'POST' ? {} : undefined),
        403,
        'insufficient_scope',
      );
    }
  });
});

describe('origin allowlist', () => {
  it('accepts allowed origins, wildcard subdomains, a Referer, and localhost for test keys', async () => {
    const cases: Record<string, string>[] = [
      { origin: 'https://shop.example' },
      { origin: 'https://tienda.nopal.example' },
      { origin: 'https://a.b.nopal.example' },
      { origin: 'http://localhost:5173' },
      { origin: '', referer: 'https://shop.example/cart?x=1' },
    ];
    for (const headers of cases) {
      const res = await t.call('GET', '/api/v1/elements/config', { key: pk, headers });
      expect({ headers, status: res.status }).toEqual({ headers, status: 200 });
    }
  });

  it('refuses spoofed and look-alike origins with 403 origin_not_allowed before anything runs', async () => {
    const before = await count('quotes');
    for (const origin of [
      'https://evil.example',
      'https://nopal.example',
      'http://tienda.nopal.example',
      'https://shop.example.evil.com',
      'https://evilshop.example',
      'null',
    ]) {
      const res = await t.call('POST', '/api/v1/cotizaciones', {
        key: pk,
        headers: { origin },
        body: { items: [laptop()], cliente: { empresa: 'X' } },
      });
      await expectError(res, 403, 'origin_not_allowed');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
    await expectError(await t.call('GET', '/api/v1/elements/config', { key: pk }), 403, 'origin_not_allowed');
    expect(await count('quotes')).toBe(before);
  });

  it('refuses Origin: null (an opaque origin) with 403 origin_not_allowed, even beside an allowed Referer', async () => {
    const before = await count('quotes');
    const headers = { origin: 'null', referer: 'https://shop.example/tienda' };
    // Twice: the second time memory holds the key and its configuration (the fast paths).
    for (let i = 0; i < 2; i++) {
      const created = await t.call('POST', '/api/v1/cotizaciones', {
        key: pk,
        headers: { ...headers, 'idempotency-key': randomUUID() },
        body: { items: [laptop()], cliente: { empresa: 'Null Origin Co' } },
      });
      const body = await expectError(created, 403, 'origin_not_allowed');
      expect(body.error).toMatch(/opaque origin/);
      expect(created.headers.get('access-control-allow-origin')).toBeNull();
      for (const path of ['/api/v1/elements/config', '/api/v1/elements/preview']) {
        const res = await t.call(path.endsWith('config') ? 'GET' : 'POST', path, {
          key: pk,
          headers,
          body: path.endsWith('config') ? undefined : { items: [laptop()] },
        });
        await expectError(res, 403, 'origin_not_allowed');
        expect(res.headers.get('access-control-allow-origin')).toBeNull();
      }
      // The same Referer without an Origin header is allowed.
      expect(
        (await t.call('GET', '/api/v1/elements/config', { key: pk, headers: { referer: headers.referer } }))
          .status,
      ).toBe(200);
    }
    expect(await count('quotes')).toBe(before);
  });

  it('sends CORS headers only to a request that sent an Origin, not to one allowed by its Referer alone', async () => {
    const referer = { referer: 'https://shop.example/cart' };
    // The first answer takes the pipeline; the next ones come from memory.
    for (let i = 0; i < 3; i++) {
      const config = await t.call('GET', '/api/v1/elements/config', { key: pk, headers: referer });
      expect(config.status).toBe(200);
      expect(config.headers.get('access-control-allow-origin')).toBeNull();
      expect(config.headers.get('access-control-expose-headers')).toBeNull();
      const withOrigin = await t.call('GET', '/api/v1/elements/config', {
        key: pk,
        headers: { origin: 'https://shop.example' },
      });
      expect(withOrigin.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    }
  });

  it('refuses a publishable key outside its operations with 403 insufficient_scope, from any origin or none', async () => {
    for (const headers of [
      {},
      { origin: 'https://evil.example' },
      { origin: 'https://shop.example' },
    ] as Record<string, string>[]) {
      await expectError(await t.call('GET', '/api/v1/me', { key: pk, headers }), 403, 'insufficient_scope');
      await expectError(
        await t.call('GET', '/api/v1/cotizaciones', { key: pk, headers }),
        403,
        'insufficient_scope',
      );
    }
  });

  it('does not give live keys the localhost allowance', async () => {
    await expectError(
      await t.call('GET', '/api/v1/elements/config', {
        key: t.seed.keys.pk_live,
        headers: { origin: 'http://localhost:3000' },
      }),
      403,
      'origin_not_allowed',
    );
    const ok = await t.call('GET', '/api/v1/elements/config', {
      key: t.seed.keys.pk_live,
      headers: { origin: 'https://shop.example' },
    });
    expect(ok.status).toBe(200);
  });
});

describe('CORS', () => {
  it('answers preflights from allowed origins with 204 and the documented headers', async () => {
    const res = await t.call('OPTIONS', '/api/v1/cotizaciones', {
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect(res.headers.get('vary')).toContain('Origin');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST');
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'Authorization, Content-Type, Idempotency-Key, Service-Version',
    );
    expect(res.headers.get('access-control-expose-headers')).toBe(
      'Service-Request-Id, Service-Version, Idempotent-Replayed, Retry-After',
    );
  });

  it('gives disallowed origins no CORS headers at all', async () => {
    const res = await t.call('OPTIONS', '/api/v1/elements/config', {
      headers: { origin: 'https://evil.example' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('exposes the response headers to the allowed origin on real requests', async () => {
    const res = await asWidget('GET', '/api/v1/elements/config');
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-expose-headers')).toContain('Service-Request-Id');
  });

  it('never sends CORS headers for secret-key operations', async () => {
    const me = await t.call('GET', '/api/v1/me', {
      key: t.seed.keys.sk_test_read,
      headers: { origin: ORIGIN },
    });
    expect(me.headers.get('access-control-allow-origin')).toBeNull();
    const create = await t.call('POST', '/api/v1/cotizaciones', {
      key: t.seed.keys.sk_test_write,
      headers: { origin: ORIGIN },
      body: { items: [laptop()], cliente: { empresa: 'X' } },
    });
    expect(create.status).toBe(200);
    expect(create.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await t.call('OPTIONS', '/api/v1/me', { headers: { origin: ORIGIN } });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('GET /elements/config', () => {
  it('returns the documented shape with public catalog fields only', async () => {
    const res = await asWidget('GET', '/api/v1/elements/config');
    const { data } = (await res.json()) as Json;
    expect(data).toMatchObject({
      org: { nombre: 'Estudio Nopal', color: '#1f7a4d', logo_url: null, country: 'MX' },
      mode: 'test',
      locale: 'es',
      locales: ['es', 'en', 'pt', 'fr', 'de'],
      currency: 'MXN',
      currencies: ['MXN', 'USD'],
      fx_rates: { USD: 18.5 },
      iva_incluido: false,
      default_tax_rate: 0.16,
      features: { ai_draft: true, coupons: true, custom_items: true },
      required_client_fields: ['email'],
    });
    expect(data.catalog).toHaveLength(t.seed.products.length);
    expect(Object.keys(data.catalog[0]).sort()).toEqual([
      'fraccionable',
      'id',
      'moneda',
      'nombre',
      'precio_lista',
      'sku',
      'tax_rate',
      'unidad',
    ]);
    const text = JSON.stringify(data);
    for (const secret of ['costo', 'aliases', 'notas', 'secret_hash', 'sk_test_'])
      expect(text).not.toContain(secret);
  });

  it('sends an ETag, short public caching, and 304 for If-None-Match', async () => {
    const first = await asWidget('GET', '/api/v1/elements/config');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=60');
    const again = await asWidget('GET', '/api/v1/elements/config', undefined, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    // `*` names any current representation (RFC 9110).
    expect(
      (await asWidget('GET', '/api/v1/elements/config', undefined, { 'if-none-match': '*' })).status,
    ).toBe(304);
    // Both carry every header the middleware gives other responses, once.
    for (const res of [first, again]) {
      expect(res.headers.get('service-request-id')).toMatch(/^req_/);
      expect(res.headers.get('service-version')).toBe('2026-10-01');
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(res.headers.get('access-control-expose-headers')).toContain('Service-Request-Id');
      expect(res.headers.get('vary')).toBe('Origin, Authorization, Accept-Encoding');
    }
    expect(first.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(first.headers.get('content-encoding')).toBeNull();
    expect(first.headers.get('service-request-id')).not.toBe(again.headers.get('service-request-id'));
  });

  it('sends the JSON compressed as the request accepts it, each encoding with its own ETag and 304', async () => {
    const plain = await asWidget('GET', '/api/v1/elements/config');
    const json = Buffer.from(await plain.arrayBuffer());
    const etag = plain.headers.get('etag')!;
    const get = (extra: Record<string, string>) =>
      asWidget('GET', '/api/v1/elements/config', undefined, extra);
    const cases: [string, 'br' | 'gzip' | null][] = [
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip, deflate', 'gzip'],
      ['br;q=0.5, gzip', 'gzip'],
      ['x-gzip', 'gzip'],
      ['BR', 'br'],
      ['*', 'br'],
      ['br;q=0, *;q=0.1', 'gzip'],
      ['gzip;q=0.5, identity', null],
      ['identity', null],
      ['deflate, zstd', null],
      ['br;q=0, gzip;q=0', null],
      ['br;q=high', null],
      ['', null],
    ];
    const tags = new Set<string>();
    for (const [acceptEncoding, expected] of cases) {
      const res = await get({ 'accept-encoding': acceptEncoding });
      expect(res.status, acceptEncoding).toBe(200);
      expect(res.headers.get('content-encoding'), acceptEncoding).toBe(expected);
      expect(res.headers.get('vary')).toBe('Origin, Authorization, Accept-Encoding');
      expect(res.headers.get('cache-control')).toBe('public, max-age=60');
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(res.headers.get('content-length')).toBe(String(bytes.length));
      const decoded =
        expected === 'br' ? brotliDecompressSync(bytes) : expected === 'gzip' ? gunzipSync(bytes) : bytes;
      expect(decoded.equals(json), acceptEncoding).toBe(true);
      if (expected) expect(bytes.length).toBeLessThan(json.length / 2);
      const tag = res.headers.get('etag')!;
      expect(tag).toBe(expected ? etag.replace(/"$/, `-${expected}"`) : etag);
      tags.add(tag);
      // A 304 for the tag of the representation this request gets, weak or strong; the tag of
      // another representation gets that representation's full answer instead.
      for (const known of [tag, `W/${tag}`, `"other", ${tag}`]) {
        const again = await get({ 'accept-encoding': acceptEncoding, 'if-none-match': known });
        expect(again.status, `${acceptEncoding} ${known}`).toBe(304);
        expect(again.headers.get('etag')).toBe(tag);
        expect(again.headers.get('content-encoding')).toBeNull();
        expect(again.headers.get('vary')).toBe('Origin, Authorization, Accept-Encoding');
        expect(await again.text()).toBe('');
      }
      const other = expected === 'br' ? etag : etag.replace(/"$/, '-br"');
      const full = await get({ 'accept-encoding': acceptEncoding, 'if-none-match': other });
      expect(full.status).toBe(200);
      expect(full.headers.get('etag')).toBe(tag);
    }
    expect(tags.size).toBe(3);
  });

  it('changes when the catalog changes', async () => {
    const before = (await asWidget('GET', '/api/v1/elements/config')).headers.get('etag');
    const created = await t.call('POST', '/api/v1/productos', {
      key: t.seed.keys.sk_test_write,
      body: { sku: 'NEW-1', nombre: 'Nuevo', precio_lista: 10, costo: 4 },
    });
    expect(created.status).toBe(200);
    const after = await asWidget('GET', '/api/v1/elements/config');
    expect(after.headers.get('etag')).not.toBe(before);
    const { data } = (await after.json()) as Json;
    expect(data.catalog.some((p: Json) => p.sku === 'NEW-1')).toBe(true);
    expect(JSON.stringify(data)).not.toContain('"costo"');
  });
});

describe('POST /cotizaciones with a publishable key', () => {
  const cliente = { empresa: 'Cliente Web', email: 'web@cliente.example' };

  it('creates a draft priced from the catalog', async () => {
    const res = await asWidget('POST', '/api/v1/cotizaciones', {
      items: [laptop(2)],
      cliente,
      cupon: 'BIENVENIDA10',
    });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as Json;
    expect(data).toMatchObject({ status: 'draft', total: 51156, needs_approval: false });
  });

  it('stores the catalog price, not one sent that rounds to it', async () => {
    // 24,499.995 is the catalog's 24,500.00 to the cent, but 100,000 of them are 500 less.
    const cantidad = 100_000;
    const items = [{ ...laptop(cantidad), precio_unitario: 24499.995 }];
    const preview = await asWidget('POST', '/api/v1/elements/preview', { items });
    expect(preview.status, await preview.clone().text()).toBe(200);
    expect(((await preview.json()) as Json).data.subtotal).toBe(24500 * cantidad);
    const created = await asWidget('POST', '/api/v1/cotizaciones', { items, cliente });
    expect(created.status, await created.clone().text()).toBe(200);
    const { data } = (await created.json()) as Json;
    expect(data.total).toBe(24500 * cantidad * 1.16);
    const [line] = await t.db.query<{ precio_unitario: string }>(
      'SELECT precio_unitario FROM quote_items WHERE quote_id = $1',
      [data.id],
    );
    expect(Number(line!.precio_unitario)).toBe(24500);
  });

  it('refuses seller-only fields, naming them, and writes nothing', async () => {
    const before = await count('quotes');
    for (const [body, field] of [
      [{ items: [laptop()], cliente, descuento: { tipo: 'porcentaje', valor: 5 } }, 'descuento'],
      [{ items: [laptop()], cliente, send: true }, 'send'],
      [{ items: [laptop()], cliente_id: '00000000-0000-4000-8000-000000000000' }, 'cliente_id'],
      [{ items: [{ ...laptop(), precio_negociado: 1 }], cliente }, 'items[0].precio_negociado'],
      [{ items: [{ ...laptop(), costo_unitario: 1 }], cliente }, 'items[0].costo_unitario'],
      [{ items: [{ ...laptop(), precio_unitario: 1 }], cliente }, 'items[0].precio_unitario'],
      [{ items: [{ ...laptop(), tax_rate: 0 }], cliente }, 'items[0].tax_rate'],
      [{ items: [{ ...laptop(), exemption_reason: 'E1' }], cliente }, 'items[0].exemption_reason'],
      [{ items: [laptop()] }, 'cliente'],
    ] as const) {
      const res = await asWidget('POST', '/api/v1/cotizaciones', body);
      const error = await expectError(res, 400, 'invalid_request');
      expect(error.error).toContain(field);
    }
    expect(await count('quotes')).toBe(before);
  });

  it('allows free-text lines only when the widget settings do', async () => {
    const freeText = {
      items: [{ descripcion: 'Algo a medida', cantidad: 1, precio_unitario: 100 }],
      cliente,
    };
    expect((await asWidget('POST', '/api/v1/cotizaciones', freeText)).status).toBe(200);
    await t.db.query(`UPDATE orgs SET widget = widget || '{"custom_items": false}' WHERE id = $1`, [
      t.seed.org.id,
    ]);
    t.deps.keys.invalidate(`org:${t.seed.org.id}`);
    try {
      await expectError(await asWidget('POST', '/api/v1/cotizaciones', freeText), 400, 'invalid_request');
    } finally {
      await t.db.query(`UPDATE orgs SET widget = widget || '{"custom_items": true}' WHERE id = $1`, [
        t.seed.org.id,
      ]);
      t.deps.keys.invalidate(`org:${t.seed.org.id}`);
    }
  });

  it('requires the client fields the widget requires, as the widget does, and writes nothing', async () => {
    const setRequired = async (fields: string[]) => {
      await t.db.query(
        `UPDATE orgs SET widget = jsonb_set(widget, '{required_client_fields}', $2::jsonb) WHERE id = $1`,
        [t.seed.org.id, JSON.stringify(fields)],
      );
      t.deps.keys.invalidate(`org:${t.seed.org.id}`);
    };
    const before = { quotes: await count('quotes'), clients: await count('clients') };
    // The seed requires an e-mail (the default): a visitor posting with the key cannot skip it.
    const noEmail = await asWidget('POST', '/api/v1/cotizaciones', {
      items: [laptop()],
      cliente: { empresa: 'Sin Correo' },
    });
    expect((await expectError(noEmail, 400, 'invalid_request')).error).toBe(
      'cliente.email: required by this business',
    );
    await setRequired(['email', 'telefono', 'rfc']);
    try {
      for (const [extra, field] of [
        [{}, 'cliente.telefono'],
        [{ telefono: '+52 55 1234 5678' }, 'cliente.fiscal.tax_id'],
      ] as const) {
        const res = await asWidget('POST', '/api/v1/cotizaciones', {
          items: [laptop()],
          cliente: { ...cliente, ...extra },
        });
        expect((await expectError(res, 400, 'invalid_request')).error).toBe(
          `${field}: required by this business`,
        );
      }
      expect({ quotes: await count('quotes'), clients: await count('clients') }).toEqual(before);
      const complete = await asWidget('POST', '/api/v1/cotizaciones', {
        items: [laptop()],
        cliente: {
          ...cliente,
          telefono: '+52 55 1234 5678',
          fiscal: { country: 'MX', tax_id: 'CWE010203AB1' },
        },
      });
      expect(complete.status).toBe(200);
      // The seller's own key is not the widget: it creates a quote for a client with a name only.
      const seller = await t.call('POST', '/api/v1/cotizaciones', {
        key: t.seed.keys.sk_test_write,
        body: { items: [laptop()], cliente: { empresa: 'Solo Nombre' } },
      });
      expect(seller.status).toBe(200);
    } finally {
      await setRequired(['email']);
    }
  });
});

describe('POST /elements/preview', () => {
  it('returns authoritative totals and checks a coupon without using it', async () => {
    const [before] = await t.db.query<{ uses: number }>(
      `SELECT uses FROM coupons WHERE code = 'PROMO500' AND mode = 'test' AND org_id = $1`,
      [t.seed.org.id],
    );
    const res = await asWidget('POST', '/api/v1/elements/preview', { items: [laptop(1)], cupon: 'promo500' });
    const { data } = (await res.json()) as Json;
    expect(data).toMatchObject({
      subtotal: 24500,
      descuento: 500,
      impuestos: 3840,
      total: 27840,
      moneda: 'MXN',
      cupon: { code: 'PROMO500', valid: true, reason: null },
    });
    expect(data.items[0]).toMatchObject({ sku: 'LAP-14', importe: 24500, descuento: 500, impuesto: 3840 });
    const [after] = await t.db.query<{ uses: number }>(
      `SELECT uses FROM coupons WHERE code = 'PROMO500' AND mode = 'test' AND org_id = $1`,
      [t.seed.org.id],
    );
    expect(after?.uses).toBe(before?.uses);
  });

  it('takes the body of POST /cotizaciones without cliente, and prices it as creation does', async () => {
    const basket = {
      items: [laptop(1)],
      terminos: 'net30',
      vigencia_dias: 20,
      notas: 'x',
      fiscal_currency: 'MXN',
      iva_incluido: false,
    };
    const widget = (await (await asWidget('POST', '/api/v1/elements/preview', basket)).json()) as Json;
    expect(widget.data).toMatchObject({ subtotal: 24500, descuento: 0, total: 28420 });
    // A seller's own discount prices with a secret key, and a coupon, when sent, is the discount.
    const seller = (body: Json) =>
      t.call('POST', '/api/v1/elements/preview', { key: t.seed.keys.sk_test_write, body });
    const discounted = (await (
      await seller({
        ...basket,
        send: false,
        plan_pagos: { tipo: 'anticipo', porcentaje: 50 },
        descuento: { tipo: 'porcentaje', valor: 10 },
      })
    ).json()) as Json;
    expect(discounted.data).toMatchObject({ subtotal: 24500, descuento: 2450, total: 25578 });
    const couponed = (await (
      await seller({ ...basket, descuento: { tipo: 'porcentaje', valor: 10 }, cupon: 'PROMO500' })
    ).json()) as Json;
    expect(couponed.data).toMatchObject({ descuento: 500 });
    // An amount with more decimals than the currency is refused, as creation refuses it, not rounded.
    const sharp = { ...basket, descuento: { tipo: 'monto', valor: 1.005 } };
    const refused = await expectError(await seller(sharp), 400, 'invalid_request');
    expect(refused.error).toContain('descuento.valor');
    const created = await t.call('POST', '/api/v1/cotizaciones', {
      key: t.seed.keys.sk_test_write,
      body: { ...sharp, cliente: { empresa: 'Descuento Fino' } },
    });
    expect((await expectError(created, 400, 'invalid_request')).error).toBe(refused.error);
    // What a publishable key may not send on creation, it may not send to preview either.
    for (const [extra, field] of [
      [{ descuento: { tipo: 'monto', valor: 1 } }, 'descuento'],
      [{ send: false }, 'send'],
      [{ plan_pagos: { tipo: 'contado' } }, 'plan_pagos'],
      [{ cliente_id: randomUUID() }, 'cliente_id'],
      [{ items: [{ ...laptop(1), precio_negociado: 1 }] }, 'items[0].precio_negociado'],
      [{ items: [{ ...laptop(1), costo_unitario: 1 }] }, 'items[0].costo_unitario'],
      [{ items: [{ ...laptop(1), exemption_reason: 'E1' }] }, 'items[0].exemption_reason'],
    ] as [Json, string][]) {
      const res = await asWidget('POST', '/api/v1/elements/preview', { items: [laptop(1)], ...extra });
      const error = await expectError(res, 400, 'invalid_request');
      expect(error.error).toBe(`${field}: not allowed with a publishable key`);
    }
    // null is "none given", which the widget may say.
    const none = await asWidget('POST', '/api/v1/elements/preview', {
      items: [{ ...laptop(1), exemption_reason: null }],
    });
    expect(none.status).toBe(200);
    await expectError(
      await asWidget('POST', '/api/v1/elements/preview', { ...basket, cliente: { empresa: 'X' } }),
      400,
      'invalid_request',
    );
  });

  it('replays a preview sent again with its Idempotency-Key, refuses the key on another body, and a malformed one', async () => {
    const send = (items: unknown[]) =>
      asWidget('POST', '/api/v1/elements/preview', { items }, { 'Idempotency-Key': 'pv-1' });
    const first = await send([laptop(1)]);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const body = await first.text();
    // The catalog changes meanwhile: the replay is the answer given, not a new preview.
    await t.db.query(`UPDATE products SET precio_lista = precio_lista + 1 WHERE sku = 'LAP-14'`);
    try {
      const again = await send([laptop(1)]);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(await again.text()).toBe(body);
      await expectError(await send([laptop(2)]), 422, 'idempotency_key_reused');
    } finally {
      await t.db.query(`UPDATE products SET precio_lista = precio_lista - 1 WHERE sku = 'LAP-14'`);
    }
    for (const path of ['/api/v1/elements/preview', '/api/v1/elements/ai-draft']) {
      const body = path.endsWith('preview') ? { items: [laptop(1)] } : { prompt: 'una laptop' };
      const res = await asWidget('POST', path, body, { 'Idempotency-Key': 'a b' });
      await expectError(res, 400, 'invalid_idempotency_key');
    }
  });

  it('matches coupon codes in any case, and refuses a second code differing only in case', async () => {
    const { data } = (await (
      await asWidget('POST', '/api/v1/elements/preview', { items: [laptop(1)], cupon: 'Promo500' })
    ).json()) as Json;
    expect(data.cupon).toEqual({ code: 'PROMO500', valid: true, reason: null });
    await expect(
      t.db.query(
        `INSERT INTO coupons (org_id, mode, code, tipo, valor) VALUES ($1, 'test', 'promo500', 'monto', 1)`,
        [t.seed.org.id],
      ),
    ).rejects.toMatchObject({ code: '23505' });
  });

  it('explains an invalid coupon and still prices the basket', async () => {
    const { data } = (await (
      await asWidget('POST', '/api/v1/elements/preview', { items: [laptop()], cupon: 'EXPIRADO' })
    ).json()) as Json;
    expect(data).toMatchObject({
      descuento: 0,
      total: 28420,
      cupon: { code: 'EXPIRADO', valid: false, reason: 'expired' },
    });
  });

  it('converts catalog prices into another currency of the business', async () => {
    const { data } = (await (
      await asWidget('POST', '/api/v1/elements/preview', {
        items: [{ ...laptop(), precio_unitario: 1324.32 }],
        base_currency: 'USD',
      })
    ).json()) as Json;
    expect(data).toMatchObject({ moneda: 'USD', subtotal: 1324.32 });
  });

  it('fails closed with 503 fx_unavailable without the exchange rate, writing nothing', async () => {
    const orgId = t.seed.org.id;
    const withoutRate = async (fn: () => Promise<void>) => {
      await t.db.query(`UPDATE orgs SET widget = widget #- '{fx_rates,USD}' WHERE id = $1`, [orgId]);
      t.deps.keys.invalidate(`org:${orgId}`);
      try {
        await fn();
      } finally {
        await t.db.query(
          `UPDATE orgs SET widget = jsonb_set(widget, '{fx_rates,USD}', '18.5') WHERE id = $1`,
          [orgId],
        );
        t.deps.keys.invalidate(`org:${orgId}`);
      }
    };
    const inDollars = { items: [{ ...laptop(), precio_unitario: 1324.32 }], base_currency: 'USD' };
    const quotes = await count('quotes');
    await withoutRate(async () => {
      await expectError(await asWidget('POST', '/api/v1/elements/preview', inDollars), 503, 'fx_unavailable');
      await expectError(
        await asWidget('POST', '/api/v1/cotizaciones', {
          ...inDollars,
          cliente: { empresa: 'Sin tipo SA', email: 'sintipo@cliente.example' },
        }),
        503,
        'fx_unavailable',
      );
    });
    expect(await count('quotes')).toBe(quotes);
    // With the rate back, the same request prices as before.
    expect((await asWidget('POST', '/api/v1/elements/preview', inDollars)).status).toBe(200);
  });

  it('limits failed coupon attempts per IP so codes cannot be enumerated', async () => {
    const ip = { 'x-forwarded-for': '203.0.113.99' };
    for (let i = 0; i < 10; i++) {
      const res = await asWidget(
        'POST',
        '/api/v1/elements/preview',
        { items: [laptop()], cupon: `GUESS${i}` },
        ip,
      );
      expect(res.status).toBe(200);
    }
    const blocked = await asWidget(
      'POST',
      '/api/v1/elements/preview',
      { items: [laptop()], cupon: 'BIENVENIDA10' },
      ip,
    );
    await expectError(blocked, 429, 'rate_limited');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    await expectError(
      await asWidget(
        'POST',
        '/api/v1/cotizaciones',
        { items: [laptop()], cliente: { empresa: 'X', email: 'x@cliente.example' }, cupon: 'GUESS' },
        ip,
      ),
      429,
      'rate_limited',
    );
    // Another address is not affected.
    expect(
      (
        await asWidget(
          'POST',
          '/api/v1/elements/preview',
          { items: [laptop()], cupon: 'BIENVENIDA10' },
          { 'x-forwarded-for': '203.0.113.100' },
        )
      ).status,
    ).toBe(200);
  });

  it.each([
    ['previews', '/api/v1/elements/preview', PUBLISHABLE_LIMITS.preview.limit, {}],
    [
      'quote creations',
      '/api/v1/cotizaciones',
      PUBLISHABLE_LIMITS.create.limit,
      { cliente: { empresa: 'Visitante SA', email: 'visitante@cliente.example' } },
    ],
  ])(
    'limits %s per visitor address (%s: %i a minute), then 429 writing nothing',
    async (_what, path, limit, extra) => {
      const ip = { 'x-forwarded-for': `203.0.113.${limit}` };
      const body = { items: [laptop()], cupon: 'BIENVENIDA10', ...extra };
      // Inside one minute window, so the count cannot start afresh halfway.
      t.setNow(new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 60_000));
      try {
        for (let i = 0; i < limit; i++) expect((await asWidget('POST', path, body, ip)).status).toBe(200);
        const [quotes, events, coupon] = [await count('quotes'), await count('events'), await couponUses()];
        const over = await asWidget('POST', path, body, ip);
        const error = await expectError(over, 429, 'rate_limited');
        expect(error.limit).toBe(limit);
        expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(over.headers.get('access-control-allow-origin')).toBe(ORIGIN);
        expect([await count('quotes'), await count('events'), await couponUses()]).toEqual([
          quotes,
          events,
          coupon,
        ]);
        // Another visitor is not affected.
        const other = await asWidget('POST', path, body, { 'x-forwarded-for': `203.0.114.${limit}` });
        expect(other.status).toBe(200);
      } finally {
        t.setNow(undefined);
      }
    },
  );

  it('counts failed coupon codes for their whole ten-minute window, housekeeping included', async () => {
    const ip = { 'x-forwarded-for': '203.0.113.77' };
    const start = new Date(Math.ceil(Date.now() / 600_000) * 600_000 + 600_000);
    const preview = (cupon: string) =>
      asWidget('POST', '/api/v1/elements/preview', { items: [laptop()], cupon }, ip);
    try {
      t.setNow(start);
      for (let i = 0; i < 10; i++) expect((await preview(`WRONG${i}`)).status).toBe(200);
      // Six minutes on, a housekeeping round must not have forgotten them.
      const later = new Date(start.getTime() + 6 * 60_000);
      t.setNow(later);
      await runHousekeeping(t.db, createLogger('silent'), () => later);
      await expectError(await preview('BIENVENIDA10'), 429, 'rate_limited');
      // The next window starts afresh.
      t.setNow(new Date(start.getTime() + 10 * 60_000));
      expect((await preview('BIENVENIDA10')).status).toBe(200);
    } finally {
      t.setNow(undefined);
    }
  });

  it('refuses more than 100 lines and bad bodies with a clear 400', async () => {
    const many = Array.from({ length: 101 }, () => laptop());
    const error = await expectError(
      await asWidget('POST', '/api/v1/elements/preview', { items: many }),
      400,
      'invalid_request',
    );
    expect(error.error).toContain('items');
    await expectError(
      await asWidget('POST', '/api/v1/elements/preview', { items: [laptop()], cliente: { empresa: 'x' } }),
      400,
      'invalid_request',
    );
  });
});
