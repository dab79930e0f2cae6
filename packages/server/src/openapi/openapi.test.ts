import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ERROR_CODES } from '@svc/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { DeliveryWorker } from '../webhooks/delivery-worker.js';
import { OPERATIONS } from './operations.js';

let t: TestContext;
beforeAll(async () => {
  // Loopback webhooks: a real delivery to a receiver of this test fills the delivery log.
  t = await createTestContext({ env: { SVC_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: '1' } });
});
afterAll(() => t.close());

type Json = Record<string, any>;

/** The API routes of the app as `METHOD /path/{param}` (relative to /api/v1 when under it). */
function appRoutes(): Set<string> {
  const routes = new Set<string>();
  for (const route of t.app.routes) {
    if (route.method === 'ALL' || !route.path.startsWith('/api/')) continue;
    if (route.path === '/api/v1/openapi.json') continue;
    const path = route.path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}');
    routes.add(`${route.method} ${path.startsWith('/api/v1/') ? path.slice('/api/v1'.length) : path}`);
  }
  return routes;
}

describe('the API description', () => {
  it('is served without a key as a well-formed OpenAPI 3.1 document', async () => {
    const res = await t.call('GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Json;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: '2026-10-01' });
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      expect(path.startsWith('/')).toBe(true);
      for (const [method, op] of Object.entries(item as Json)) {
        if (method === 'servers') continue;
        expect(['get', 'post', 'patch', 'delete']).toContain(method);
        expect(op.responses['200']).toBeDefined();
        expect(ids.has(op.operationId)).toBe(false);
        ids.add(op.operationId);
        for (const name of path.match(/\{(\w+)\}/g) ?? []) {
          expect(op.parameters.some((p: Json) => p.in === 'path' && `{${p.name}}` === name)).toBe(true);
        }
      }
    }
    // Every reference resolves.
    for (const ref of JSON.stringify(doc).match(/"#\/components\/schemas\/\w+"/g) ?? []) {
      expect(doc.components.schemas[ref.slice(22, -1)]).toBeDefined();
    }
  });

  it('lists every route of the app, and only those', async () => {
    const doc = (await (await t.call('GET', '/api/v1/openapi.json')).json()) as Json;
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const method of Object.keys(item as Json))
        if (method !== 'servers') documented.add(`${method.toUpperCase()} ${path}`);
    }
    expect([...documented].sort()).toEqual([...appRoutes()].sort());
  });

  it('describes request bodies from the schemas the server validates with', async () => {
    const doc = (await (await t.call('GET', '/api/v1/openapi.json')).json()) as Json;
    const create = doc.paths['/cotizaciones'].post.requestBody.content['application/json'].schema;
    expect(create.required).toContain('items');
    expect(create.additionalProperties).toBe(false);
    expect(create.properties.items.items.properties.clave_sat.description).toContain('Mexico only: 8 digits');
    expect(create.properties.terminos.enum).toContain('net30');
  });

  it('gives a setup plan example the server accepts, and says only secret keys propose one', async () => {
    const doc = (await (await t.call('GET', '/api/v1/openapi.json')).json()) as Json;
    const propose = doc.paths['/setup/plans'].post;
    expect(propose.description).toContain('Secret keys only.');
    const example = propose.requestBody.content['application/json'].example;
    const res = await t.call('POST', '/api/v1/setup/plans', {
      key: t.seed.keys.sk_test_write,
      body: example,
    });
    expect(res.status).toBe(200);
  });

  it('gives request examples a seeded server accepts as they are (POST /productos: a SKU not in the demo)', async () => {
    const doc = (await (await t.call('GET', '/api/v1/openapi.json')).json()) as Json;
    const refused: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      const op = (item as Json).post;
      if (!op?.requestBody || path.includes('{') || op.responses['200'].content['text/event-stream'])
        continue;
      const example = op.requestBody.content['application/json'].example;
      // A body that names a record (`webhook_id`) cannot be run as it is.
      if (Object.keys(example).some((name) => name.endsWith('_id'))) continue;
      const widget = path.startsWith('/elements/');
      const res = await t.call('POST', `/api/v1${path}`, {
        key: widget ? t.seed.keys.pk_test : t.seed.keys.sk_test_write,
        headers: widget ? { origin: 'http://localhost:8787' } : {},
        body: example,
      });
      if (res.status !== 200) refused.push(`POST ${path} ${res.status} ${await res.text()}`);
    }
    expect(refused).toEqual([]);
  });

  it("serves the page every error's doc_url points at, with an anchor for every code the server answers", async () => {
    const missing = await t.call('GET', '/api/v1/cotizaciones/00000000-0000-4000-8000-000000000000', {
      key: t.seed.keys.sk_test_write,
    });
    const { doc_url } = (await missing.json()) as Json;
    expect(doc_url).toBe('http://svc.test/docs/errors#not_found');
    const url = new URL(doc_url);
    const page = await t.call('GET', url.pathname);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    for (const code of ERROR_CODES) expect(html, code).toContain(`<section id="${code}">`);
    // The spec's codes this service never answers are there too, saying so.
    for (const code of ['subscription_required', 'tax_catalog_unavailable'])
      expect(html).toContain(`<section id="${code}">`);
    expect(html).toContain('<code>plan_limit_reached</code></a> · 402');
  });

  it('offers a plain-text summary for AI assistants and a reference page', async () => {
    const text = await (await t.call('GET', '/llms.txt')).text();
    expect(text).toContain('POST /cotizaciones');
    expect(text).toContain('openapi.json');
    const page = await t.call('GET', '/docs/api');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-url="/api/v1/openapi.json"');
    expect(html).toContain('src="/docs/api/scalar.js"');
    const bundle = await t.call('GET', '/docs/api/scalar.js');
    expect(bundle.headers.get('content-type')).toContain('javascript');
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
    const plain = await t.call('GET', '/docs/api/plain');
    expect(await plain.text()).toContain('/elements/ai-draft');
  });
});

