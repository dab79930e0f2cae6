import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newClientRow } from '../repositories/clients.js';
import { findQuote, insertQuote } from '../repositories/quotes.js';
import { expectError } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { draftQuote } from '../testing/quote-fixtures.js';

let t: TestContext;
let sk: string;
let product: (sku: string) => string;
beforeAll(async () => {
  t = await createTestContext();
  sk = t.seed.keys.sk_test_write;
  const ids = new Map(t.seed.products.map((p) => [p.sku, p.id]));
  product = (sku) => ids.get(sku)!;
});
afterAll(() => t.close());

type Json = Record<string, any>;
const create = async (body: Json, key = sk, headers: Record<string, string> = {}) => {
  const res = await t.call('POST', '/api/v1/cotizaciones', { key, body, headers });
  return { res, body: (await res.clone().json()) as Json };
};
const laptop = (cantidad = 1) => ({
  descripcion: 'Laptop 14"',
  cantidad,
  precio_unitario: 24500,
  producto_id: product('LAP-14'),
});
const cliente = { empresa: 'Acme SA de CV', email: 'compras@acme.example' };
const count = async (table: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n;

describe('SAT unit keys of lines (Mexico)', () => {
  it("deduces a catalog line's unit key from its product's unit when neither names one", async () => {
    const product = async (sku: string, unidad: string, extra: Json = {}) => {
      const res = await t.call('POST', '/api/v1/productos', {
        key: sk,
        body: { sku, nombre: sku, unidad, precio_lista: 100, ...extra },
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as Json).data.id as string;
    };
    const hours = await product('UNIT-HORAS', 'horas');
    const boxes = await product('UNIT-CAJA', 'caja', { clave_unidad_sat: 'H87' });
    const tank = await product('UNIT-TANQUE', 'tanque');
    const line = (producto_id: string, extra: Json = {}) => ({
      descripcion: 'x',
      cantidad: 1,
      precio_unitario: 100,
      producto_id,
      ...extra,
    });
    const { res, body } = await create({
      cliente,
      items: [line(hours), line(boxes), line(tank), line(hours, { clave_unidad_sat: 'E48' })],
    });
    expect(res.status).toBe(200);
    const detail = (
      (await (await t.call('GET', `/api/v1/cotizaciones/${body.data.id}`, { key: sk })).json()) as Json
    ).data;
    // Deduced from "horas"; the product's own key wins; an unknown unit is H87; the line's wins.
    expect(detail.items.map((item: Json) => item.clave_unidad_sat)).toEqual(['HUR', 'H87', 'H87', 'E48']);
  });
});

describe('POST /cotizaciones', () => {
  it('creates a draft with folio, token, public link and exact totals', async () => {
    const { res, body } = await create({
      items: [{ descripcion: 'Servicio', cantidad: 2, precio_unitario: 1000 }],
      cliente,
      cupon: 'BIENVENIDA10',
    });
    expect(res.status).toBe(200);
    const data = body.data;
    expect(data).toMatchObject({
      folio: expect.stringMatching(/^COT-\d{6}$/),
      needs_approval: false,
      motivo: null,
      status: 'draft',
      moneda: 'MXN',
      total: 2088,
    });
    expect(data.token).toMatch(/^[0-9A-Za-z]{40}$/);
    expect(data.link_publico).toBe(`http://svc.test/q/${data.token}`);
    const detail = (await (
      await t.call('GET', `/api/v1/cotizaciones/${data.id}`, { key: sk })
    ).json()) as Json;
    expect(detail.data).toMatchObject({
      subtotal: 2000,
      descuento: 200,
      impuestos: 288,
      total: 2088,
      cupon: 'BIENVENIDA10',
      vigencia: null,
      language: null,
    });
    expect(detail.data.items[0]).toMatchObject({
      descripcion: 'Servicio',
      cantidad: 2,
      precio_unitario: 1000,
      importe: 2000,
      tax_rate: 0.16,
    });
  });

  it('numbers folios per organization and mode', async () => {
    const folioOf = async (key: string) =>
      (await create({ items: [{ descripcion: 'x', cantidad: 1, precio_unitario: 1 }], cliente }, key)).body
        .data.folio as string;
    const number = (folio: string) => Number(folio.slice(4));
    const a = await folioOf(sk);
    const b = await folioOf(sk);
    expect(number(b)).toBe(number(a) + 1);
    expect(number(b)).toBeGreaterThan(1);
    // Every other organization and mode starts its own sequence, whatever this one is at ...
    const others = t.seed.free_org.keys;
    expect(await folioOf(others.sk_test_write)).toBe('COT-000001');
    expect(await folioOf(others.sk_live_write)).toBe('COT-000001');
    expect(await folioOf(t.seed.keys.sk_live_write)).toBe('COT-000001');
    expect(await folioOf(others.sk_test_write)).toBe('COT-000002');
    // ... and this one goes on from where it was.
    expect(number(await folioOf(sk))).toBe(number(b) + 1);
  });

  it('finds the client by e-mail instead of creating it twice, and creates it the first time', async () => {
    const before = await count('clients');
    await create({
      items: [laptop()],
      cliente: { empresa: 'Nuevo Cliente', email: 'nuevo@cliente.example' },
    });
    await create({
      items: [laptop()],
      cliente: { empresa: 'Nuevo Cliente SA', email: 'NUEVO@cliente.example' },
    });
    expect(await count('clients')).toBe(before + 1);
  });

  it('refuses an unknown cliente_id with 400 invalid_client and writes nothing', async () => {
    const before = await count('quotes');
    await expectError(
      (await create({ items: [laptop()], cliente_id: '00000000-0000-4000-8000-000000000000' })).res,
      400,
      'invalid_client',
    );
    expect(await count('quotes')).toBe(before);
  });

  it('validates strictly: unknown fields at every level, ranges, codes', async () => {
    const before = await count('quotes');
    const cases: [Json, string][] = [
      [{ items: [], cliente }, 'items'],
      [{ items: [laptop()], cliente, extra: 1 }, 'extra'],
      [{ items: [{ ...laptop(), foo: 1 }], cliente }, 'items[0].foo'],
      [{ items: [laptop()], cliente: { ...cliente, foo: 1 } }, 'cliente.foo'],
      [
        { items: [laptop()], cliente: { ...cliente, fiscal: { country: 'MX', tax_id: 'X', foo: 1 } } },
        'cliente.fiscal.foo',
      ],
      [{ items: [laptop()], cliente, descuento: { tipo: 'porcentaje', valor: 10, foo: 1 } }, 'descuento.foo'],
      [{ items: [laptop()], cliente, descuento: { tipo: 'porcentaje', valor: 101 } }, 'descuento.valor'],
      [{ items: [{ ...laptop(), tax_rate: 1.5 }], cliente }, 'items[0].tax_rate'],
      [{ items: [{ descripcion: 'x', cantidad: 1e6, precio_unitario: 1e5 }], cliente }, 'items[0].cantidad'],
      [{ items: [{ ...laptop(), clave_sat: '123' }], cliente }, 'items[0].clave_sat'],
      [
        { items: [{ ...laptop(), tax_rate: 0.16, exemption_reason: 'E1' }], cliente },
        'items[0].exemption_reason',
      ],
      [
        { items: [{ ...laptop(), tax_rate: 0, exemption_reason: 'E9' }], cliente },
        'items[0].exemption_reason',
      ],
      [{ items: [laptop()], cliente, base_currency: 'XXQ' }, 'base_currency'],
      [
        { items: [laptop()], cliente: { ...cliente, fiscal: { country: 'ZZ', tax_id: 'X' } } },
        'cliente.fiscal.country',
      ],
      [{ items: [laptop()], cliente, terminos: 'net31' }, 'terminos'],
      [{ items: [{ ...laptop(), cantidad: -1 }], cliente }, 'items[0].cantidad'],
      [{ items: [laptop()] }, 'cliente'],
      [
        { items: [{ ...laptop(), producto_id: '00000000-0000-4000-8000-000000000000' }], cliente },
        'items[0].producto_id',
      ],
      [{ items: [laptop()], cliente, base_currency: 'EUR' }, 'base_currency'],
    ];
    for (const [body, field] of cases) {
      const { res, body: error } = await create(body);
      expect({ field, status: res.status, code: error.code }).toEqual({
        field,
        status: 400,
        code: 'invalid_request',
      });
      expect(error.error).toContain(field);
    }
    expect(await count('quotes')).toBe(before);
  });

  it('accepts a valid exemption on a zero-rate line and decimal quantities', async () => {
    const { res } = await create({
      items: [
        {
          descripcion: 'Servicio exento',
          cantidad: 1.5,
          precio_unitario: 100,
          tax_rate: 0,
          exemption_reason: 'E1',
          clave_sat: '81111811',
        },
      ],
      cliente,
    });
    expect(res.status).toBe(200);
  });

  it('holds a discount above the threshold for internal approval', async () => {
    const { body } = await create({
      items: [laptop()],
      cliente,
      descuento: { tipo: 'porcentaje', valor: 40 },
      send: true,
    });
    expect(body.data.needs_approval).toBe(true);
    expect(body.data.status).toBe('draft');
    expect(body.data.email).toEqual({ sent: false, skipped: 'needs_approval' });
    expect(body.data.motivo).toMatch(/40/);
    const events = (await (
      await t.call('GET', `/api/v1/events?object_id=${body.data.id}`, { key: sk })
    ).json()) as Json;
    expect(events.data.map((e: Json) => e.type)).toEqual(['quote.approval_requested', 'quote.created']);
    expect(events.data[0].data.motivo).toBe(body.data.motivo);
    await expectError(
      await t.call('POST', `/api/v1/cotizaciones/${body.data.id}`, { key: sk, body: { action: 'send' } }),
      409,
      'invalid_state',
    );
    const approval = async () =>
      ((await (await t.call('GET', `/api/v1/cotizaciones/${body.data.id}`, { key: sk })).json()) as Json)
        .data;
    expect(await approval()).toMatchObject({ needs_approval: true, approval_status: 'pending' });
    const decided = await t.call('POST', `/api/v1/cotizaciones/${body.data.id}`, {
      key: sk,
      body: { action: 'approve_discount' },
    });
    expect(decided.status).toBe(200);
    // No longer held: approved, as approval_status keeps.
    expect(await approval()).toMatchObject({ needs_approval: false, approval_status: 'approved' });
    const sent = await t.call('POST', `/api/v1/cotizaciones/${body.data.id}`, {
      key: sk,
      body: { action: 'send' },
    });
    expect(((await sent.json()) as Json).data.status).toBe('sent');
  });

  it('says by how much a discount passes the threshold, never as the threshold itself', async () => {
    const held = async (valor: number) =>
      (
        await create({
          items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 100 }],
          cliente,
          descuento: { tipo: 'monto', valor },
        })
      ).body.data;
    expect((await held(30.01)).motivo).toBe(
      'Descuento de 30.01 % por encima del 30 % permitido sin aprobación',
    );
    expect((await held(33.33)).motivo).toContain('de 33.33 %');
    expect((await held(30)).needs_approval).toBe(false);
  });

  it('refuses a resend whose new lines would put its discount above the threshold unapproved', async () => {
    const line = (cantidad: number, precio_unitario: number) => ({
      descripcion: 'Servicio',
      cantidad,
      precio_unitario,
    });
    const act = (id: string, body: Json) => t.call('POST', `/api/v1/cotizaciones/${id}`, { key: sk, body });
    // 500 off 2,000 is 25 %, under the demo's 30 %: sent without approval.
    const { body } = await create({
      items: [line(2, 1000)],
      cliente,
      descuento: { tipo: 'monto', valor: 500 },
    });
    expect(body.data.needs_approval).toBe(false);
    expect((await act(body.data.id, { action: 'send' })).status).toBe(200);
    // The same 500 off new lines of 500 would be 100 %.
    const refused = await expectError(
      await act(body.data.id, { action: 'resend', items: [line(1, 500)] }),
      409,
      'invalid_state',
    );
    expect(refused.error).toMatch(/100 %.*30 %/);
    const after = (await (
      await t.call('GET', `/api/v1/cotizaciones/${body.data.id}`, { key: sk })
    ).json()) as Json;
    expect(after.data).toMatchObject({ status: 'sent', subtotal: 2000, descuento: 500 });
    expect(after.data.items).toHaveLength(1);
    expect(after.data.items[0].cantidad).toBe(2);
    // Lines that keep it under the threshold are resent as before.
    expect((await act(body.data.id, { action: 'resend', items: [line(4, 1000)] })).status).toBe(200);

    // A discount approved internally may keep its share on new lines, not grow it.
    const held = await create({ items: [line(2, 1000)], cliente, descuento: { tipo: 'monto', valor: 800 } });
    expect(held.body.data.needs_approval).toBe(true);
    expect((await act(held.body.data.id, { action: 'approve_discount' })).status).toBe(200);
    expect((await act(held.body.data.id, { action: 'send' })).status).toBe(200);
    expect((await act(held.body.data.id, { action: 'resend', items: [line(3, 1000)] })).status).toBe(200);
    await expectError(
      await act(held.body.data.id, { action: 'resend', items: [line(1, 1000)] }),
      409,
      'invalid_state',
    );
  });

  it('sends on creation with send: true, keeping the e-mail in the outbox in test mode', async () => {
    const { body } = await create({ items: [laptop()], cliente, send: true }, sk, {
      'accept-language': 'pt-BR',
    });
    expect(body.data.status).toBe('sent');
    expect(body.data.email).toEqual({ sent: false, skipped: 'test_mode' });
    const emails = (await (await t.call('GET', '/api/v1/emails', { key: sk })).json()) as Json;
    const mail = emails.data.find((e: Json) => e.cotizacion_id === body.data.id);
    expect(mail).toMatchObject({ to: 'compras@acme.example', status: 'skipped', skipped: 'test_mode' });
    expect(mail.subject).toContain('Orçamento');
    expect(mail.body).toContain(body.data.link_publico);
    const noMail = await create({ items: [laptop()], cliente: { empresa: 'Sin Correo' }, send: true });
    expect(noMail.body.data.email).toEqual({ sent: false, skipped: 'no_client_email' });
  });

  it('keeps totals exact at the largest amounts it accepts', async () => {
    const line = { descripcion: 'Obra', cantidad: 1e5, precio_unitario: 99_999.99 };
    const { res, body } = await create({ items: Array.from({ length: 100 }, () => line), cliente });
    expect(res.status).toBe(200);
    const detail = (
      (await (await t.call('GET', `/api/v1/cotizaciones/${body.data.id}`, { key: sk })).json()) as Json
    ).data;
    expect(detail).toMatchObject({
      subtotal: 999_999_900_000,
      impuestos: 159_999_984_000,
      total: 1_159_999_884_000,
    });
  });

  it('takes any vigencia_dias the interface allows, on creation, on sending and on resend, dates kept within years 1–9999', async () => {
    const detail = async (id: string) =>
      ((await (await t.call('GET', `/api/v1/cotizaciones/${id}`, { key: sk })).json()) as Json).data;
    const cases: [number, string][] = [
      [Number.MAX_SAFE_INTEGER, '9999-12-31'],
      [2 ** 31, '9999-12-31'],
      [Number.MIN_SAFE_INTEGER, '0001-01-01'],
    ];
    for (const [days, vigencia] of cases) {
      const sent = await create({ items: [laptop()], cliente, send: true, vigencia_dias: days });
      expect(sent.res.status).toBe(200);
      expect(await detail(sent.body.data.id)).toMatchObject({ vigencia_dias: days, vigencia });
      const draft = await create({ items: [laptop()], cliente, vigencia_dias: days });
      expect(draft.res.status).toBe(200);
      const send = await t.call('POST', `/api/v1/cotizaciones/${draft.body.data.id}`, {
        key: sk,
        body: { action: 'send' },
      });
      expect(send.status).toBe(200);
      expect(await detail(draft.body.data.id)).toMatchObject({ vigencia_dias: days, vigencia });
    }
    const quote = await create({ items: [laptop()], cliente, send: true });
    const resend = await t.call('POST', `/api/v1/cotizaciones/${quote.body.data.id}`, {
      key: sk,
      body: { action: 'resend', vigencia_dias: Number.MAX_SAFE_INTEGER },
    });
    expect(resend.status).toBe(200);
    expect(await detail(quote.body.data.id)).toMatchObject({ vigencia: '9999-12-31' });
    for (const vigencia_dias of [Number.MAX_SAFE_INTEGER + 2, 1.5, '30']) {
      await expectError(
        (await create({ items: [laptop()], cliente, vigencia_dias })).res,
        400,
        'invalid_request',
      );
    }
  });

  it('says no_smtp for a live quote when no SMTP server is configured', async () => {
    const { body } = await create(
      { items: [{ descripcion: 'x', cantidad: 1, precio_unitario: 10 }], cliente, send: true },
      t.seed.keys.sk_live_write,
    );
    expect(body.data.email).toEqual({ sent: false, skipped: 'no_smtp' });
  });
});

