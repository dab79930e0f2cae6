import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { receivablesVersion } from '../repositories/collections.js';
import { createApiKey } from '../services/api-keys.js';
import { expectError } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';

let t: TestContext;
let sk: string;
type Json = Record<string, any>;
const call = async (method: string, path: string, body?: unknown, key = sk) => {
  const res = await t.call(method, `/api/v1${path}`, { key, body });
  return { res, body: (await res.clone().json()) as Json };
};
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

/**
 * An approved quote of `amount` (no tax) for `empresa`, approved `age` days ago, with `terminos`
 * as the client's payment terms; `paid` of it paid.
 */
async function approved(empresa: string, amount: number, age: number, extra: Json = {}, paid = 0) {
  const created = await call('POST', '/cotizaciones', {
    items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: amount, tax_rate: 0 }],
    cliente: { empresa, email: `${empresa.toLowerCase().replaceAll(' ', '')}@example.com` },
    ...extra,
  });
  const id = created.body.data.id as string;
  await call('POST', `/cotizaciones/${id}`, { action: 'send' });
  await call('POST', `/cotizaciones/${id}`, { action: 'approve' });
  if (paid > 0) await call('POST', `/cotizaciones/${id}`, { action: 'pay', monto: paid });
  await t.db.query('UPDATE quotes SET approved_at = $2 WHERE id = $1', [id, daysAgo(age)]);
  const [row] = await t.db.query<{ cliente_id: string }>('SELECT cliente_id FROM quotes WHERE id = $1', [id]);
  return { id, clienteId: row!.cliente_id };
}

let alfa: string;
let beta: string;
let gamma: string;
beforeAll(async () => {
  t = await createTestContext();
  sk = t.seed.keys.sk_test_write;
  // Alfa: 100 due today (current), 200 five days overdue, 300 forty days overdue, 400 a hundred.
  alfa = (await approved('Alfa', 100, 0)).clienteId;
  await approved('Alfa', 200, 5);
  await approved('Alfa', 300, 40);
  await approved('Alfa', 400, 100, {}, 150);
  // Beta: a larger balance, all current, net30 terms: approved 20 days ago is not due yet.
  beta = (await approved('Beta', 5000, 20, { terminos: 'net30' })).clienteId;
  // Gamma: USD, 70 days overdue, with a pending promise.
  const g = await approved('Gamma', 50, 70, { base_currency: 'USD' });
  gamma = g.clienteId;
  const today = new Date().toISOString().slice(0, 10);
  await call('POST', `/cotizaciones/${g.id}`, { action: 'promise', fecha_promesa: today, monto: 10 });
  // Not receivable: a paid quote, a sent one, a draft.
  const paid = await approved('Delta', 80, 10);
  await call('POST', `/cotizaciones/${paid.id}`, { action: 'pay', monto: 80 });
  await approved('Alfa', 1, 0); // paid outside the service below
  await t.db.query(`UPDATE quotes SET status = 'paid' WHERE total = 1`);
  const sent = await call('POST', '/cotizaciones', {
    items: [{ descripcion: 'X', cantidad: 1, precio_unitario: 999, tax_rate: 0 }],
    cliente: { empresa: 'Epsilon' },
    send: true,
  });
  expect(sent.res.status).toBe(200);
});
afterAll(() => t.close());

