import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../services/api-keys.js';
import { createOrg } from '../services/orgs.js';
import { expectError } from '../testing/assertions.js';
import { createTestContext, restrictedKey, type TestContext } from '../testing/harness.js';

// Rules every operation shares, each found broken on one family of operations.
let t: TestContext;
let sk: string;
beforeAll(async () => {
  t = await createTestContext();
  sk = t.seed.keys.sk_test_write;
});
afterAll(() => t.close());

type Json = Record<string, any>;
const call = (method: string, path: string, body?: unknown, key = sk, headers: Record<string, string> = {}) =>
  t.call(method, `/api/v1${path}`, { key, body, headers });
const count = async (table: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n;
const line = (extra: Json = {}) => ({
  descripcion: 'Servicio',
  cantidad: 1,
  precio_unitario: 1000,
  ...extra,
});
const cliente = { empresa: 'Reglas SA' };

describe('bodies', () => {
  it('refuses a body nested past 32 levels with a short 400, U+0000 escape or not', async () => {
    const deep = (levels: number, inner: string) => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;
    // 5,000 levels fit in 64 KiB. With an escape the body is scanned for U+0000, which exhausted
    // the stack (500) before the depth rule stopped it; without one the schema refuses it first.
    const expected = { '"\\u0000"': /^notas: nested more than 32 levels deep$/, '"x"': /^notas: / };
    for (const [inner, message] of Object.entries(expected)) {
      const res = await call('POST', '/tareas', `{"titulo":"Tarea","notas":${deep(5000, inner)}}`);
      const error = await expectError(res, 400, 'invalid_request');
      expect(String(error.error).length).toBeLessThan(200);
      expect(error.error).toMatch(message);
    }
    expect(await count('tasks')).toBe(0);
  });

  it('counts text limits in characters: 200 emoji are a title of 200, not 400; the API description still says 200', async () => {
    const ok = await call('POST', '/tareas', { titulo: '📞'.repeat(200) });
    expect(ok.status).toBe(200);
    const over = await expectError(
      await call('POST', '/tareas', { titulo: '📞'.repeat(201) }),
      400,
      'invalid_request',
    );
    expect(over.error).toBe('titulo: must be at most 200 characters');
    const openapi = (await (await t.call('GET', '/api/v1/openapi.json')).json()) as Json;
    const body = openapi.paths['/tareas'].post.requestBody.content['application/json'].schema;
    expect(body.properties.titulo.maxLength).toBe(200);
    // The other tests here count tasks from none.
    await t.db.query('DELETE FROM tasks WHERE id = $1', [((await ok.json()) as Json).data.id]);
  });

  it('refuses a JSON array, null or a scalar where an object is expected, even when every field is optional', async () => {
    const client = (await (await call('POST', '/clientes', cliente)).json()) as Json;
    const patched = await call('PATCH', `/clientes/${client.data.id}`, []);
    expect((await expectError(patched, 400, 'invalid_request')).error).toBe(
      'body: must be a JSON object, not an array',
    );
    await expectError(await call('POST', '/tareas', [{ titulo: 'x' }]), 400, 'invalid_request');
    for (const [body, kind] of [
      ['null', 'null'],
      ['"tarea"', 'a string'],
      ['7', 'a number'],
    ]) {
      expect((await expectError(await call('POST', '/tareas', body), 400, 'invalid_request')).error).toBe(
        `body: must be a JSON object, not ${kind}`,
      );
    }
    expect(await count('tasks')).toBe(0);
  });

  it('refuses a body on DELETE that is not empty or {}, and deletes nothing', async () => {
    const quote = (await (await call('POST', '/cotizaciones', { cliente, items: [line()] })).json()) as Json;
    const path = `/cotizaciones/${quote.data.id}`;
    await expectError(await call('DELETE', path, '{"a":'), 400, 'invalid_json');
    await expectError(await call('DELETE', path, { motivo: 'x' }), 400, 'invalid_request');
    expect((await call('GET', path)).status).toBe(200);
    expect((await call('DELETE', path, {})).status).toBe(200);
    expect((await call('GET', path)).status).toBe(404);
  });
});

describe('queries', () => {
  it('refuses parameters GET /webhooks does not take, as every list does', async () => {
    await expectError(await call('GET', '/webhooks?limit=0'), 400, 'invalid_request');
    await expectError(await call('GET', '/webhooks?zz=1'), 400, 'invalid_request');
    expect((await call('GET', '/webhooks')).status).toBe(200);
  });
});

describe('amounts', () => {
  it("bounds a product's cost like every amount, with a worded message", async () => {
    const product = { sku: 'COSTO-1', nombre: 'Caro', precio_lista: 10 };
    const huge = await expectError(
      await call('POST', '/productos', { ...product, costo: 1e300 }),
      400,
      'invalid_request',
    );
    expect(huge.error).toBe('costo: must be at most 1e12');
    const negative = await expectError(
      await call('POST', '/productos', { ...product, costo: -1 }),
      400,
      'invalid_request',
    );
    expect(negative.error).toBe('costo: must be a number of 0 or more');
    expect(await count("products WHERE sku = 'COSTO-1'")).toBe(0);
  });

  it('names the ceiling of an amount too large on a quote, not the floor', async () => {
    for (const [body, message] of [
      [{ descuento: { tipo: 'monto', valor: 1e15 } }, 'descuento.valor: must be at most 1e12'],
      [{ items: [{ ...line(), precio_unitario: 1e15 }] }, 'items[0].precio_unitario: must be at most 1e12'],
      [
        { items: [{ ...line(), precio_unitario: -1 }] },
        'items[0].precio_unitario: must be a number of 0 or more',
      ],
    ] as const) {
      const res = await call('POST', '/cotizaciones', { cliente, items: [line()], ...body });
      expect((await expectError(res, 400, 'invalid_request')).error).toBe(message);
    }
    expect(await count('quotes')).toBe(0);
  });

  it('refuses a discount amount with more decimals than the currency has, on quotes and invoices', async () => {
    const descuento = { tipo: 'monto', valor: 1.005 };
    for (const path of ['/cotizaciones', '/facturas']) {
      const res = await call('POST', path, { cliente, items: [line()], descuento });
      expect((await expectError(res, 400, 'invalid_request')).error).toBe(
        'descuento.valor: at most 2 decimals in MXN',
      );
    }
    expect((await count('quotes')) + (await count('invoices'))).toBe(0);
    // A percentage is a rate, not an amount: its decimals are kept.
    const quote = await call('POST', '/cotizaciones', {
      cliente,
      items: [line()],
      descuento: { tipo: 'porcentaje', valor: 1.005 },
    });
    const detail = await call('GET', `/cotizaciones/${((await quote.json()) as Json).data.id}`);
    expect(((await detail.json()) as Json).data).toMatchObject({ subtotal: 1000, descuento: 10.05 });
  });
});

describe('the tax catalog', () => {
  it("takes in Mexico only the SAT's IVA rates, on lines, products and setup plans", async () => {
    for (const rate of [0, 0.08, 0.16]) {
      expect(
        (await call('POST', '/cotizaciones', { cliente, items: [line({ tax_rate: rate })] })).status,
      ).toBe(200);
    }
    const before = await count('quotes');
    const refused = await call('POST', '/cotizaciones', {
      cliente,
      items: [line(), line({ tax_rate: 0.123 })],
    });
    expect((await expectError(refused, 400, 'invalid_request')).error).toBe(
      'items[1].tax_rate: must be a rate of the MX tax catalog (0, 0.08, 0.16), not 0.123',
    );
    await expectError(
      await call('POST', '/facturas', { cliente, items: [line({ tax_rate: 0.1 })] }),
      400,
      'invalid_request',
    );
    const product = { sku: 'TASA-1', nombre: 'Tasa', precio_lista: 10, tax_rate: 0.15 };
    expect(
      (await expectError(await call('POST', '/productos', product), 400, 'invalid_request')).error,
    ).toMatch(/^tax_rate: /);
    const plan = await call('POST', '/setup/plans', {
      productos: [{ ...product, unidad: 'pieza', moneda: 'MXN' }],
    });
    expect((await expectError(plan, 400, 'invalid_request')).error).toMatch(/^productos\[0\]\.tax_rate: /);
    expect({ quotes: await count('quotes'), invoices: await count('invoices') }).toEqual({
      quotes: before,
      invoices: 0,
    });
  });

  it('takes any rate from 0 to 1 where the country has no closed catalog', async () => {
    const org = await createOrg(t.db, {
      nombre: 'Tienda US',
      plan: 'developer',
      country: 'US',
      currency: 'USD',
      currencies: ['USD'],
      default_tax_rate: 0.0825,
      locale: 'en',
    });
    const key = (await createApiKey(t.db, { orgId: org.id, kind: 'secret', mode: 'test', scope: 'write' }))
      .key;
    const res = await call('POST', '/cotizaciones', { cliente, items: [line({ tax_rate: 0.0725 })] }, key);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).data).toMatchObject({ total: 1072.5 });
  });
});