describe('quote.created', () => {
  it('records the same summary as every other quote event, written with the quote itself', async () => {
    const { body } = await create({ items: [laptop()], cliente, cupon: 'BIENVENIDA10' });
    const events = (await (
      await t.call('GET', `/api/v1/events?type=quote.created&object_id=${body.data.id}`, { key: sk })
    ).json()) as Json;
    expect(events.data).toHaveLength(1);
    const client = (
      await t.db.query<{ id: string }>('SELECT cliente_id AS id FROM quotes WHERE id = $1', [body.data.id])
    )[0]!;
    expect(events.data[0].data).toEqual({
      id: body.data.id,
      folio: body.data.folio,
      status: 'draft',
      moneda: 'MXN',
      total: body.data.total,
      cliente: cliente.empresa,
      cliente_id: client.id,
    });
  });
});

describe('coupons on creation', () => {
  it('refuses invalid coupons with their reason and writes nothing', async () => {
    const before = await count('quotes');
    for (const [cupon, reason, extra] of [
      ['NOPE', 'not_found', {}],
      ['EXPIRADO', 'expired', {}],
      ['AGOTADO', 'exhausted', {}],
      ['INACTIVO', 'inactive', {}],
      ['USD50', 'currency_mismatch', {}],
    ] as const) {
      const { res, body } = await create({ items: [laptop()], cliente, cupon, ...extra });
      expect({ cupon, status: res.status, code: body.code, reason: body.reason }).toEqual({
        cupon,
        status: 400,
        code: 'invalid_request',
        reason,
      });
    }
    expect(await count('quotes')).toBe(before);
  });

  it('never uses a limited coupon more than max_uses times under concurrency', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, () => create({ items: [laptop()], cliente, cupon: 'PROMO500' })),
    );
    const ok = results.filter((r) => r.res.status === 200);
    expect(ok).toHaveLength(3);
    for (const r of results.filter((r) => r.res.status !== 200)) expect(r.body.reason).toBe('exhausted');
    const [coupon] = await t.db.query<{ uses: number }>(
      `SELECT uses FROM coupons WHERE code = 'PROMO500' AND mode = 'test' AND org_id = $1`,
      [t.seed.org.id],
    );
    expect(coupon?.uses).toBe(3);
  });

  it('writes nothing, folio included, when the coupon runs out between its check and the quote', async () => {
    // The race of the concurrency test made deterministic: the quote's statement is handed a coupon
    // whose last use another request has just taken.
    const [coupon] = await t.db.query<{ id: string }>(
      `SELECT id FROM coupons WHERE code = 'AGOTADO' AND mode = 'test' AND org_id = $1`,
      [t.seed.org.id],
    );
    const tables = ['quotes', 'quote_items', 'events', 'folio_counters', 'clients'];
    const counts = async () => Promise.all(tables.map(count));
    const folio = async () =>
      (
        await t.db.query<{ last: number }>('SELECT last FROM folio_counters WHERE org_id = $1', [
          t.seed.org.id,
        ])
      )
        .map((r) => r.last)
        .sort();
    const before = { counts: await counts(), folio: await folio() };
    const { body: first } = await create({ items: [laptop()], cliente });
    const [client] = await t.db.query<{ id: string }>('SELECT cliente_id AS id FROM quotes WHERE id = $1', [
      first.data.id,
    ]);
    const afterFirst = { counts: await counts(), folio: await folio() };
    // With a new client too: it is created by the same statement, so not at all here.
    const newClient = newClientRow(randomUUID(), { empresa: 'Nunca Creada SA' });
    const inserted = await t.db.transaction((tx) =>
      insertQuote(
        tx,
        draftQuote({
          org_id: t.seed.org.id,
          cliente_id: newClient.id,
          cliente_nombre: cliente.empresa,
          cupon: 'AGOTADO',
          coupon_id: coupon!.id,
          token: 'x'.repeat(40),
        }),
        [],
        { now: new Date(), eventData: {}, newClient: { row: newClient, eventData: {} } },
      ),
    );
    expect(inserted).toBeUndefined();
    expect(client).toBeDefined();
    expect({ counts: await counts(), folio: await folio() }).toEqual(afterFirst);
    expect(afterFirst.counts[0]).toBe(before.counts[0]! + 1);
    // The next quote takes the very next folio.
    const { body: next } = await create({ items: [laptop()], cliente });
    expect(Number(next.data.folio.slice(4))).toBe(Number(first.data.folio.slice(4)) + 1);
  });
});

