import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../services/api-keys.js';
import { createOrg } from '../services/orgs.js';
import { expectError } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';

let t: TestContext;
let sk: string;
beforeAll(async () => {
  t = await createTestContext();
  sk = t.seed.keys.sk_test_write;
});
afterAll(() => t.close());

type Json = Record<string, any>;
const propose = async (body: Json, key = sk) => {
  const res = await t.call('POST', '/api/v1/setup/plans', { key, body });
  return { res, body: (await res.clone().json()) as Json };
};
const count = async (sql: string, params: unknown[] = []) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params))[0]!.n;
const path = (url: string) => new URL(url).pathname;

/** Opens the review page like a browser: its form's CSRF value and the cookie that goes with it. */
async function openReview(url: string, lang = '') {
  const res = await t.app.request(`${path(url)}${lang}`);
  const page = await res.text();
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
  return { res, page, cookie, csrf };
}
async function decide(url: string, decision: string) {
  const { cookie, csrf } = await openReview(url);
  const res = await t.app.request(path(url), {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, decision }).toString(),
  });
  return { res, page: await res.text() };
}

const existingSku = 'LAP-14';
const fullPlan = () => ({
  resumen: 'Catálogo de impresión y un cupón de bienvenida',
  productos: [
    {
      sku: `TAR-${Date.now()}`,
      nombre: 'Tarjetas de presentación',
      unidad: 'paquete',
      precio_lista: 450,
      moneda: 'MXN',
      aliases: ['tarjetas'],
    },
    { sku: existingSku, nombre: 'Laptop 14" (2026)', unidad: 'pieza', precio_lista: 25900, moneda: 'MXN' },
  ],
  cupones: [{ code: `IMPRIME${Date.now() % 100000}`, tipo: 'porcentaje', valor: 15 }],
  workflows: [
    {
      nombre: `seguimiento-${Date.now()}`,
      objeto: 'cotizacion',
      pasos: [{ tipo: 'create_task', titulo: 'Llamar por {folio}', dias: 1 }],
    },
  ],
  elements: { color: '#7a1f5c', features: { custom_items: true } },
});