describe('idempotent replays', () => {
  it('answer a replayed error under the request id its body carries', async () => {
    const headers = { 'idempotency-key': 'regla-replay-1' };
    const first = await call('POST', '/tareas', { titulo: '' }, sk, headers);
    const original = await expectError(first, 400, 'invalid_request');
    const again = await call('POST', '/tareas', { titulo: '' }, sk, headers);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // expectError checks that the header and the body name the same request.
    expect(await expectError(again, 400, 'invalid_request')).toEqual(original);
  });
});

describe('workflows', () => {
  it('refuses an invocation that names a record twice, and runs nothing', async () => {
    const workflows = (await (await call('GET', '/workflows')).json()) as Json;
    const seguimiento = workflows.data.find((w: Json) => w.nombre === 'seguimiento');
    const quote = (await (
      await call('POST', '/cotizaciones', { cliente, items: [line()], send: true })
    ).json()) as Json;
    const tasks = await count('tasks');
    const res = await call('POST', `/workflows/${seguimiento.id}/invoke`, {
      ids: [quote.data.id, quote.data.id.toUpperCase()],
    });
    expect((await expectError(res, 400, 'invalid_request')).error).toBe('ids: must not repeat an id');
    expect(await count('tasks')).toBe(tasks);
  });
});

describe('restricted keys', () => {
  it('need the invoices permission to invoice a quote, not only the quotes one', async () => {
    const quotesOnly = await restrictedKey(t, { cotizaciones: 'write' });
    const created = await call('POST', '/cotizaciones', { cliente, items: [line()] });
    const id = ((await created.json()) as Json).data.id;
    for (const action of ['send', 'approve']) {
      expect((await call('POST', `/cotizaciones/${id}`, { action }, quotesOnly)).status).toBe(200);
    }
    const refused = await call('POST', `/cotizaciones/${id}`, { action: 'invoice' }, quotesOnly);
    await expectError(refused, 403, 'insufficient_scope');
    const detail = ((await (await call('GET', `/cotizaciones/${id}`)).json()) as Json).data;
    expect(detail.status).toBe('approved');
    expect(await count('invoices')).toBe(0);
    const both = await restrictedKey(t, { cotizaciones: 'write', facturas: 'write' });
    const invoiced = await call('POST', `/cotizaciones/${id}`, { action: 'invoice' }, both);
    expect(((await invoiced.json()) as Json).data.status).toBe('invoiced');
  });

  it("read the invoices' e-mails, which carry the invoice's link, only with the invoices permission", async () => {
    const created = await call('POST', '/facturas', {
      cliente: { ...cliente, email: 'pagos@reglas.example' },
      items: [line()],
    });
    const id = ((await created.json()) as Json).data.id;
    for (const action of ['finalize', 'send'])
      expect((await call('POST', `/facturas/${id}`, { action })).status).toBe(200);
    const subjects = async (key: string) =>
      ((await (await call('GET', '/emails?limit=200', undefined, key)).json()) as Json).data.map(
        (e: Json) => e.body,
      );
    const invoiceLink = /\/i\//;
    expect((await subjects(sk)).some((body: string) => invoiceLink.test(body))).toBe(true);
    const quotesOnly = await subjects(await restrictedKey(t, { cotizaciones: 'read' }));
    expect(quotesOnly.some((body: string) => invoiceLink.test(body))).toBe(false);
    const withInvoices = await subjects(await restrictedKey(t, { cotizaciones: 'read', facturas: 'read' }));
    expect(withInvoices.some((body: string) => invoiceLink.test(body))).toBe(true);
  });

  it('receive only the events of what they may read, on endpoints and in listen sessions', async () => {
    const hook = (key: string, eventos?: string[]) =>
      call(
        'POST',
        '/webhooks',
        { url: 'https://hooks.example.com/restricted', ...(eventos ? { eventos } : {}) },
        key,
      );
    const hooksOnly = await restrictedKey(t, { webhooks: 'write' });
    for (const eventos of [['quote.created'], ['invoice.finalized'], undefined]) {
      await expectError(await hook(hooksOnly, eventos), 403, 'insufficient_scope');
    }
    expect((await hook(hooksOnly, ['ping'])).status).toBe(200);
    const quotes = await restrictedKey(t, { webhooks: 'write', cotizaciones: 'read' });
    await expectError(await hook(quotes, ['quote.created', 'invoice.paid']), 403, 'insufficient_scope');
    // No list: every event it may read, named, and none it may not.
    const all = ((await (await hook(quotes)).json()) as Json).data.eventos as string[];
    expect(all).toContain('quote.created');
    expect(all).toContain('invoice.stamped');
    expect(all.some((type) => type === 'invoice.paid' || type.startsWith('client.'))).toBe(false);
    // A listen session of the same key leaves the others out too.
    const session = ((await (await call('POST', '/test_helpers/listen', undefined, quotes)).json()) as Json)
      .data;
    await call('POST', '/cotizaciones', { cliente: { empresa: 'Oyente SA' }, items: [line()] });
    const listened = (await (
      await call('GET', `/test_helpers/listen/${session.id}`, undefined, quotes)
    ).json()) as Json;
    const heard = listened.data as Json[];
    expect(heard, JSON.stringify(listened)).toBeDefined();
    expect(heard.map((e) => e.event)).toContain('quote.created');
    expect(heard.map((e) => e.event)).not.toContain('client.created');
  });

  it('cannot propose setup plans whatever their permissions, valid body or not', async () => {
    const key = await restrictedKey(t, { setup: 'write' });
    for (const body of [{ resumen: 'Plan' }, { nada: true }]) {
      const res = await call('POST', '/setup/plans', body, key);
      expect((await expectError(res, 403, 'insufficient_scope')).error).toBe(
        'Only secret keys can call this operation.',
      );
    }
    expect(await count('setup_plans')).toBe(0);
  });
});