describe('insertQuote', () => {
  it('returns the quote exactly as a later read finds it, though it reads back only what the database fills in', async () => {
    const { body: first } = await create({ items: [laptop()], cliente });
    const [stored] = await t.db.query<{ cliente_id: string }>('SELECT cliente_id FROM quotes WHERE id = $1', [
      first.data.id,
    ]);
    const inserted = await insertQuote(
      t.db,
      {
        org_id: t.seed.org.id,
        mode: 'test',
        cliente_id: stored!.cliente_id,
        cliente_nombre: cliente.empresa,
        status: 'draft',
        moneda: 'USD',
        fiscal_currency: 'MXN',
        iva_incluido: true,
        terminos_codigo: 'net30',
        vigencia_dias: 20,
        notas: 'Entregar en almacén «Norte»',
        descuento_solicitado: { tipo: 'porcentaje', valor: 12.5 },
        cupon: null,
        coupon_id: null,
        subtotal: 1234.56,
        descuento: 154.32,
        impuestos: 172.84,
        total: 1253.08,
        token: 'y'.repeat(40),
        draft_language: 'pt',
        needs_approval: true,
        approval_status: 'pending',
        motivo: 'discount_above_threshold',
        created_by: 'key:test',
      },
      [],
      { now: new Date(), eventData: {} },
    );
    expect(inserted).toBeDefined();
    expect(inserted).toEqual(await findQuote(t.db, { orgId: t.seed.org.id, mode: 'test' }, inserted!.id));
  });
});