describe('GET /cobranza', () => {
  it('ages receivables per currency, never converted, with buckets adding up', async () => {
    const { res, body } = await call('GET', '/cobranza');
    expect(res.status).toBe(200);
    expect(body.data.as_of).toBe(new Date().toISOString().slice(0, 10));
    expect(body.data.monedas).toEqual([
      {
        moneda: 'MXN',
        por_cobrar: 100 + 200 + 300 + 250 + 5000,
        vencido: 200 + 300 + 250,
        antiguedad: { al_corriente: 5100, d1_30: 200, d31_60: 300, d61_90: 0, mas_90: 250 },
      },
      {
        moneda: 'USD',
        por_cobrar: 50,
        vencido: 50,
        antiguedad: { al_corriente: 0, d1_30: 0, d31_60: 0, d61_90: 50, mas_90: 0 },
      },
    ]);
    for (const m of body.data.monedas) {
      const sum = Object.values(m.antiguedad as Record<string, number>).reduce((a, b) => a + b, 0);
      expect(sum).toBe(m.por_cobrar);
    }
  });

  it('orders clients by overdue, then balance, descending, with their documents', async () => {
    const { body } = await call('GET', '/cobranza');
    expect(body.data.clientes.map((c: Json) => [c.cliente, c.moneda])).toEqual([
      ['Alfa', 'MXN'],
      ['Gamma', 'USD'],
      ['Beta', 'MXN'],
    ]);
    const [a, g, b] = body.data.clientes;
    expect(a).toEqual({
      cliente_id: alfa,
      cliente: 'Alfa',
      moneda: 'MXN',
      saldo: 850,
      vencido: 750,
      documentos: 4,
      vencimiento_mas_antiguo: daysAgo(100).slice(0, 10),
      promesa_pendiente: false,
    });
    expect(g).toMatchObject({ cliente_id: gamma, saldo: 50, vencido: 50, promesa_pendiente: true });
    expect(b).toMatchObject({ cliente_id: beta, saldo: 5000, vencido: 0, documentos: 1 });
    expect(body.meta).toEqual({ limit: 20, offset: 0, total: 3 });
  });

  it('pages with limit and offset and filters by cliente_id and moneda', async () => {
    const second = (await call('GET', '/cobranza?limit=1&offset=1')).body;
    expect(second.data.clientes.map((c: Json) => c.cliente)).toEqual(['Gamma']);
    expect(second.meta).toEqual({ limit: 1, offset: 1, total: 3 });
    // The currency totals are the whole book's, not the page's.
    expect(second.data.monedas).toHaveLength(2);
    const usd = (await call('GET', '/cobranza?moneda=USD')).body;
    expect(usd.data.monedas.map((m: Json) => m.moneda)).toEqual(['USD']);
    expect(usd.data.clientes.map((c: Json) => c.cliente)).toEqual(['Gamma']);
    const beta1 = (await call('GET', `/cobranza?cliente_id=${beta}`)).body;
    expect(beta1.data.monedas[0]).toMatchObject({ moneda: 'MXN', por_cobrar: 5000, vencido: 0 });
    expect(beta1.meta.total).toBe(1);
  });

  it('serves the report again from memory only while the book is unchanged', async () => {
    const saldo = async () =>
      ((await call('GET', `/cobranza?cliente_id=${beta}`)).body.data.clientes[0]?.saldo as number) ?? 0;
    expect(await saldo()).toBe(5000);
    const [quote] = await t.db.query<{ id: string }>(`SELECT id FROM quotes WHERE cliente_id = $1`, [beta]);
    await call('POST', `/cotizaciones/${quote!.id}`, { action: 'pay', monto: 1000 });
    expect(await saldo()).toBe(4000);
    await call('PATCH', `/clientes/${beta}`, { empresa: 'Beta Renombrada' });
    expect((await call('GET', `/cobranza?cliente_id=${beta}`)).body.data.clientes[0].cliente).toBe(
      'Beta Renombrada',
    );
    const today = new Date().toISOString().slice(0, 10);
    await call('POST', `/cotizaciones/${quote!.id}`, { action: 'promise', fecha_promesa: today, monto: 5 });
    expect((await call('GET', `/cobranza?cliente_id=${beta}`)).body.data.clientes[0].promesa_pendiente).toBe(
      true,
    );
    await call('POST', `/cotizaciones/${quote!.id}`, { action: 'mark_paid' });
    expect(await saldo()).toBe(0);
  });

  it('counts open and uncollectible invoices by their vence, owing what payments and credit notes left', async () => {
    const invoice = async (dias_credito = 0) => {
      const created = await call('POST', '/facturas', {
        cliente: { empresa: 'Omega', email: 'omega@example.com' },
        items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 1000 }], // 1,160 with IVA
        dias_credito,
      });
      expect(created.res.status, JSON.stringify(created.body)).toBe(200);
      return created.body.data as Json;
    };
    const act = (id: string, body: Json) => call('POST', `/facturas/${id}`, body);
    const dueDaysAgo = (id: string, days: number) =>
      t.db.query('UPDATE invoices SET vence = current_date - $2::int WHERE id = $1', [id, days]);
    // 45 days overdue, 160 paid and 100 credited: 900 in 31–60.
    const partly = await invoice();
    await act(partly.id, { action: 'finalize' });
    await act(partly.id, { action: 'pay', monto: 160 });
    await act(partly.id, { action: 'credit_note', monto: 100, motivo: 'Descuento por retraso' });
    await dueDaysAgo(partly.id, 45);
    // Due in 10 days: current.
    const current = await invoice(10);
    await act(current.id, { action: 'finalize' });
    // Uncollectible, 200 days overdue: still owed, in more than 90.
    const lost = await invoice();
    await act(lost.id, { action: 'finalize' });
    await dueDaysAgo(lost.id, 200);
    await act(lost.id, { action: 'mark_uncollectible' });
    // Not receivable: a draft, a voided invoice, a paid one.
    await invoice();
    const voided = await invoice();
    await act(voided.id, { action: 'finalize' });
    await act(voided.id, { action: 'void' });
    const paid = await invoice();
    await act(paid.id, { action: 'finalize' });
    await act(paid.id, { action: 'pay', monto: 1160 });

    const omega = (await call('GET', `/cobranza?cliente_id=${partly.cliente_id}`)).body.data;
    expect(omega.monedas).toEqual([
      {
        moneda: 'MXN',
        por_cobrar: 3220,
        vencido: 2060,
        antiguedad: { al_corriente: 1160, d1_30: 0, d31_60: 900, d61_90: 0, mas_90: 1160 },
      },
    ]);
    const oldest = new Date(Date.now() - 200 * 86_400_000).toISOString().slice(0, 10);
    expect(omega.clientes).toEqual([
      expect.objectContaining({
        cliente: 'Omega',
        saldo: 3220,
        vencido: 2060,
        documentos: 3,
        vencimiento_mas_antiguo: oldest,
      }),
    ]);
    // A payment on any of them moves the book: the next report is computed again.
    await act(current.id, { action: 'pay', monto: 1000 });
    const after = (await call('GET', `/cobranza?cliente_id=${partly.cliente_id}`)).body.data;
    expect(after.monedas[0].por_cobrar).toBe(2220);
    expect(after.monedas[0].antiguedad.al_corriente).toBe(160);
  });

  it("moves the book's version for what the report reads of an invoice, not for the overdue job's stamp", async () => {
    const created = await call('POST', '/facturas', {
      cliente: { empresa: 'Sigma', email: 'sigma@example.com' },
      items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 1000 }],
      dias_credito: 0,
    });
    const id = created.body.data.id as string;
    await call('POST', `/facturas/${id}`, { action: 'finalize' });
    const scope = { orgId: t.seed.org.id, mode: 'test' };
    const before = await receivablesVersion(t.db, scope);
    // The overdue job stamps overdue_at (and writes an event and an e-mail): the book is the same.
    expect((await call('POST', `/test_helpers/facturas/${id}`, { action: 'overdue' })).res.status).toBe(200);
    const [stamped] = await t.db.query<{ overdue_at: string | null; vence: string }>(
      'SELECT overdue_at, vence FROM invoices WHERE id = $1',
      [id],
    );
    expect(stamped!.overdue_at).not.toBeNull();
    // The helper moved vence to yesterday, which the report reads: one move for that, none for the stamp.
    const afterOverdue = await receivablesVersion(t.db, scope);
    await t.db.query('UPDATE invoices SET overdue_at = now() WHERE id = $1', [id]);
    expect(await receivablesVersion(t.db, scope)).toBe(afterOverdue);
    expect(afterOverdue).toBeGreaterThan(before);
    await call('POST', `/facturas/${id}`, { action: 'pay', monto: 100 });
    expect(await receivablesVersion(t.db, scope)).toBeGreaterThan(afterOverdue);
  });

  it('keeps test and live books apart', async () => {
    const live = (await call('GET', '/cobranza', undefined, t.seed.keys.sk_live_write)).body;
    expect(live.data).toMatchObject({ monedas: [], clientes: [] });
    expect(live.meta.total).toBe(0);
  });

  it.each([['limit=0'], ['limit=201'], ['offset=-1'], ['moneda=pesos'], ['cliente_id=x'], ['estado=open']])(
    'refuses ?%s with 400',
    async (query) => {
      await expectError((await call('GET', `/cobranza?${query}`)).res, 400, 'invalid_request');
    },
  );

  it('is the restricted resource cobranza, read only', async () => {
    const { key } = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'restricted',
      mode: 'test',
      scope: 'read',
      permissions: { cobranza: 'read' },
    });
    expect((await call('GET', '/cobranza', undefined, key)).res.status).toBe(200);
    const other = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'restricted',
      mode: 'test',
      scope: 'read',
      permissions: { cotizaciones: 'read' },
    });
    await expectError((await call('GET', '/cobranza', undefined, other.key)).res, 403, 'insufficient_scope');
  });

  it('computes a stale report once for the requests that find it stale together', async () => {
    const before = (await call('GET', '/cobranza')).body.data.monedas as Json[];
    const mxn = (monedas: Json[]) => monedas.find((m) => m.moneda === 'MXN')?.por_cobrar as number;
    await approved('Omega', 70, 3);
    const query = vi.spyOn(t.db, 'query');
    const answers = await Promise.all(Array.from({ length: 8 }, () => call('GET', '/cobranza')));
    const computed = query.mock.calls.filter(([sql]) => sql.includes('per_client AS MATERIALIZED')).length;
    query.mockRestore();
    expect(computed).toBe(1);
    for (const { res, body } of answers) {
      expect(res.status).toBe(200);
      expect(mxn(body.data.monedas)).toBe(mxn(before) + 70);
    }
  });
});