describe('POST /setup/plans', () => {
  it('validates the whole proposal and answers the review URL, expiry and a summary of changes', async () => {
    const { res, body } = await propose(fullPlan());
    expect(res.status).toBe(200);
    expect(body.data).toMatchObject({
      object: 'setup_plan',
      status: 'pending_review',
      review_url: expect.stringMatching(/^http:\/\/.+\/setup\/review\/[0-9A-Za-z]{40}$/),
      cambios: {
        productos: { crear: 1, actualizar: 1 },
        cupones: { crear: 1, actualizar: 0 },
        workflows: { crear: 1 },
        elements: true,
      },
      decided_at: null,
    });
    const days = (Date.parse(body.data.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    const got = await t.call('GET', `/api/v1/setup/plans/${body.data.id}`, { key: t.seed.keys.sk_test_read });
    expect(((await got.json()) as Json).data).toMatchObject({ id: body.data.id, status: 'pending_review' });
  });

  it.each([
    [{}, 'at least one change'],
    [{ elements: {} }, 'at least one change'],
    [{ elements: { features: {} } }, 'at least one change'],
    [
      { productos: [{ sku: 'X', nombre: 'X', unidad: 'u', precio_lista: -1, moneda: 'MXN' }] },
      'precio_lista',
    ],
    [
      { productos: [{ sku: 'X', nombre: 'X', unidad: 'u', precio_lista: 1, moneda: 'JPY' }] },
      'productos[0].moneda',
    ],
    [{ cupones: [{ code: 'A1', tipo: 'monto', valor: 100 }] }, 'moneda'],
    [{ cupones: [{ code: 'A1', tipo: 'porcentaje', valor: 150 }] }, 'valor'],
    // An amount with more decimals than its currency has would be rounded when applied.
    [
      { cupones: [{ code: 'MXN1', tipo: 'monto', valor: 0.015, moneda: 'MXN' }] },
      'cupones[0].valor: at most 2 decimals in MXN',
    ],
    [
      {
        cupones: [
          { code: 'MEDIO', tipo: 'porcentaje', valor: 12.5 },
          { code: 'USD1', tipo: 'monto', valor: 10.001, moneda: 'USD' },
        ],
      },
      'cupones[1].valor: at most 2 decimals in USD',
    ],
    // An update of a coupon that exists is held to it too.
    [
      { cupones: [{ code: 'promo500', tipo: 'monto', valor: 499.995, moneda: 'MXN' }] },
      'cupones[0].valor: at most 2 decimals in MXN',
    ],
    [{ workflows: [{ nombre: 'x', objeto: 'factura', pasos: [{ tipo: 'resend' }] }] }, 'pasos'],
    // A status its records never have (or none at all) would refuse every record it is run on.
    [
      {
        workflows: [
          { nombre: 'x', objeto: 'cotizacion', estados: ['sent', 'paid_nope'], pasos: [{ tipo: 'resend' }] },
        ],
      },
      'workflows[0].estados: must name statuses of the workflow',
    ],
    [
      {
        workflows: [
          { nombre: 'x', objeto: 'factura', estados: ['viewed'], pasos: [{ tipo: 'send_reminder' }] },
        ],
      },
      'workflows[0].estados',
    ],
    [
      { workflows: [{ nombre: 'x', objeto: 'factura', estados: [], pasos: [{ tipo: 'send_reminder' }] }] },
      'workflows[0].estados: must name at least 1 status',
    ],
    [
      { workflows: [{ nombre: 'seguimiento', objeto: 'cotizacion', pasos: [{ tipo: 'resend' }] }] },
      'already exists',
    ],
    [{ elements: { origins: ['ftp://shop'] } }, 'elements.origins[0]'],
    // A wildcard over a whole top-level domain would let every site there use the keys.
    [
      { elements: { origins: ['https://shop.example', 'https://*.com'] } },
      'elements.origins[1]: origin "https://*.com" is refused: a wildcard covers the subdomains of one site',
    ],
    [
      { elements: { origins: ['http://*.shop.example'] } },
      'elements.origins[0]: origin "http://*.shop.example"',
    ],
    [{ elements: { color: 'red' } }, 'color'],
    [
      {
        productos: [
          { sku: 'A', nombre: 'A', unidad: 'u', precio_lista: 1, moneda: 'MXN' },
          { sku: 'a', nombre: 'B', unidad: 'u', precio_lista: 1, moneda: 'MXN' },
        ],
      },
      'twice',
    ],
  ])('refuses %j naming what is wrong, storing nothing', async (body, message) => {
    const before = await count('setup_plans');
    const { res, body: error } = await propose(body);
    await expectError(res, 400, 'invalid_request');
    expect(error.error).toContain(message);
    expect(await count('setup_plans')).toBe(before);
  });

  it('is for secret write keys only', async () => {
    await expectError((await propose(fullPlan(), t.seed.keys.sk_test_read)).res, 403, 'insufficient_scope');
    const { key } = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'restricted',
      mode: 'test',
      scope: 'write',
      permissions: { setup: 'write' },
    });
    await expectError((await propose(fullPlan(), key)).res, 403, 'insufficient_scope');
  });
});