describe('POST /cotizaciones for a new client', () => {
  it('creates the client, the quote and both events in one go, client.created first, each delivered', async () => {
    const hook = await t.call('POST', '/api/v1/webhooks', {
      key: sk,
      body: { url: 'https://hooks.example/svc', eventos: ['client.created', 'quote.created'] },
    });
    expect(hook.status).toBe(200);
    const before = await count('webhook_jobs');
    const email = `nuevo-${randomUUID()}@cliente.example`;
    const { res, body } = await create({
      items: [laptop()],
      cliente: { empresa: 'Cliente Nuevo SA', email, fiscal: { country: 'BR', tax_id: 'BR123' } },
    });
    expect(res.status).toBe(200);
    const [client] = await t.db.query<Json>(
      'SELECT id, empresa, email, rfc, country_code FROM clients WHERE email = $1',
      [email],
    );
    expect(client).toMatchObject({ empresa: 'Cliente Nuevo SA', rfc: 'BR123', country_code: 'BR' });
    const events = await t.db.query<Json>(
      'SELECT type, object_id, data FROM events WHERE object_id IN ($1, $2) ORDER BY seq',
      [client!.id, body.data.id],
    );
    expect(events.map((e) => e.type)).toEqual(['client.created', 'quote.created']);
    expect(events[0]!.data).toMatchObject({ id: client!.id, email, country_code: 'BR' });
    expect(events[1]!.data).toMatchObject({ id: body.data.id, folio: body.data.folio });
    expect(await count('webhook_jobs')).toBe(before + 2);
    // The client's country chose the quote's language (pt), as before the client existed.
    const [quote] = await t.db.query<Json>('SELECT cliente_id, draft_language FROM quotes WHERE id = $1', [
      body.data.id,
    ]);
    expect(quote).toEqual({ cliente_id: client!.id, draft_language: 'pt' });
    await t.call('DELETE', `/api/v1/webhooks/${((await hook.json()) as Json).data.id}`, { key: sk });
  });
});

