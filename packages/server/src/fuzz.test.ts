import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from './testing/harness.js';

/**
 * Property-based fuzzing of every endpoint's body, query and headers: whatever arrives, the
 * answer is never a 5xx, errors always have the flat `{ error, code }` body, and a 4xx writes
 * nothing.
 */
let t: TestContext;
let quoteId: string;
let clientId: string;
let invoiceId: string;
const ORIGIN = { origin: 'http://127.0.0.1:8787' };

beforeAll(async () => {
  // Thousands of requests with one key: the per-minute limit would answer them all 429.
  t = await createTestContext({ env: { SVC_KEY_RATE_LIMIT: '1000000' } });
  const res = await t.call('POST', '/api/v1/cotizaciones', {
    key: t.seed.keys.sk_test_write,
    body: { items: [{ descripcion: 'x', cantidad: 1, precio_unitario: 1 }], cliente: { empresa: 'Fuzz' } },
  });
  quoteId = ((await res.json()) as { data: { id: string } }).data.id;
  const detail = (await (
    await t.call('GET', `/api/v1/cotizaciones/${quoteId}`, { key: t.seed.keys.sk_test_write })
  ).json()) as { data: { cliente_id: string } };
  clientId = detail.data.cliente_id;
  const invoice = await t.call('POST', '/api/v1/facturas', {
    key: t.seed.keys.sk_test_write,
    body: { items: [{ descripcion: 'x', cantidad: 1, precio_unitario: 1e9 }], cliente: { empresa: 'Fuzz' } },
  });
  invoiceId = ((await invoice.json()) as { data: { id: string } }).data.id;
  await t.call('POST', `/api/v1/facturas/${invoiceId}`, {
    key: t.seed.keys.sk_test_write,
    body: { action: 'finalize' },
  });
  gettingPaid = await gettingPaidTargets();
});

/** Getting paid (design.md sections 12 and 13): an approved quote, a task and a workflow to fuzz. */
let gettingPaid: { approvedId: string; taskId: string; workflowId: string };
async function gettingPaidTargets() {
  const key = t.seed.keys.sk_test_write;
  const json = async (method: string, path: string, body?: unknown) =>
    ((await (await t.call(method, `/api/v1${path}`, { key, body })).json()) as { data: Record<string, any> })
      .data;
  const quote = await json('POST', '/cotizaciones', {
    items: [{ descripcion: 'x', cantidad: 1, precio_unitario: 1000 }],
    cliente: { empresa: 'Fuzz' },
    send: true,
  });
  await json('POST', `/cotizaciones/${quote.id}`, { action: 'approve' });
  const task = await json('POST', '/tareas', { titulo: 'Fuzz' });
  const workflows = (await (await t.call('GET', '/api/v1/workflows', { key })).json()) as {
    data: { id: string }[];
  };
  return { approvedId: quote.id as string, taskId: task.id as string, workflowId: workflows.data[0]!.id };
}
afterAll(() => t.close());

const counts = async () =>
  (
    await t.db.query<{ n: string }>(
      `SELECT (SELECT count(*) FROM quotes) || '/' || (SELECT count(*) FROM clients) || '/' || (SELECT count(*) FROM products) || '/' ||
              (SELECT count(*) FROM webhook_endpoints) || '/' || (SELECT count(*) FROM events) || '/' || (SELECT sum(uses) FROM coupons) || '/' ||
              (SELECT count(*) FROM invoices) || '/' || (SELECT count(*) FROM invoice_payments) || '/' || (SELECT count(*) FROM credit_notes) || '/' ||
              (SELECT count(*) FROM quote_messages) AS n`,
    )
  )[0]!.n;

const valid = {
  quote: {
    items: [{ descripcion: 'Laptop', cantidad: 1, precio_unitario: 100 }],
    cliente: { empresa: 'Acme' },
    cupon: 'BIENVENIDA10',
  },
  client: { empresa: 'Acme', email: 'a@b.example' },
  product: { sku: 'FZ-1', nombre: 'Fuzz', precio_lista: 1 },
  webhook: { url: 'https://hooks.example.com/x' },
  action: { action: 'send' },
  preview: { items: [{ descripcion: 'Laptop', cantidad: 1, precio_unitario: 100 }] },
};