describe('publishable keys', () => {
  it('cannot read catalog prices as tax-included, which would cut them by the rate', async () => {
    const products = ((await (await call('GET', '/productos?limit=1')).json()) as Json).data;
    const item = {
      producto_id: products[0].id,
      descripcion: 'x',
      cantidad: 1,
      precio_unitario: products[0].precio_lista,
    };
    const widget = (path: string, body: Json) =>
      t.call('POST', `/api/v1${path}`, {
        key: t.seed.keys.pk_test,
        headers: { origin: t.seed.publishable_origins[0]!, 'x-forwarded-for': '198.51.100.77' },
        body,
      });
    const quotes = await count('quotes');
    for (const [path, body] of [
      ['/elements/preview', { items: [item], iva_incluido: true }],
      [
        '/cotizaciones',
        { items: [item], iva_incluido: true, cliente: { empresa: 'Listo', email: 'l@example.com' } },
      ],
    ] as const) {
      const error = await expectError(await widget(path, body), 400, 'invalid_request');
      expect(error.error).toMatch(/^iva_incluido: /);
    }
    expect(await count('quotes')).toBe(quotes);
    expect((await widget('/elements/preview', { items: [item], iva_incluido: false })).status).toBe(200);
  });
});

describe('the agent interface', () => {
  it('reads its Authorization header as REST does: trimmed, never a 500', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    };
    const mcp = (authorization: string) =>
      t.app.request('/mcp', {
        method: 'POST',
        headers: {
          authorization,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(initialize),
      });
    // A no-break space after the key, as a copy from a web page brings it.
    const res = await mcp(`Bearer ${sk}\u00a0`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).result.serverInfo).toBeDefined();
    await expectError(await mcp('Token abc'), 401, 'invalid_key');
  });
});

