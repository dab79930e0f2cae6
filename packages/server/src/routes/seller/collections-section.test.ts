import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../testing/harness.js';

let t: TestContext;
let sk: string;
beforeAll(async () => {
  t = await createTestContext({ sellerPage: true });
  sk = t.seed.keys.sk_test_write;
});
afterAll(() => t.close());

type Json = Record<string, any>;
const api = async (method: string, path: string, body?: unknown) =>
  ((await (await t.call(method, `/api/v1${path}`, { key: sk, body })).json()) as { data: Json }).data;
const page = async () => (await t.app.request('/demo/seller')).text();

describe('seller page: collections section', () => {
  it('shows receivables with an SVG aging chart, pending tasks and a button per workflow', async () => {
    const quote = await api('POST', '/cotizaciones', {
      items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 1000 }],
      cliente: { empresa: 'Cartera SA' },
      send: true,
    });
    await api('POST', `/cotizaciones/${quote.id}`, { action: 'approve' });
    await api('POST', '/tareas', { titulo: 'Cobrar a Cartera SA', due_date: '2026-12-24' });
    const text = await page();
    expect(text).toContain('id="cobranza"');
    expect(text).toMatch(/<svg class="aging"[^>]*role="img"/);
    expect(text.match(/<rect /g)).toHaveLength(5);
    expect(text).toContain('Cartera SA');
    expect(text).toContain('Cobrar a Cartera SA');
    for (const name of ['seguimiento', 'recordatorio_cobro', 'incobrables'])
      expect(text).toContain(`>${name}</button>`);
    expect(text).not.toContain('sk_test_');
  });

  it('completes a task from its button and refuses a cross-site post', async () => {
    const task = await api('POST', '/tareas', { titulo: 'Llamar' });
    const path = `/demo/seller/tareas/${task.id}/complete`;
    const foreign = await t.app.request(path, {
      method: 'POST',
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(foreign.status).toBe(403);
    expect((await api('GET', `/tareas/${task.id}`)).done).toBe(false);
    const res = await t.app.request(path, { method: 'POST', headers: { 'sec-fetch-site': 'same-origin' } });
    expect(res.status).toBe(303);
    expect((await api('GET', `/tareas/${task.id}`)).done).toBe(true);
  });

  it('refuses a cross-site post of a quote or invoice action, changing nothing', async () => {
    const quote = await api('POST', '/cotizaciones', {
      items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 10 }],
      cliente: { empresa: 'Ajena SA' },
    });
    const invoice = await api('POST', '/facturas', {
      items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 10 }],
      cliente: { empresa: 'Ajena SA' },
    });
    const post = (path: string, site: string) =>
      t.app.request(path, { method: 'POST', headers: { 'sec-fetch-site': site } });
    expect((await post(`/demo/seller/${quote.id}/send`, 'cross-site')).status).toBe(403);
    expect((await post(`/demo/seller/facturas/${invoice.id}/finalize`, 'cross-site')).status).toBe(403);
    expect((await api('GET', `/cotizaciones/${quote.id}`)).status).toBe('draft');
    expect((await api('GET', `/facturas/${invoice.id}`)).estado).toBe('draft');
    expect((await post(`/demo/seller/${quote.id}/send`, 'same-origin')).status).toBe(200);
    expect((await api('GET', `/cotizaciones/${quote.id}`)).status).toBe('sent');
  });

  it('runs a quote workflow on the sent quotes from its button', async () => {
    const quote = await api('POST', '/cotizaciones', {
      items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 10 }],
      cliente: { empresa: 'Seguimiento SA' },
      send: true,
    });
    const workflows = (await (await t.call('GET', '/api/v1/workflows', { key: sk })).json()) as {
      data: Json[];
    };
    const seguimiento = workflows.data.find((w) => w.nombre === 'seguimiento')!;
    const res = await t.app.request(`/demo/seller/workflows/${seguimiento.id}`, {
      method: 'POST',
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(res.status).toBe(303);
    const tasks = await api('GET', `/tareas?cotizacion_id=${quote.id}`);
    expect(tasks).toHaveLength(1);
  });
});
