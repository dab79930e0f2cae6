import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../testing/harness.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
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