describe('GET /emails', () => {
  it('pages as every offset list does: total, and next_cursor to the end', async () => {
    for (const empresa of ['Correo Uno', 'Correo Dos', 'Correo Tres']) {
      const res = await call('POST', '/cotizaciones', {
        cliente: { empresa, email: `${empresa.split(' ')[1]!.toLowerCase()}@example.com` },
        items: [line()],
        send: true,
      });
      expect(res.status).toBe(200);
    }
    const seen: string[] = [];
    let path = '/emails?limit=2';
    let total = 0;
    for (let page = 0; page < 50 && path; page++) {
      const body = (await (await call('GET', path)).json()) as Json;
      total = body.meta.total;
      seen.push(...body.data.map((e: Json) => e.id));
      path = body.meta.next_cursor ? `/emails?limit=2&cursor=${body.meta.next_cursor}` : '';
    }
    expect(total).toBeGreaterThanOrEqual(3);
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
  });
});

describe("a Mexican client's tax data", () => {
  it("is an RFC with SAT's regime and CFDI use codes, refused otherwise before anything is written", async () => {
    const fiscal = {
      country: 'MX',
      tax_id: 'XAXX010101000',
      regimen_fiscal: '616',
      uso_cfdi: 'S01',
      cp_fiscal: '06000',
    };
    expect((await call('POST', '/clientes', { empresa: 'Fiscal Bueno', fiscal })).status).toBe(200);
    const clients = await count('clients');
    for (const [change, message] of [
      [{ tax_id: 'hola' }, 'fiscal.tax_id: must be an RFC'],
      [{ regimen_fiscal: '999' }, "fiscal.regimen_fiscal: must be a tax regime code of SAT's catalog"],
      [{ uso_cfdi: 'ZZZ' }, "fiscal.uso_cfdi: must be a CFDI use code of SAT's catalog"],
    ] as const) {
      const res = await call('POST', '/clientes', {
        empresa: 'Fiscal Malo',
        fiscal: { ...fiscal, ...change },
      });
      expect((await expectError(res, 400, 'invalid_request')).error).toContain(message);
    }
    expect(await count('clients')).toBe(clients);
    // Elsewhere the tax id is the country's own.
    const abroad = { country: 'US', tax_id: '12-3456789' };
    expect((await call('POST', '/clientes', { empresa: 'Fiscal US', fiscal: abroad })).status).toBe(200);
  });
});