describe('the review page', () => {
  it('shows every change as before and after, localized, under the strict CSP, with no script', async () => {
    const { body } = await propose(fullPlan());
    const { res, page, cookie, csrf } = await openReview(body.data.review_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page).not.toMatch(/<script/i);
    expect(page).toContain('Revisar cambios propuestos');
    expect(page).toContain('Laptop 14&quot; (2026)');
    // Fields by their names and values as the merchant reads them: money, rates, yes and no.
    expect(page).toMatch(/<th scope="row">Precio de lista<\/th><td>[^<]*<\/td><td>\$25,900\.00<\/td>/);
    expect(page).not.toContain('precio_lista');
    expect(page).toMatch(/Antes.*Después/s);
    expect(cookie).toMatch(/^svc_review_csrf=/);
    expect(csrf.length).toBeGreaterThan(20);
    expect(res.headers.get('set-cookie')).toMatch(/SameSite=Strict/i);
    const english = await openReview(body.data.review_url, '?lang=en');
    expect(english.page).toContain('Review proposed changes');
    expect(english.page).toMatch(/<th scope="row">List price<\/th><td>[^<]*<\/td><td>MX\$25,900\.00<\/td>/);
    // Its expiry names the time zone it is given in.
    expect(page).toMatch(/\d{1,2}:\d{2} UTC/);
  });

  it("shows as the origins' before every origin the mode's publishable keys allow, since all take the plan's", async () => {
    const other = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'publishable',
      mode: 'test',
      scope: 'write',
      origins: ['https://tienda.example'],
    });
    try {
      const { body } = await propose({ elements: { origins: ['https://nueva.example'] } });
      const { page } = await openReview(body.data.review_url);
      const row = /<th scope="row">Sitios permitidos<\/th><td>(.*?)<\/td><td>(.*?)<\/td>/.exec(page);
      expect(row?.[1]).toContain('https://tienda.example');
      for (const origin of t.seed.publishable_origins) expect(row?.[1]).toContain(origin);
      expect(row?.[2]).toBe('https://nueva.example');
    } finally {
      await t.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [other.record.id]);
    }
  });

  it('refuses a decision without the matching CSRF token and applies nothing', async () => {
    const { body } = await propose(fullPlan());
    const { csrf } = await openReview(body.data.review_url);
    const res = await t.app.request(path(body.data.review_url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, decision: 'approve' }).toString(),
    });
    expect(res.status).toBe(403);
    const status = (
      (await (await t.call('GET', `/api/v1/setup/plans/${body.data.id}`, { key: sk })).json()) as Json
    ).data.status;
    expect(status).toBe('pending_review');
  });

  it('applies everything in one transaction on approval, with the events of the changes', async () => {
    const [laptopBefore] = await t.db.query<{ nombre: string }>(
      `SELECT nombre FROM products WHERE org_id = $1 AND mode = 'test' AND sku = $2`,
      [t.seed.org.id, existingSku],
    );
    const plan = fullPlan();
    const { body } = await propose(plan);
    const { res, page } = await decide(body.data.review_url, 'approve');
    expect(res.status).toBe(200);
    expect(page).toContain('Los cambios se aplicaron');
    const scope = [t.seed.org.id];
    expect(
      await count(
        `products WHERE org_id = $1 AND mode = 'test' AND sku = '${plan.productos[0]!.sku}'`,
        scope,
      ),
    ).toBe(1);
    const [laptop] = await t.db.query<{ nombre: string; precio_lista: number }>(
      `SELECT nombre, precio_lista FROM products WHERE org_id = $1 AND mode = 'test' AND sku = $2`,
      [t.seed.org.id, existingSku],
    );
    expect(laptop).toMatchObject({ nombre: 'Laptop 14" (2026)', precio_lista: 25900 });
    expect(await count(`coupons WHERE org_id = $1 AND code = '${plan.cupones[0]!.code}'`, scope)).toBe(1);
    expect(
      await count(`workflows WHERE org_id = $1 AND nombre = '${plan.workflows[0]!.nombre}'`, scope),
    ).toBe(1);
    // Approved in test mode, the colour and features are test mode's: the live widget keeps its own.
    const widget = async (key: string) =>
      (
        (await (
          await t.call('GET', '/api/v1/elements/config', {
            key,
            headers: { origin: t.seed.publishable_origins[0]! },
          })
        ).json()) as Json
      ).data;
    expect(await widget(t.seed.keys.pk_test)).toMatchObject({
      org: { color: '#7a1f5c' },
      features: { custom_items: true },
    });
    expect((await widget(t.seed.keys.pk_live)).org.color).not.toBe('#7a1f5c');
    const [org] = await t.db.query<{ brand_color: string | null; test_settings: Json }>(
      'SELECT brand_color, test_settings FROM orgs WHERE id = $1',
      scope,
    );
    expect(org!.brand_color).not.toBe('#7a1f5c');
    expect(org!.test_settings).toEqual({ brand_color: '#7a1f5c', widget: { custom_items: true } });
    const events = (
      (await (await t.call('GET', '/api/v1/events?limit=5', { key: sk })).json()) as Json
    ).data.map((e: Json) => e.type);
    expect(events).toEqual(expect.arrayContaining(['product.created', 'product.updated']));
    // The client's page of a test quote wears it; a live quote's does not.
    const pageOf = async (key: string) => {
      const created = await t.call('POST', '/api/v1/cotizaciones', {
        key,
        body: {
          cliente: { empresa: 'Marca SA' },
          items: [{ descripcion: 'x', cantidad: 1, precio_unitario: 10 }],
          send: true,
        },
      });
      const link = ((await created.json()) as Json).data.link_publico as string;
      return (await t.call('GET', new URL(link).pathname)).text();
    };
    expect(await pageOf(sk)).toContain('brand.css?c=7a1f5c');
    expect(await pageOf(t.seed.keys.sk_live_write)).not.toContain('brand.css?c=7a1f5c');
    const status = (
      (await (await t.call('GET', `/api/v1/setup/plans/${body.data.id}`, { key: sk })).json()) as Json
    ).data;
    expect(status).toMatchObject({ status: 'applied', decided_at: expect.any(String) });
    // Decided once: a second approval changes nothing.
    const again = await openReview(body.data.review_url);
    expect(again.page).toContain('Los cambios se aplicaron');
    expect(again.page).not.toContain('name="csrf"');
    // The page still shows what each change was: the laptop's name before it, then after.
    const row = /<th[^>]*>Nombre<\/th><td>([^<]*)<\/td><td>([^<]*)<\/td>/.exec(
      again.page.slice(again.page.indexOf(existingSku)),
    );
    expect(row?.slice(1)).toEqual([laptopBefore!.nombre.replaceAll('"', '&quot;'), 'Laptop 14&quot; (2026)']);
  });

  it('becomes conflict, applying nothing, when what it would change was edited since', async () => {
    const plan = fullPlan();
    const { body } = await propose(plan);
    await t.db.query(
      `UPDATE products SET precio_lista = precio_lista + 1 WHERE org_id = $1 AND mode = 'test' AND sku = $2`,
      [t.seed.org.id, existingSku],
    );
    const { res, page } = await decide(body.data.review_url, 'approve');
    expect(res.status).toBe(409);
    expect(page).toContain('no se aplicó nada');
    expect(await count(`products WHERE sku = '${plan.productos[0]!.sku}'`)).toBe(0);
    expect(await count(`coupons WHERE code = '${plan.cupones[0]!.code}'`)).toBe(0);
    const status = (
      (await (await t.call('GET', `/api/v1/setup/plans/${body.data.id}`, { key: sk })).json()) as Json
    ).data.status;
    expect(status).toBe('conflict');
  });

  it('is not in conflict because visitors used a coupon it updates: only an edit of the coupon is', async () => {
    const { body } = await propose({
      cupones: [{ code: 'PROMO500', tipo: 'monto', valor: 800, moneda: 'MXN' }],
    });
    const used = await t.call('POST', '/api/v1/cotizaciones', {
      key: sk,
      body: {
        cliente: { empresa: 'Usa el cupón' },
        items: [{ descripcion: 'x', cantidad: 1, precio_unitario: 2000 }],
        cupon: 'PROMO500',
      },
    });
    expect(used.status).toBe(200);
    const { res } = await decide(body.data.review_url, 'approve');
    expect(res.status).toBe(200);
    const [coupon] = await t.db.query<{ valor: number }>(
      `SELECT valor::float8 AS valor FROM coupons WHERE org_id = $1 AND mode = 'test' AND code = 'PROMO500'`,
      [t.seed.org.id],
    );
    expect(coupon!.valor).toBe(800);
    // An edit of the coupon since is a conflict.
    const second = await propose({
      cupones: [{ code: 'PROMO500', tipo: 'monto', valor: 500, moneda: 'MXN' }],
    });
    await t.db.query(
      `UPDATE coupons SET max_uses = 999 WHERE org_id = $1 AND mode = 'test' AND code = 'PROMO500'`,
      [t.seed.org.id],
    );
    expect((await decide(second.body.data.review_url, 'approve')).res.status).toBe(409);
  });

  it('is in conflict when a publishable key was made since, which would take its origins unseen', async () => {
    const { body } = await propose({ elements: { origins: ['https://planeada.example'] } });
    const made = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'publishable',
      mode: 'test',
      scope: 'write',
      origins: ['https://nueva-llave.example'],
    });
    try {
      const { res } = await decide(body.data.review_url, 'approve');
      expect(res.status).toBe(409);
      const [key] = await t.db.query<{ allowed_origins: string[] }>(
        'SELECT allowed_origins FROM api_keys WHERE id = $1',
        [made.record.id],
      );
      expect(key!.allowed_origins).toEqual(['https://nueva-llave.example']);
    } finally {
      await t.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [made.record.id]);
    }
  });

  it('shows what each workflow step would do, and counts elements as a change only when it names one', async () => {
    const { body } = await propose({
      elements: {},
      workflows: [
        {
          nombre: `comentario-${Date.now()}`,
          objeto: 'cotizacion',
          estados: ['sent'],
          pasos: [{ tipo: 'add_comment', mensaje: 'Gracias por <su> interés' }, { tipo: 'send_reminder' }],
        },
      ],
    });
    expect(body.data.cambios.elements).toBe(false);
    const { page } = await openReview(body.data.review_url);
    expect(page).toContain(
      'add_comment (mensaje: &quot;Gracias por &lt;su&gt; interés&quot;) → send_reminder',
    );
    expect(page).toMatch(/<th scope="row">Estados<\/th><td>[^<]*<\/td><td>sent<\/td>/);
    expect(page).toContain('<th scope="row">Activo</th><td>—</td><td>Sí</td>');
    expect(page).not.toContain('<th scope="row">Sitios permitidos</th>');
  });

  it('keeps to the plan’s product limit: 402 when proposed over it, conflict when filled since', async () => {
    const org = await createOrg(t.db, { nombre: 'Catálogo Gratis', plan: 'free' });
    const key = (await createApiKey(t.db, { orgId: org.id, kind: 'secret', mode: 'test', scope: 'write' }))
      .key;
    const addProducts = (n: number, prefix: string) =>
      t.db.query(
        `INSERT INTO products (org_id, mode, sku, nombre, unidad, precio_lista, moneda)
         SELECT $1, 'test', $2 || g, 'P' || g, 'pieza', 10, 'MXN' FROM generate_series(1, $3::int) g`,
        [org.id, prefix, n],
      );
    await addProducts(48, 'OLD-');
    const product = (sku: string) => ({ sku, nombre: sku, unidad: 'pieza', precio_lista: 1, moneda: 'MXN' });
    const over = await propose({ productos: [product('N-1'), product('N-2'), product('N-3')] }, key);
    expect(await expectError(over.res, 402, 'plan_limit_reached')).toMatchObject({
      resource: 'products',
      limit: 50,
    });
    expect(await count('setup_plans WHERE org_id = $1', [org.id])).toBe(0);
    // Updating a product it has takes no room; two new ones fit exactly.
    const fits = await propose({ productos: [product('OLD-1'), product('N-1'), product('N-2')] }, key);
    expect(fits.res.status).toBe(200);
    await addProducts(1, 'LATER-');
    const { res } = await decide(fits.body.data.review_url, 'approve');
    expect(res.status).toBe(409);
    expect(await count(`products WHERE org_id = $1`, [org.id])).toBe(49);
  });

  it('answers a decision that cannot be read as a form with 400, and a coupon date that does not exist or a use count past 2^31−1 with 400 when proposed', async () => {
    const { body } = await propose(fullPlan());
    const res = await t.app.request(path(body.data.review_url), {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=zz' },
      body: 'garbage',
    });
    expect(res.status).toBe(400);
    for (const coupon of [
      { expires_at: '2026-02-30T00:00:00Z' },
      { expires_at: '0000-01-01T00:00:00Z' },
      { max_uses: 2 ** 31 },
    ]) {
      const bad = await propose({ cupones: [{ code: 'FECHA1', tipo: 'porcentaje', valor: 5, ...coupon }] });
      await expectError(bad.res, 400, 'invalid_request');
    }
  });

  it('decides only on approve or reject: any other decision is 400 and the plan stays pending', async () => {
    const { body } = await propose(fullPlan());
    for (const decision of ['', 'maybe']) {
      const { res } = await decide(body.data.review_url, decision);
      expect(res.status).toBe(400);
    }
    const plan = await t.call('GET', `/api/v1/setup/plans/${body.data.id}`, { key: sk });
    expect(((await plan.json()) as Json).data.status).toBe('pending_review');
  });

  it('keeps what an update does not name: a product’s tax rate, a coupon’s currency, use limit and expiry', async () => {
    const { org } = t.seed;
    await t.db.query(
      `INSERT INTO products (org_id, mode, sku, nombre, unidad, precio_lista, moneda, tax_rate)
       VALUES ($1, 'test', 'KEEP-1', 'Con IVA cero', 'pieza', 10, 'MXN', 0)`,
      [org.id],
    );
    await t.db.query(
      `INSERT INTO coupons (org_id, mode, code, tipo, valor, moneda, max_uses, expires_at)
       VALUES ($1, 'test', 'KEEP50', 'monto', 50, 'MXN', 7, '2099-01-01T00:00:00Z')`,
      [org.id],
    );
    const { body } = await propose({
      productos: [
        { sku: 'KEEP-1', nombre: 'Con IVA cero (2027)', unidad: 'pieza', precio_lista: 12, moneda: 'MXN' },
      ],
      // No moneda: the amount coupon's currency stays MXN.
      cupones: [{ code: 'KEEP50', tipo: 'monto', valor: 60 }],
    });
    expect(body.data?.cambios?.cupones).toEqual({ crear: 0, actualizar: 1 });
    const review = await openReview(body.data.review_url);
    expect(review.page).toContain('<tr><th scope="row">Moneda</th><td>MXN</td><td>MXN</td></tr>');
    // The review shows them unchanged.
    expect(review.page).toContain('<tr><th scope="row">Tasa de impuesto</th><td>0%</td><td>0%</td></tr>');
    expect(review.page).toContain('<tr><th scope="row">Usos máximos</th><td>7</td><td>7</td></tr>');
    expect(review.page).toContain('<th scope="row">Valor</th><td>$50.00</td><td>$60.00</td>');
    expect(review.page).toContain(
      '<tr><th scope="row">Vence</th><td>1 de enero de 2099</td><td>1 de enero de 2099</td></tr>',
    );
    expect((await decide(body.data.review_url, 'approve')).res.status).toBe(200);
    const [product] = await t.db.query<{ tax_rate: number; precio_lista: number }>(
      `SELECT tax_rate, precio_lista FROM products WHERE org_id = $1 AND sku = 'KEEP-1'`,
      [org.id],
    );
    expect(product).toEqual({ tax_rate: 0, precio_lista: 12 });
    const [coupon] = await t.db.query<Json>(
      `SELECT valor, moneda, max_uses, expires_at IS NOT NULL AS expires FROM coupons WHERE org_id = $1 AND code = 'KEEP50'`,
      [org.id],
    );
    expect(coupon).toEqual({ valor: 60, moneda: 'MXN', max_uses: 7, expires: true });
  });

  it('refuses a new amount coupon without a currency, or a percentage one turned into an amount without one', async () => {
    const plans = await count('setup_plans');
    for (const cupon of [
      { code: `NUEVO${Date.now() % 100000}`, tipo: 'monto', valor: 100 },
      { code: 'BIENVENIDA10', tipo: 'monto', valor: 100 },
      { code: 'PROMO500', tipo: 'monto', valor: 100, moneda: null },
    ]) {
      const { res } = await propose({ cupones: [cupon] });
      expect((await expectError(res, 400, 'invalid_request')).error).toBe(
        'cupones[0].moneda: is required for an amount coupon',
      );
    }
    // The kept currency's decimals still apply to the amount.
    const { res } = await propose({ cupones: [{ code: 'PROMO500', tipo: 'monto', valor: 1.234 }] });
    expect((await expectError(res, 400, 'invalid_request')).error).toMatch(/^cupones\[0\]\.valor/);
    expect(await count('setup_plans')).toBe(plans);
  });

  it('refuses, when proposed, a max_uses below the uses a coupon already has', async () => {
    const { org } = t.seed;
    await t.db.query(
      `INSERT INTO coupons (org_id, mode, code, tipo, valor, max_uses, uses) VALUES ($1, 'test', 'USADO3', 'porcentaje', 5, 10, 3)`,
      [org.id],
    );
    const coupon = { code: 'usado3', tipo: 'porcentaje', valor: 5 };
    const bad = await propose({ cupones: [{ ...coupon, max_uses: 2 }] });
    expect((await expectError(bad.res, 400, 'invalid_request')).error).toContain('cupones[0].max_uses');
    expect(await count(`setup_plans WHERE org_id = $1 AND propuesta::text LIKE '%usado3%'`, [org.id])).toBe(
      0,
    );
    const fits = await propose({ cupones: [{ ...coupon, max_uses: 3 }] });
    expect(fits.res.status).toBe(200);
    expect((await decide(fits.body.data.review_url, 'approve')).res.status).toBe(200);
    expect(await count(`coupons WHERE org_id = $1 AND code = 'USADO3' AND max_uses = 3`, [org.id])).toBe(1);
  });

  it('rejects, and expires after 7 days, applying nothing', async () => {
    const rejected = (await propose(fullPlan())).body.data;
    await decide(rejected.review_url, 'reject');
    expect(
      ((await (await t.call('GET', `/api/v1/setup/plans/${rejected.id}`, { key: sk })).json()) as Json).data
        .status,
    ).toBe('rejected');
    const plan = fullPlan();
    const old = (await propose(plan)).body.data;
    // The page opened while the plan was pending, its form sent after the plan expired.
    const opened = await openReview(old.review_url);
    t.setNow(new Date(Date.now() + 8 * 86_400_000));
    try {
      const expired = async () =>
        ((await (await t.call('GET', `/api/v1/setup/plans/${old.id}`, { key: sk })).json()) as Json).data;
      expect(await expired()).toMatchObject({ status: 'expired', decided_at: old.expires_at });
      const { page } = await openReview(old.review_url);
      expect(page).toContain('venció');
      expect(page).not.toContain('name="csrf"');
      const late = await t.app.request(path(old.review_url), {
        method: 'POST',
        headers: { cookie: opened.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf: opened.csrf, decision: 'approve' }).toString(),
      });
      expect(await late.text()).toContain('venció');
      // It expired on its date: the late approval records nothing, not even when it came.
      expect(await expired()).toMatchObject({ status: 'expired', decided_at: old.expires_at });
      expect(await count(`setup_plans WHERE id = $1 AND decided_at IS NULL`, [old.id])).toBe(1);
    } finally {
      t.setNow(undefined);
    }
    expect(await count(`products WHERE sku = '${plan.productos[0]!.sku}'`)).toBe(0);
  });
});