/**
 * Every answer the document declares is held to real answers of the app: each operation is
 * called, and its body is validated with a JSON Schema validator (ajv, draft 2020-12 as OpenAPI
 * 3.1 says) against the schema the document declares for that operation and status.
 */
describe('the declared answers', () => {
  let doc: Json;
  let ajv: Ajv2020;
  /** The operations whose success answer was checked, as `METHOD path`. */
  const checked = new Set<string>();
  let sk: string;
  let pk: string;
  const widget = { origin: 'http://localhost:8787' };

  beforeAll(async () => {
    doc = (await (await t.call('GET', '/api/v1/openapi.json')).json()) as Json;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(doc, 'openapi.json');
    sk = t.seed.keys.sk_test_write;
    pk = t.seed.keys.pk_test;
  });

  it('gives examples its own schemas take, requests and answers', async () => {
    let examples = 0;
    for (const [route, item] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        const at = `openapi.json#/paths/${route.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}`;
        const bodies: [string, Json | undefined][] = [
          ['requestBody', op.requestBody?.content?.['application/json']],
          ...Object.entries((op.responses ?? {}) as Json).map(
            ([status, r]) =>
              [`responses/${status}`, (r as Json).content?.['application/json']] as [string, Json],
          ),
        ];
        for (const [where, content] of bodies) {
          if (content?.example === undefined) continue;
          examples++;
          const pointer = `${at}/${where}/content/application~1json/schema`;
          const validate = ajv.getSchema(pointer) ?? ajv.compile({ $ref: pointer });
          expect(
            validate(content.example),
            `${method} ${route} ${where}: ${ajv.errorsText(validate.errors)}`,
          ).toBe(true);
        }
      }
    }
    expect(examples).toBeGreaterThan(10);
  });

  /** The declared response of an operation for a status (`undefined` when none is declared). */
  const declared = (method: string, path: string, status: number): Json | undefined =>
    doc.paths[path]?.[method.toLowerCase()]?.responses[String(status)];

  /**
   * Calls the app and checks the answer against what the document declares for `route` (the
   * operation's path template): the status is declared, the body valid against its schema, the
   * error code among the ones the status lists, `Retry-After` sent where it is required.
   */
  async function call(
    method: string,
    route: string,
    path: string,
    init: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: Json; headers: Headers }> {
    const prefix = route.startsWith('/api/') ? '' : '/api/v1';
    const res = await t.call(method, `${prefix}${path}`, { key: sk, ...init });
    const body = (await res.json()) as Json;
    const response = declared(method, route, res.status);
    expect(
      response,
      `${method} ${route} answered ${res.status}, not declared: ${JSON.stringify(body)}`,
    ).toBeDefined();
    const pointer = `openapi.json#/paths/${route.replaceAll('~', '~0').replaceAll('/', '~1')}/${method.toLowerCase()}/responses/${res.status}/content/application~1json/schema`;
    const validate = ajv.getSchema(pointer) ?? ajv.compile({ $ref: pointer });
    expect(
      validate(body),
      `${method} ${route} ${res.status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`,
    ).toBe(true);
    if (res.status === 200) checked.add(`${method} ${route}`);
    else {
      expect(response!.description).toContain(`\`${body.code}\``);
      if (response!.headers?.['Retry-After']?.required)
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    return { status: res.status, body, headers: res.headers };
  }
  const data = async (...args: Parameters<typeof call>) => {
    const answer = await call(...args);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data;
  };

  it('are real schemas: every operation but the stream declares the shape of its data', () => {
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        if (method === 'servers') continue;
        const content = op.responses['200'].content;
        if (content['text/event-stream']) continue;
        const schema = content['application/json'].schema;
        expect(schema.required, `${method} ${path}`).toContain('data');
        expect(schema.properties.data, `${method} ${path}`).not.toEqual({});
      }
    }
    expect(doc.components.schemas.QuoteListItem.required).toEqual([
      'id',
      'folio',
      'cliente',
      'status',
      'total',
      'moneda',
      'terminos',
      'terminos_codigo',
      'vigencia',
      'creada',
      'link_publico',
      'language',
    ]);
    expect(doc.components.schemas.Error.properties.code.enum).toContain('fiscal_unavailable');
    expect(doc.paths['/clientes'].post.responses['402'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/PlanLimitError',
    );
  });

  it('match quotes: creation, list and its pages, detail and every action', async () => {
    const lap = t.seed.products.find((p) => p.sku === 'LAP-14')!.id;
    const laptop = { descripcion: 'Laptop', cantidad: 1, precio_unitario: 24500, producto_id: lap };
    const created = await data('POST', '/cotizaciones', '/cotizaciones', {
      body: {
        cliente: { empresa: 'Esquemas SA', email: 'compras@esquemas.example' },
        items: [laptop, { descripcion: 'Servicio', cantidad: 2, precio_unitario: 1000 }],
        cupon: 'BIENVENIDA10',
        plan_pagos: { tipo: 'anticipo', porcentaje: 30 },
      },
    });
    const sent = await data('POST', '/cotizaciones', '/cotizaciones', {
      body: { cliente: { empresa: 'Esquemas SA' }, items: [laptop], send: true },
    });
    expect(sent.email).toBeDefined();
    await data('POST', '/cotizaciones', '/cotizaciones', {
      key: pk,
      headers: widget,
      body: { cliente: { empresa: 'Desde el widget', email: 'web@widget.example' }, items: [laptop] },
    });
    const page = await call('GET', '/cotizaciones', '/cotizaciones?limit=2');
    await call('GET', '/cotizaciones', `/cotizaciones?cursor=${page.body.meta.next_cursor}`);
    const id = `/cotizaciones/${created.id}`;
    for (const body of [
      { action: 'send' },
      { action: 'approve' },
      { action: 'pay', monto: 1000 },
      { action: 'promise', monto: 100, fecha_promesa: '2099-01-01' },
      { action: 'comment', mensaje: 'Gracias' },
    ]) {
      await data('POST', '/cotizaciones/{id}', id, { body });
    }
    expect(
      (await data('POST', '/cotizaciones/{id}', id, { body: { action: 'invoice' } })).factura,
    ).toBeDefined();
    const detail = await data('GET', '/cotizaciones/{id}', id);
    expect(detail).toMatchObject({
      status: 'invoiced',
      pagos: [expect.anything()],
      promesas: [expect.anything()],
    });
    // A restricted key sees neither costs nor notes.
    const restricted = await (await import('../testing/harness.js')).restrictedKey(
      t,
      { cotizaciones: 'read' },
      'read',
    );
    expect(await data('GET', '/cotizaciones/{id}', id, { key: restricted })).not.toHaveProperty('notas');
    await data(
      'POST',
      '/test_helpers/cotizaciones/{id}',
      `/cotizaciones/${sent.id}`.replace('/', '/test_helpers/'),
      {
        body: { action: 'open' },
      },
    );
    const draft = await data('POST', '/cotizaciones', '/cotizaciones', {
      body: { cliente: { empresa: 'Borrador' }, items: [laptop] },
    });
    await data('DELETE', '/cotizaciones/{id}', `/cotizaciones/${draft.id}`);
    await data('POST', '/cotizaciones/ia', '/cotizaciones/ia', {
      body: { prompt: '3 laptops y una nave espacial' },
    });
    // Errors: an unknown quote, a move its state does not allow.
    await call('GET', '/cotizaciones/{id}', '/cotizaciones/00000000-0000-4000-8000-000000000000');
    expect(
      (
        await call('POST', '/cotizaciones/{id}', `/cotizaciones/${sent.id}`, {
          body: { action: 'mark_paid' },
        })
      ).status,
    ).toBe(409);
  });

  it('match invoices, the fiscal test helper and a stamping that is unavailable (503)', async () => {
    const body = {
      cliente: { empresa: 'Facturas SA', fiscal: { country: 'MX', tax_id: 'FLT010101AB1' } },
      items: [{ descripcion: 'Servicio', cantidad: 2, precio_unitario: 1000 }],
    };
    const invoice = await data('POST', '/facturas', '/facturas', { body });
    const id = `/facturas/${invoice.id}`;
    for (const action of [
      { action: 'finalize' },
      { action: 'pay', monto: 100 },
      { action: 'credit_note', monto: 100, motivo: 'Descuento' },
      { action: 'send' },
    ]) {
      await data('POST', '/facturas/{id}', id, { body: action });
    }
    await data('GET', '/facturas/{id}', id);
    await call('GET', '/facturas', '/facturas?limit=1');
    await data('POST', '/test_helpers/fiscal', '/test_helpers/fiscal', { body: { result: 'unavailable' } });
    const second = await data('POST', '/facturas', '/facturas', { body });
    const refused = await call('POST', '/facturas/{id}', `/facturas/${second.id}`, {
      body: { action: 'finalize' },
    });
    expect(refused.body.code).toBe('fiscal_unavailable');
    await data('POST', '/test_helpers/facturas/{id}', `/test_helpers/facturas/${invoice.id}`, {
      body: { action: 'overdue' },
    });
  });

  it('match setup plans, clients, products, events and the outbox', async () => {
    const plan = await data('POST', '/setup/plans', '/setup/plans', {
      body: {
        productos: [{ sku: 'ESQ-1', nombre: 'Esquema', unidad: 'servicio', precio_lista: 10, moneda: 'MXN' }],
      },
    });
    await data('GET', '/setup/plans/{id}', `/setup/plans/${plan.id}`);
    const client = await data('POST', '/clientes', '/clientes', {
      body: { empresa: 'Cliente Esquema', email: 'hola@esquema.example' },
    });
    await call('GET', '/clientes', '/clientes?limit=2');
    await data('GET', '/clientes/{id}', `/clientes/${client.id}`);
    await data('PATCH', '/clientes/{id}', `/clientes/${client.id}`, {
      body: { telefono: '+52 55 1234 5678' },
    });
    await data('DELETE', '/clientes/{id}', `/clientes/${client.id}`);
    const product = await data('POST', '/productos', '/productos', {
      body: { sku: 'ESQ-2', nombre: 'Esquema 2', unidad: 'pieza', precio_lista: 100 },
    });
    await call('GET', '/productos', '/productos?limit=2');
    await data('GET', '/productos/{id}', `/productos/${product.id}`);
    await data('PATCH', '/productos/{id}', `/productos/${product.id}`, { body: { precio_lista: 120 } });
    await data('DELETE', '/productos/{id}', `/productos/${product.id}`);
    const events = await call('GET', '/events', '/events?limit=10');
    expect(events.body.meta.next_cursor).toEqual(expect.any(String));
    await call('GET', '/events', `/events?cursor=${events.body.meta.next_cursor}`);
    await call('GET', '/emails', '/emails?limit=5');
  });

  it('match webhook endpoints, a real delivery in the log, its retry and listen sessions', async () => {
    let received = 0;
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received++;
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      const endpoint = await data('POST', '/webhooks', '/webhooks', { body: { url, eventos: ['ping'] } });
      await data('GET', '/webhooks', '/webhooks');
      const id = `/webhooks/${endpoint.id}`;
      await data('POST', '/webhooks/{id}/rotate_secret', `${id}/rotate_secret`, {
        body: { overlap_hours: 1 },
      });
      await call('POST', '/webhooks/{id}/reactivate', `${id}/reactivate`, { body: {} }); // active: 409
      await t.db.query(`UPDATE webhook_endpoints SET status = 'disabled' WHERE id = $1`, [endpoint.id]);
      await data('POST', '/webhooks/{id}/reactivate', `${id}/reactivate`, { body: {} });
      const fired = await data('POST', '/test_helpers/webhooks', '/test_helpers/webhooks', {
        body: { webhook_id: endpoint.id },
      });
      const worker = new DeliveryWorker({
        db: t.db,
        logger: t.deps.logger,
        now: () => new Date(Date.now() + 60_000),
        publicUrl: 'http://svc.test',
        allowLoopback: true,
      });
      for (let i = 0; i < 100 && received === 0; i++) {
        await worker.tick();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await worker.stop();
      const log = await data('GET', '/webhooks/{id}/deliveries', `${id}/deliveries`);
      expect(log).toEqual([expect.objectContaining({ job_id: fired.job_id, ok: true })]);
      await data('POST', '/webhooks/{id}/deliveries/{job}/retry', `${id}/deliveries/${fired.job_id}/retry`);
      await data('DELETE', '/webhooks/{id}', id);
      await call('POST', '/test_helpers/webhooks', '/test_helpers/webhooks', {
        body: { webhook_id: endpoint.id },
      });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    const session = await data('POST', '/test_helpers/listen', '/test_helpers/listen');
    await data('POST', '/tareas', '/tareas', { body: { titulo: 'Un evento para la sesión' } });
    const collected = await data('GET', '/test_helpers/listen/{id}', `/test_helpers/listen/${session.id}`);
    expect(collected.length).toBeGreaterThan(0);
    await data('DELETE', '/test_helpers/listen/{id}', `/test_helpers/listen/${session.id}`);
  });

  it("match the widget's configuration and preview, and its rate limit (429 with Retry-After)", async () => {
    await data('GET', '/elements/config', '/elements/config', { key: pk, headers: widget });
    const lap = t.seed.products.find((p) => p.sku === 'LAP-14')!.id;
    const basket = {
      items: [{ descripcion: 'Laptop', cantidad: 1, precio_unitario: 24500, producto_id: lap }],
    };
    const ip = { ...widget, 'x-forwarded-for': '203.0.113.77' };
    await data('POST', '/elements/preview', '/elements/preview', {
      key: pk,
      headers: ip,
      body: { ...basket, cupon: 'BIENVENIDA10' },
    });
    for (let i = 0; i < 10; i++) {
      await data('POST', '/elements/preview', '/elements/preview', {
        key: pk,
        headers: ip,
        body: { ...basket, cupon: `NOPE${i}` },
      });
    }
    const limited = await call('POST', '/elements/preview', '/elements/preview', {
      key: pk,
      headers: ip,
      body: { ...basket, cupon: 'BIENVENIDA10' },
    });
    expect(limited.status).toBe(429);
    // Another origin, a publishable key outside its operations.
    expect(
      (
        await call('GET', '/elements/config', '/elements/config', {
          key: pk,
          headers: { origin: 'https://elsewhere.example' },
        })
      ).status,
    ).toBe(403);
    expect((await call('GET', '/cotizaciones', '/cotizaciones', { key: pk, headers: widget })).status).toBe(
      403,
    );
  });

  it('match collections, tasks and workflows', async () => {
    await call('GET', '/cobranza', '/cobranza?limit=5');
    const task = await data('POST', '/tareas', '/tareas', {
      body: { titulo: 'Llamar al cliente', due_date: '2099-01-31' },
    });
    await call('GET', '/tareas', '/tareas?limit=5');
    await data('GET', '/tareas/{id}', `/tareas/${task.id}`);
    await data('POST', '/tareas/{id}', `/tareas/${task.id}`, { body: { action: 'complete' } });
    expect(
      (await call('POST', '/tareas/{id}', `/tareas/${task.id}`, { body: { action: 'complete' } })).status,
    ).toBe(409);
    const workflows = await call('GET', '/workflows', '/workflows');
    const seguimiento = workflows.body.data.find((w: Json) => w.nombre === 'seguimiento');
    const quotes = await call('GET', '/cotizaciones', '/cotizaciones?status=viewed');
    const run = await data('POST', '/workflows/{id}/invoke', `/workflows/${seguimiento.id}/invoke`, {
      body: { ids: [quotes.body.data[0].id, '00000000-0000-4000-8000-000000000000'] },
    });
    expect(run.resultados.map((r: Json) => r.ok)).toEqual([true, false]);
  });

  it('match the errors a write can meet: 400, 401, 402, 413 and 422', async () => {
    expect((await call('GET', '/me', '/me', { key: '' })).status).toBe(401);
    expect((await call('POST', '/clientes', '/clientes', { body: { empresa: '' } })).status).toBe(400);
    const big = { empresa: 'x'.repeat(70_000) };
    expect((await call('POST', '/clientes', '/clientes', { body: big })).status).toBe(413);
    const once = { 'idempotency-key': 'esquema-1' };
    await data('POST', '/clientes', '/clientes', { body: { empresa: 'Una vez' }, headers: once });
    expect(
      (await call('POST', '/clientes', '/clientes', { body: { empresa: 'Otra' }, headers: once })).status,
    ).toBe(422);
    // The free organization's 51st client.
    const free = t.seed.free_org.keys.sk_test_write;
    let answer: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 51; i++) {
      answer = await call('POST', '/clientes', '/clientes', { key: free, body: { empresa: `Cliente ${i}` } });
      if (answer.status !== 200) break;
    }
    expect(answer).toMatchObject({ status: 402, body: { code: 'plan_limit_reached', resource: 'clients' } });
  });

  it('match who the key is, and the reset of test data', async () => {
    await data('GET', '/me', '/me');
    await data('POST', '/api/test-mode/reset', '/api/test-mode/reset');
    expect(
      (await call('POST', '/api/test-mode/reset', '/api/test-mode/reset', { key: t.seed.keys.sk_live_write }))
        .status,
    ).toBe(409);
  });

  it('were all checked against a real answer', () => {
    const expected = OPERATIONS.filter((op) => !op.stream).map(
      (op) => `${op.method.toUpperCase()} ${op.path}`,
    );
    expect(expected.filter((op) => !checked.has(op))).toEqual([]);
  });
});