/** A valid body with one value somewhere replaced by anything (or a key added). */
const mutated = (base: Record<string, unknown>) =>
  fc
    .tuple(fc.jsonValue(), fc.nat(), fc.boolean(), fc.string({ maxLength: 12 }))
    .map(([value, pick, addKey, key]) => {
      const copy = JSON.parse(JSON.stringify(base)) as Record<string, unknown>;
      const paths: (string | number)[][] = [];
      const walk = (node: unknown, path: (string | number)[]) => {
        paths.push(path);
        if (node && typeof node === 'object')
          for (const [k, v] of Object.entries(node)) walk(v, [...path, Array.isArray(node) ? Number(k) : k]);
      };
      walk(copy, []);
      const path = paths[pick % paths.length]!;
      if (path.length === 0) return addKey ? { ...copy, [key]: value } : value;
      let parent = copy as Record<string | number, unknown>;
      for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
      const last = path[path.length - 1]!;
      if (addKey && parent[last] && typeof parent[last] === 'object' && !Array.isArray(parent[last]))
        (parent[last] as Record<string, unknown>)[key] = value;
      else parent[last] = value;
      return copy;
    });

const targets = () => [
  { method: 'POST', path: '/api/v1/cotizaciones', key: t.seed.keys.sk_test_write, base: valid.quote },
  {
    method: 'POST',
    path: '/api/v1/cotizaciones',
    key: t.seed.keys.pk_test,
    base: valid.quote,
    headers: ORIGIN,
  },
  {
    method: 'POST',
    path: '/api/v1/elements/preview',
    key: t.seed.keys.pk_test,
    base: valid.preview,
    headers: ORIGIN,
  },
  { method: 'POST', path: '/api/v1/clientes', key: t.seed.keys.sk_test_write, base: valid.client },
  {
    method: 'PATCH',
    path: `/api/v1/clientes/${clientId}`,
    key: t.seed.keys.sk_test_write,
    base: { contacto: 'x' },
  },
  { method: 'POST', path: '/api/v1/productos', key: t.seed.keys.sk_test_write, base: valid.product },
  { method: 'POST', path: '/api/v1/webhooks', key: t.seed.keys.sk_test_write, base: valid.webhook },
  {
    method: 'POST',
    path: `/api/v1/cotizaciones/${quoteId}`,
    key: t.seed.keys.sk_test_write,
    base: valid.action,
  },
  {
    method: 'POST',
    path: '/api/v1/facturas',
    key: t.seed.keys.sk_test_write,
    base: { ...valid.quote, cupon: undefined, vence: '2099-12-31', metodo_pago: 'PPD' },
  },
  {
    method: 'POST',
    path: `/api/v1/facturas/${invoiceId}`,
    key: t.seed.keys.sk_test_write,
    base: { action: 'pay', monto: 1, metodo: 'efectivo', referencia: 'R-1' },
  },
  {
    method: 'POST',
    path: '/api/v1/cotizaciones/ia',
    key: t.seed.keys.sk_test_write,
    base: { prompt: 'tres laptops' },
  },
  {
    method: 'POST',
    path: `/api/v1/cotizaciones/${gettingPaid.approvedId}`,
    key: t.seed.keys.sk_test_write,
    base: { action: 'pay', monto: 0.01, payment_method: 'efectivo', fecha: '2026-01-31' },
  },
  {
    method: 'POST',
    path: `/api/v1/cotizaciones/${gettingPaid.approvedId}`,
    key: t.seed.keys.sk_test_write,
    base: { action: 'promise', fecha_promesa: '2099-01-31', monto: 1 },
  },
  {
    method: 'POST',
    path: `/api/v1/cotizaciones/${gettingPaid.approvedId}`,
    key: t.seed.keys.sk_test_write,
    base: { action: 'comment', mensaje: 'hola' },
  },
  {
    method: 'POST',
    path: '/api/v1/tareas',
    key: t.seed.keys.sk_test_write,
    base: { titulo: 'x', due_date: '2026-12-01' },
  },
  {
    method: 'POST',
    path: `/api/v1/tareas/${gettingPaid.taskId}`,
    key: t.seed.keys.sk_test_write,
    base: { action: 'complete' },
  },
  {
    method: 'POST',
    path: `/api/v1/workflows/${gettingPaid.workflowId}/invoke`,
    key: t.seed.keys.sk_test_write,
    base: { ids: [gettingPaid.approvedId] },
  },
];