describe('GET /cotizaciones', () => {
  it('lists newest first with the spec fields and meta, filtered by status, folio and client', async () => {
    const sentOne = (await create({ items: [laptop()], cliente, send: true })).body.data;
    const created = (
      await create({ items: [laptop()], cliente: { empresa: 'Listado SA', email: 'lista@x.example' } })
    ).body.data;
    const res = await t.call('GET', `/api/v1/cotizaciones?limit=2`, { key: sk });
    const body = (await res.json()) as Json;
    expect(body.data[0]).toEqual({
      id: created.id,
      folio: created.folio,
      cliente: 'Listado SA',
      status: 'draft',
      total: 28420,
      moneda: 'MXN',
      terminos: 'Contado',
      terminos_codigo: 'contado',
      vigencia: null,
      creada: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      link_publico: created.link_publico,
      language: null,
    });
    expect(body.meta).toMatchObject({
      limit: 2,
      offset: 0,
      total: expect.any(Number),
      next_cursor: expect.any(String),
    });
    const byFolio = (await (
      await t.call('GET', `/api/v1/cotizaciones?folio=${created.folio}`, { key: sk })
    ).json()) as Json;
    expect(byFolio.data.map((q: Json) => q.id)).toEqual([created.id]);
    const typed = (await (
      await t.call('GET', `/api/v1/cotizaciones?folio=${created.folio.toLowerCase()}`, { key: sk })
    ).json()) as Json;
    expect(typed.data.map((q: Json) => q.id)).toEqual([created.id]);
    const detail = (await (
      await t.call('GET', `/api/v1/cotizaciones/${created.id}`, { key: sk })
    ).json()) as Json;
    const byClient = (await (
      await t.call('GET', `/api/v1/cotizaciones?cliente_id=${detail.data.cliente_id}`, { key: sk })
    ).json()) as Json;
    expect(byClient.data.map((q: Json) => q.id)).toEqual([created.id]);
    const sent = (await (
      await t.call('GET', `/api/v1/cotizaciones?status=sent`, { key: sk })
    ).json()) as Json;
    expect(sent.data.map((q: Json) => q.id)).toContain(sentOne.id);
    expect(sent.data.every((q: Json) => q.status === 'sent')).toBe(true);
    // meta.total counts every match, whatever page is shown, an empty one past the end included.
    const [{ n }] = (await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM quotes WHERE org_id = $1 AND mode = 'test'`,
      [t.seed.org.id],
    )) as [{ n: number }];
    expect(body.meta.total).toBe(n);
    expect(byFolio.meta.total).toBe(1);
    expect(byClient.meta.total).toBe(1);
    const past = (await (
      await t.call('GET', `/api/v1/cotizaciones?offset=${n + 5}`, { key: sk })
    ).json()) as Json;
    expect(past).toMatchObject({ data: [], meta: { total: n, offset: n + 5, next_cursor: null } });
  });

  it('pages with a cursor that stays stable while quotes are inserted', async () => {
    const first = (await (await t.call('GET', '/api/v1/cotizaciones?limit=3', { key: sk })).json()) as Json;
    await create({ items: [laptop()], cliente });
    const second = (await (
      await t.call('GET', `/api/v1/cotizaciones?limit=3&cursor=${first.meta.next_cursor}`, { key: sk })
    ).json()) as Json;
    const all = (await (await t.call('GET', '/api/v1/cotizaciones?limit=200', { key: sk })).json()) as Json;
    const ids = all.data.map((q: Json) => q.id);
    const start = ids.indexOf(first.data[2].id) + 1;
    expect(second.data.map((q: Json) => q.id)).toEqual(ids.slice(start, start + 3));
    expect(second.meta.offset).toBeNull();
    // With a cursor, offset is ignored, even one that alone would be refused.
    for (const offset of ['7', '-1', 'abc']) {
      const withOffset = (await (
        await t.call(
          'GET',
          `/api/v1/cotizaciones?limit=3&cursor=${first.meta.next_cursor}&offset=${offset}`,
          {
            key: sk,
          },
        )
      ).json()) as Json;
      expect(withOffset.data).toEqual(second.data);
    }
  });

  it('refuses bad query parameters with 400', async () => {
    for (const query of [
      'limit=0',
      'limit=201',
      'offset=-1',
      'status=lost',
      'cursor=abc',
      'cliente_id=1',
      'bogus=1',
    ]) {
      await expectError(
        await t.call('GET', `/api/v1/cotizaciones?${query}`, { key: sk }),
        400,
        'invalid_request',
      );
    }
  });

  it('never mixes test and live data', async () => {
    const live = (await (
      await t.call('GET', '/api/v1/cotizaciones?limit=200', { key: t.seed.keys.sk_live_write })
    ).json()) as Json;
    const test = (await (await t.call('GET', '/api/v1/cotizaciones?limit=200', { key: sk })).json()) as Json;
    const liveIds = new Set(live.data.map((q: Json) => q.id));
    expect(test.data.some((q: Json) => liveIds.has(q.id))).toBe(false);
    await expectError(
      await t.call('GET', `/api/v1/cotizaciones/${test.data[0].id}`, { key: t.seed.keys.sk_live_write }),
      404,
      'not_found',
    );
  });
});

describe('quote life cycle', () => {
  const act = (id: string, action: string, extra: Json = {}) =>
    t.call('POST', `/api/v1/cotizaciones/${id}`, { key: sk, body: { action, ...extra } });
  const newDraft = async () => (await create({ items: [laptop()], cliente })).body.data.id as string;

  it('follows the state table and refuses other moves with 409, applying nothing', async () => {
    const id = await newDraft();
    await expectError(await act(id, 'approve'), 409, 'invalid_state');
    await expectError(await act(id, 'mark_paid'), 409, 'invalid_state');
    const sent = (await (await act(id, 'send')).json()) as Json;
    expect(sent.data).toMatchObject({
      status: 'sent',
      language: 'es',
      vigencia: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    await expectError(await act(id, 'send'), 409, 'invalid_state');
    expect(((await (await act(id, 'approve')).json()) as Json).data.status).toBe('approved');
    await expectError(await act(id, 'reject'), 409, 'invalid_state');
    expect(((await (await act(id, 'mark_paid')).json()) as Json).data.status).toBe('paid');
    const events = (await (
      await t.call('GET', `/api/v1/events?object_id=${id}`, { key: sk })
    ).json()) as Json;
    expect(events.data.map((e: Json) => e.type)).toEqual([
      'quote.paid',
      'quote.approved',
      'quote.sent',
      'quote.created',
    ]);
    expect(events.data[0].actor).toMatch(/^api:[0-9a-f-]{36}$/);
    expect(JSON.stringify(events.data)).not.toContain('link_publico');
  });

  it('resends with new lines, recomputing totals, from sent, viewed or expired', async () => {
    const id = await newDraft();
    const moveTo = async (action: 'open' | 'expire', status: string) => {
      const res = await t.call('POST', `/api/v1/test_helpers/cotizaciones/${id}`, {
        key: sk,
        body: { action },
      });
      expect(((await res.json()) as Json).data.status).toBe(status);
    };
    const resend = async (extra: Json = {}) => {
      const res = await act(id, 'resend', extra);
      expect(res.status).toBe(200);
      return ((await res.json()) as Json).data;
    };
    await act(id, 'send');
    expect(await resend({ items: [laptop(2)], vigencia_dias: 30 })).toMatchObject({
      status: 'sent',
      subtotal: 49000,
      total: 56840,
      vigencia_dias: 30,
    });
    await moveTo('open', 'viewed');
    expect(await resend({ items: [laptop(3)] })).toMatchObject({ status: 'sent', subtotal: 73500 });
    await moveTo('expire', 'expired');
    expect(await resend({ items: [laptop()] })).toMatchObject({ status: 'sent', subtotal: 24500 });
    const events = (await (
      await t.call('GET', `/api/v1/events?object_id=${id}&type=quote.updated`, { key: sk })
    ).json()) as Json;
    expect(events.data).toHaveLength(3);
  });

  it('rejects unknown actions and stray fields with 400', async () => {
    const id = await newDraft();
    await expectError(await act(id, 'fly'), 400, 'invalid_request');
    await expectError(await act(id, 'send', { items: [laptop()] }), 400, 'invalid_request');
    await expectError(
      await t.call('POST', `/api/v1/cotizaciones/${id}`, { key: sk, body: {} }),
      400,
      'invalid_request',
    );
  });

  it('deletes only never-sent drafts', async () => {
    const id = await newDraft();
    const listedTotal = async (query = '') =>
      ((await (await t.call('GET', `/api/v1/cotizaciones?limit=1${query}`, { key: sk })).json()) as Json).meta
        .total as number;
    const counted = async (status?: string) =>
      (
        await t.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM quotes WHERE org_id = $1 AND mode = 'test' AND ($2::text IS NULL OR status = $2)`,
          [t.seed.org.id, status ?? null],
        )
      )[0]!.n;
    const before = { all: await listedTotal(), drafts: await listedTotal('&status=draft') };
    const del = await t.call('DELETE', `/api/v1/cotizaciones/${id}`, { key: sk });
    expect(del.status).toBe(200);
    // The unfiltered total (folios taken less drafts deleted) and the counted one agree.
    expect({ all: await listedTotal(), drafts: await listedTotal('&status=draft') }).toEqual({
      all: before.all - 1,
      drafts: before.drafts - 1,
    });
    expect(await listedTotal()).toBe(await counted());
    expect(await listedTotal('&status=draft')).toBe(await counted('draft'));
    await expectError(await t.call('GET', `/api/v1/cotizaciones/${id}`, { key: sk }), 404, 'not_found');
    const sentId = await newDraft();
    await act(sentId, 'send');
    await expectError(
      await t.call('DELETE', `/api/v1/cotizaciones/${sentId}`, { key: sk }),
      409,
      'invalid_state',
    );
    const events = (await (
      await t.call('GET', `/api/v1/events?type=quote.deleted`, { key: sk })
    ).json()) as Json;
    expect(events.data[0].object_id).toBe(id);
  });

  it('offers open and expire test helpers to test keys only', async () => {
    const id = await newDraft();
    await act(id, 'send');
    const opened = await t.call('POST', `/api/v1/test_helpers/cotizaciones/${id}`, {
      key: sk,
      body: { action: 'open' },
    });
    expect(((await opened.json()) as Json).data.status).toBe('viewed');
    await expectError(
      await t.call('POST', `/api/v1/test_helpers/cotizaciones/${id}`, {
        key: t.seed.keys.sk_live_write,
        body: { action: 'expire' },
      }),
      403,
      'insufficient_scope',
    );
  });

  it('expires a quote past its validity as soon as someone acts on it, before the scheduled job', async () => {
    const expiredEvents = async (id: string) =>
      (
        (await (
          await t.call('GET', `/api/v1/events?object_id=${id}&type=quote.expired`, { key: sk })
        ).json()) as Json
      ).data;
    // Sent with a validity that ended yesterday.
    const past = (await create({ items: [laptop()], cliente, vigencia_dias: -1 })).body.data.id as string;
    await act(past, 'send');
    await expectError(await act(past, 'approve'), 409, 'invalid_state');
    const detail = (await (await t.call('GET', `/api/v1/cotizaciones/${past}`, { key: sk })).json()) as Json;
    expect(detail.data.status).toBe('expired');
    expect(await expiredEvents(past)).toHaveLength(1);
    expect(((await (await act(past, 'resend', { vigencia_dias: 15 })).json()) as Json).data.status).toBe(
      'sent',
    );
    // On the public page: opening it shows it expired, and the client cannot approve it.
    const other = (await create({ items: [laptop()], cliente, vigencia_dias: -1 })).body.data;
    await act(other.id, 'send');
    const page = await t.app.request(`/q/${other.token}`);
    expect(page.status).toBe(200);
    const after = (await (
      await t.call('GET', `/api/v1/cotizaciones/${other.id}`, { key: sk })
    ).json()) as Json;
    expect(after.data.status).toBe('expired');
    expect(await expiredEvents(other.id)).toHaveLength(1);
    // A validity that ends today is still good today.
    const today = (await create({ items: [laptop()], cliente, vigencia_dias: 0 })).body.data.id as string;
    await act(today, 'send');
    expect(((await (await act(today, 'approve')).json()) as Json).data.status).toBe('approved');
  });

  it('expires sent quotes past their validity through the scheduled job', async () => {
    const { expireDueQuotes } = await import('../services/quote-actions.js');
    const id = await newDraft();
    await act(id, 'send');
    const far = new Date(Date.now() + 400 * 86_400_000);
    expect(await expireDueQuotes(t.db, far)).toBeGreaterThan(0);
    const detail = (await (await t.call('GET', `/api/v1/cotizaciones/${id}`, { key: sk })).json()) as Json;
    expect(detail.data.status).toBe('expired');
    const events = (await (
      await t.call('GET', `/api/v1/events?object_id=${id}&type=quote.expired`, { key: sk })
    ).json()) as Json;
    expect(events.data[0].actor).toBe('system');
    expect(await expireDueQuotes(t.db, far)).toBe(0);
  });
});