async function check(res: Response, before: string) {
  expect(res.status).toBeLessThan(500);
  if (res.status >= 400) {
    const body = (await res.json()) as Record<string, unknown>;
    expect(typeof body.error).toBe('string');
    expect(typeof body.code).toBe('string');
    expect(await counts()).toBe(before);
  } else {
    await res.arrayBuffer();
  }
}

describe('fuzzing', () => {
  it('answers mutated bodies of every write endpoint with a 2xx or a clean 4xx that writes nothing', async () => {
    for (const target of targets()) {
      await fc.assert(
        fc.asyncProperty(mutated(target.base), async (body) => {
          const before = await counts();
          const res = await t.call(target.method, target.path, {
            key: target.key,
            body,
            headers: { ...target.headers, 'x-forwarded-for': `198.18.${Math.floor(Math.random() * 250)}.1` },
          });
          await check(res, before);
        }),
        { numRuns: 150 },
      );
    }
  });

  it('answers raw bytes, wrong content types and odd headers without a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 200 }),
        fc.constantFrom(
          'application/json',
          'text/plain',
          '',
          'application/json; charset=latin1',
          'multipart/form-data',
        ),
        fc.option(fc.string({ maxLength: 300 }), { nil: undefined }),
        fc.option(fc.string({ maxLength: 50 }), { nil: undefined }),
        async (bytes, type, idempotencyKey, version) => {
          const headers: Record<string, string> = { authorization: `Bearer ${t.seed.keys.sk_test_write}` };
          if (type) headers['content-type'] = type;
          const safe = (s: string) => s.replace(/[^\x20-\x7e]/g, '');
          if (idempotencyKey !== undefined) headers['idempotency-key'] = safe(idempotencyKey);
          if (version !== undefined) headers['service-version'] = safe(version);
          const before = await counts();
          const res = await t.app.request('/api/v1/cotizaciones', { method: 'POST', headers, body: bytes });
          await check(res, before);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('answers arbitrary query strings on every list without a 5xx', async () => {
    const lists = [
      '/api/v1/cotizaciones',
      '/api/v1/events',
      '/api/v1/clientes',
      '/api/v1/productos',
      '/api/v1/emails',
      '/api/v1/webhooks',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...lists),
        fc.dictionary(
          fc.constantFrom(
            'limit',
            'offset',
            'cursor',
            'status',
            'folio',
            'cliente_id',
            'type',
            'object_id',
            'x',
          ),
          fc.string({ maxLength: 30 }),
        ),
        async (path, params) => {
          const query = new URLSearchParams(params).toString();
          const res = await t.call('GET', `${path}?${query}`, { key: t.seed.keys.sk_test_read });
          expect(res.status).toBeLessThan(500);
          if (res.status >= 400)
            expect(((await res.json()) as { code: string }).code).toBe('invalid_request');
          else await res.arrayBuffer();
        },
      ),
      { numRuns: 600 },
    );
  });

  it('answers SQL-looking input as data, never as SQL', async () => {
    const injections = [
      "'; DROP TABLE quotes; --",
      "' OR '1'='1",
      '"); DELETE FROM clients; --',
      '\\x00',
      '1; SELECT pg_sleep(5)',
    ];
    for (const text of injections) {
      for (const res of [
        await t.call('GET', `/api/v1/cotizaciones?folio=${encodeURIComponent(text)}`, {
          key: t.seed.keys.sk_test_read,
        }),
        await t.call('GET', `/api/v1/cotizaciones/${encodeURIComponent(text)}`, {
          key: t.seed.keys.sk_test_read,
        }),
        await t.call('POST', '/api/v1/clientes', {
          key: t.seed.keys.sk_test_write,
          body: { empresa: text, contacto: text },
        }),
        await t.call('POST', '/api/v1/elements/preview', {
          key: t.seed.keys.pk_test,
          headers: ORIGIN,
          body: { ...valid.preview, cupon: text },
        }),
      ]) {
        expect(res.status).toBeLessThan(500);
      }
    }
    const [row] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM clients WHERE empresa = $1`,
      [injections[0]],
    );
    expect(row?.n).toBe(1);
    expect((await t.db.query('SELECT 1 FROM quotes LIMIT 1')).length).toBe(1);
  });
});