describe('costs and notes only to secret keys', () => {
  it('hides costo_unitario and notas from a restricted key on every answer that carries the quote, the test helper included', async () => {
    const { body: created } = await create({
      cliente,
      notas: 'Solo para nosotros',
      items: [{ descripcion: 'Servicio', cantidad: 2, precio_unitario: 1000, costo_unitario: 777.77 }],
      send: true,
    });
    const id = created.data.id as string;
    const { restrictedKey } = await import('../testing/harness.js');
    const rk = await restrictedKey(t, { cotizaciones: 'write' });
    const answers: [string, Response][] = [
      ['detail', await t.call('GET', `/api/v1/cotizaciones/${id}`, { key: rk })],
      [
        'action',
        await t.call('POST', `/api/v1/cotizaciones/${id}`, {
          key: rk,
          body: { action: 'comment', mensaje: 'Hola' },
        }),
      ],
      [
        'test helper',
        await t.call('POST', `/api/v1/test_helpers/cotizaciones/${id}`, {
          key: rk,
          body: { action: 'open' },
        }),
      ],
    ];
    for (const [what, res] of answers) {
      expect({ what, status: res.status }).toEqual({ what, status: 200 });
      const { data } = (await res.json()) as Json;
      expect({ what, notas: data.notas, costo: data.items[0].costo_unitario }).toEqual({
        what,
        notas: undefined,
        costo: undefined,
      });
    }
    // The secret key still sees both.
    const { data } = (await (await t.call('GET', `/api/v1/cotizaciones/${id}`, { key: sk })).json()) as Json;
    expect({ notas: data.notas, costo: data.items[0].costo_unitario }).toEqual({
      notas: 'Solo para nosotros',
      costo: 777.77,
    });
  });
});
