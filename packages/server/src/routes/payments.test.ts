import { classifyPayment, paymentSchedule, planFitsTotal } from '@svc/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { breakDuePromises } from '../services/promises.js';
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
const cliente = { empresa: 'Cobros SA', email: 'pagos@cobros.example' };
/** One line of 1000 at 16 %: total 1160. */
const items = [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 1000 }];

async function post(path: string, body: unknown, key = sk) {
  const res = await t.call('POST', `/api/v1${path}`, { key, body });
  return { res, body: (await res.clone().json()) as Json };
}
const action = (id: string, body: Json) => post(`/cotizaciones/${id}`, body);
const detail = async (id: string) =>
  ((await (await t.call('GET', `/api/v1/cotizaciones/${id}`, { key: sk })).json()) as Json).data;
const events = async (id: string, type: string) =>
  ((await (await t.call('GET', `/api/v1/events?object_id=${id}&type=${type}`, { key: sk })).json()) as Json)
    .data as Json[];

/** A quote created (with `extra`), sent, and approved unless `approve` is false. */
async function quote(extra: Json = {}, { approve = true } = {}): Promise<string> {
  const created = await post('/cotizaciones', { items, cliente, ...extra });
  expect(created.res.status).toBe(200);
  const id = created.body.data.id as string;
  expect((await action(id, { action: 'send' })).res.status).toBe(200);
  if (approve) expect((await action(id, { action: 'approve' })).res.status).toBe(200);
  return id;
}

describe('payment plans (core)', () => {
  it('splits installments equally, the last absorbing the rounding, in minor units', () => {
    expect(paymentSchedule({ tipo: 'cuotas', numero: 3 }, 100, 'MXN').map((s) => s.monto)).toEqual([
      33.33, 33.33, 33.34,
    ]);
    expect(paymentSchedule({ tipo: 'cuotas', numero: 7 }, 1000, 'JPY').map((s) => s.monto)).toEqual([
      142, 142, 142, 142, 142, 142, 148,
    ]);
    expect(paymentSchedule({ tipo: 'anticipo', porcentaje: 33 }, 1160, 'MXN')).toEqual([
      { numero: 1, tipo: 'anticipo', monto: 382.8 },
      { numero: 2, tipo: 'saldo', monto: 777.2 },
    ]);
    expect(paymentSchedule({ tipo: 'contado' }, 1160, 'MXN')).toEqual([
      { numero: 1, tipo: 'saldo', monto: 1160 },
    ]);
  });

  it('fits a total only when every payment is at least one minor unit', () => {
    expect(planFitsTotal({ tipo: 'cuotas', numero: 24 }, 0.1, 'MXN')).toBe(false);
    expect(planFitsTotal({ tipo: 'cuotas', numero: 10 }, 0.1, 'MXN')).toBe(true);
    expect(planFitsTotal({ tipo: 'cuotas', numero: 24 }, 20, 'JPY')).toBe(false);
    expect(planFitsTotal({ tipo: 'anticipo', porcentaje: 1 }, 0.4, 'MXN')).toBe(false);
    expect(planFitsTotal({ tipo: 'anticipo', porcentaje: 99 }, 1, 'MXN')).toBe(true);
    expect(planFitsTotal({ tipo: 'contado' }, 0, 'MXN')).toBe(true);
  });

  it('classifies a payment by what was paid before it', () => {
    const plan = { tipo: 'cuotas', numero: 3 } as const;
    expect(classifyPayment(plan, 300, 0, 'MXN')).toEqual({ tipo: 'cuota', numero_cuota: 1 });
    expect(classifyPayment(plan, 300, 100, 'MXN')).toEqual({ tipo: 'cuota', numero_cuota: 2 });
    expect(classifyPayment(plan, 300, 250, 'MXN')).toEqual({ tipo: 'cuota', numero_cuota: 3 });
    const deposit = { tipo: 'anticipo', porcentaje: 50 } as const;
    expect(classifyPayment(deposit, 300, 0, 'MXN')).toEqual({ tipo: 'anticipo', numero_cuota: null });
    expect(classifyPayment(deposit, 300, 150, 'MXN')).toEqual({ tipo: 'saldo', numero_cuota: null });
  });
});

describe('plan_pagos on create and resend', () => {
  it('defaults to contado and stores the plan given', async () => {
    const cash = await quote({}, { approve: false });
    expect((await detail(cash)).plan_pagos).toEqual({ tipo: 'contado' });
    const deposit = await quote({ plan_pagos: { tipo: 'anticipo', porcentaje: 30 } }, { approve: false });
    const d = await detail(deposit);
    expect(d).toMatchObject({
      plan_pagos: { tipo: 'anticipo', porcentaje: 30 },
      pagado: 0,
      saldo: 1160,
      pagos: [],
      promesas: [],
    });
    expect(d.calendario.map((s: Json) => s.monto)).toEqual([348, 812]);
    const resent = await action(cash, { action: 'resend', plan_pagos: { tipo: 'cuotas', numero: 4 } });
    expect(resent.res.status).toBe(200);
    expect(resent.body.data.plan_pagos).toEqual({ tipo: 'cuotas', numero: 4 });
    expect((await detail(cash)).calendario.map((s: Json) => s.monto)).toEqual([290, 290, 290, 290]);
  });

  it.each([
    [{ tipo: 'anticipo', porcentaje: 0 }],
    [{ tipo: 'anticipo', porcentaje: 100 }],
    [{ tipo: 'anticipo' }],
    [{ tipo: 'cuotas', numero: 1 }],
    [{ tipo: 'cuotas', numero: 25 }],
    [{ tipo: 'cuotas', numero: 2.5 }],
    [{ tipo: 'semanal' }],
    [{ tipo: 'contado', porcentaje: 10 }],
    ['contado'],
  ])('refuses plan_pagos %j with 400 naming it, writing nothing', async (plan) => {
    const before = await t.db.query('SELECT id FROM quotes');
    const res = await t.call('POST', '/api/v1/cotizaciones', {
      key: sk,
      body: { items, cliente, plan_pagos: plan },
    });
    const body = await expectError(res, 400, 'invalid_request');
    expect(body.error).toContain('plan_pagos');
    expect(await t.db.query('SELECT id FROM quotes')).toHaveLength(before.length);
  });

  it('refuses a plan that would ask for a payment of 0 on the total, on create and on resend', async () => {
    const cents = [{ descripcion: 'Muestra', cantidad: 1, precio_unitario: 0.1, tax_rate: 0 }];
    const before = await t.db.query('SELECT id FROM quotes');
    for (const [plan, words] of [
      [{ tipo: 'cuotas', numero: 24 }, '24 installments of a total of 0.1 MXN'],
      [{ tipo: 'anticipo', porcentaje: 1 }, 'a 1 % deposit of a total of 0.1 MXN'],
      [{ tipo: 'anticipo', porcentaje: 99 }, 'a 99 % deposit of a total of 0.1 MXN'],
    ] as const) {
      const res = await t.call('POST', '/api/v1/cotizaciones', {
        key: sk,
        body: { items: cents, cliente, plan_pagos: plan },
      });
      const body = await expectError(res, 400, 'invalid_request');
      expect(body.error).toContain(`plan_pagos: ${words} would ask for a payment of 0`);
    }
    expect(await t.db.query('SELECT id FROM quotes')).toHaveLength(before.length);
    // Ten installments of 0.10 are one centavo each: that fits.
    const fits = await post('/cotizaciones', {
      items: cents,
      cliente,
      plan_pagos: { tipo: 'cuotas', numero: 10 },
    });
    expect(fits.res.status).toBe(200);
    // New lines on resend that leave the plan kept nothing to ask for are refused, nothing changed.
    const id = await quote({ plan_pagos: { tipo: 'cuotas', numero: 12 } }, { approve: false });
    const shrunk = await action(id, { action: 'resend', items: cents });
    expect((await expectError(shrunk.res, 400, 'invalid_request')).error).toContain(
      'plan_pagos: 12 installments of a total of 0.1 MXN',
    );
    expect(await detail(id)).toMatchObject({ total: 1160, plan_pagos: { tipo: 'cuotas', numero: 12 } });
    const both = await action(id, {
      action: 'resend',
      items: cents,
      plan_pagos: { tipo: 'cuotas', numero: 2 },
    });
    expect(both.res.status).toBe(200);
    expect((await detail(id)).calendario.map((s: Json) => s.monto)).toEqual([0.05, 0.05]);
  });

  it('refuses plan_pagos from a publishable key and on actions other than resend', async () => {
    const res = await t.call('POST', '/api/v1/cotizaciones', {
      key: t.seed.keys.pk_test,
      headers: { origin: t.seed.publishable_origins[0] ?? 'http://localhost:5173' },
      body: { items, cliente, plan_pagos: { tipo: 'cuotas', numero: 2 } },
    });
    expect((await expectError(res, 400, 'invalid_request')).error).toContain('plan_pagos');
    const id = await quote({}, { approve: false });
    const approve = await action(id, { action: 'approve', plan_pagos: { tipo: 'contado' } });
    expect((await expectError(approve.res, 400, 'invalid_request')).error).toContain('plan_pagos');
  });
});

describe('quote action pay', () => {
  it('fires payment.partial per installment and quote.paid on the last, with the detail adding up', async () => {
    const id = await quote({ plan_pagos: { tipo: 'cuotas', numero: 3 } });
    const first = await action(id, { action: 'pay', monto: 386.66, payment_method: 'transferencia' });
    expect(first.res.status).toBe(200);
    expect(first.body.data).toMatchObject({ status: 'approved', pagado: 386.66, saldo: 773.34 });
    const partial = (await events(id, 'payment.partial'))[0]!;
    expect(partial.data).toEqual({
      id,
      folio: expect.stringMatching(/^COT-/),
      status: 'approved',
      moneda: 'MXN',
      total: 1160,
      cliente: 'Cobros SA',
      cliente_id: expect.any(String),
      tipo: 'cuota',
      monto: 386.66,
      numero_cuota: 1,
      saldo_pendiente: 773.34,
      payment_method: 'transferencia',
    });
    await action(id, { action: 'pay', monto: 386.66, fecha: '2026-01-15', referencia: 'SPEI 123' });
    expect((await events(id, 'payment.partial'))[0]!.data).toMatchObject({
      numero_cuota: 2,
      saldo_pendiente: 386.68,
      payment_method: null,
    });
    expect(await events(id, 'quote.paid')).toHaveLength(0);
    const last = await action(id, { action: 'pay', monto: 386.68 });
    expect(last.body.data).toMatchObject({ status: 'paid', pagado: 1160, saldo: 0 });
    expect(await events(id, 'payment.partial')).toHaveLength(2);
    const paid = await events(id, 'quote.paid');
    expect(paid).toHaveLength(1);
    expect(paid[0]!.data).toMatchObject({ status: 'paid', total: 1160 });
    const d = await detail(id);
    expect(d.pagos).toEqual([
      expect.objectContaining({
        tipo: 'cuota',
        numero_cuota: 1,
        monto: 386.66,
        payment_method: 'transferencia',
      }),
      expect.objectContaining({ tipo: 'cuota', numero_cuota: 2, monto: 386.66, fecha: '2026-01-15' }),
      expect.objectContaining({ tipo: 'cuota', numero_cuota: 3, monto: 386.68, payment_method: null }),
    ]);
    expect(Object.keys(d.pagos[0]).sort()).toEqual(
      ['fecha', 'id', 'monto', 'numero_cuota', 'payment_method', 'referencia', 'tipo'].sort(),
    );
    const again = await action(id, { action: 'pay', monto: 1 });
    await expectError(again.res, 409, 'invalid_state');
  });

  it('names a cash payment that leaves a balance saldo', async () => {
    const id = await quote();
    await action(id, { action: 'pay', monto: 160 });
    expect((await events(id, 'payment.partial'))[0]!.data).toMatchObject({
      tipo: 'saldo',
      numero_cuota: null,
      monto: 160,
      saldo_pendiente: 1000,
    });
  });

  it('refuses monto above the balance or with too many decimals with 400, writing nothing', async () => {
    const id = await quote();
    await action(id, { action: 'pay', monto: 1000 });
    for (const monto of [160.01, 10.005, 0, -5]) {
      const res = await action(id, { action: 'pay', monto });
      expect((await expectError(res.res, 400, 'invalid_request')).error).toContain('monto');
    }
    const missing = await action(id, { action: 'pay' });
    expect((await expectError(missing.res, 400, 'invalid_request')).error).toContain('monto');
    // A payment registered is one received: not dated after today (a day of slack for calendars
    // ahead of UTC); one entered late is taken.
    const dayAfterTomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    for (const fecha of ['2026-02-30', '0000-01-01', dayAfterTomorrow, '9999-12-31']) {
      const badDate = await action(id, { action: 'pay', monto: 1, fecha });
      expect((await expectError(badDate.res, 400, 'invalid_request')).error).toContain('fecha');
    }
    expect(await events(id, 'payment.partial')).toHaveLength(1);
    const d = await detail(id);
    expect(d).toMatchObject({ pagado: 1000, saldo: 160 });
    expect(d.pagos).toHaveLength(1);
  });

  it('takes the deposit on a sent or viewed quote, which approves it; nothing else there', async () => {
    const id = await quote({ plan_pagos: { tipo: 'anticipo', porcentaje: 50 } }, { approve: false });
    const small = await action(id, { action: 'pay', monto: 100 });
    await expectError(small.res, 409, 'invalid_state');
    await t.call('POST', `/api/v1/test_helpers/cotizaciones/${id}`, { key: sk, body: { action: 'open' } });
    const deposit = await action(id, { action: 'pay', monto: 580 });
    expect(deposit.res.status).toBe(200);
    expect(deposit.body.data).toMatchObject({ status: 'approved', pagado: 580, saldo: 580 });
    expect(await events(id, 'quote.approved')).toHaveLength(1);
    expect((await events(id, 'payment.partial'))[0]!.data).toMatchObject({
      status: 'approved',
      tipo: 'anticipo',
      numero_cuota: null,
      saldo_pendiente: 580,
    });
    const rest = await action(id, { action: 'pay', monto: 580 });
    expect(rest.body.data.status).toBe('paid');
    expect((await detail(id)).pagos.map((p: Json) => p.tipo)).toEqual(['anticipo', 'saldo']);

    const cash = await quote({}, { approve: false });
    await expectError((await action(cash, { action: 'pay', monto: 1160 })).res, 409, 'invalid_state');
    const draft = (await post('/cotizaciones', { items, cliente })).body.data.id;
    await expectError((await action(draft, { action: 'pay', monto: 1 })).res, 409, 'invalid_state');
    expect((await detail(cash)).pagos).toEqual([]);
  });

  it('counts a full payment of an approved quote as paid at once', async () => {
    const id = await quote();
    const paid = await action(id, { action: 'pay', monto: 1160 });
    expect(paid.body.data).toMatchObject({ status: 'paid', saldo: 0 });
    expect(await events(id, 'payment.partial')).toHaveLength(0);
    expect(await events(id, 'quote.paid')).toHaveLength(1);
  });
});

describe('promises', () => {
  const today = () => new Date().toISOString().slice(0, 10);
  const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

  it('records a promise and keeps it at once when payments since reach its amount by its date', async () => {
    const id = await quote();
    await action(id, { action: 'pay', monto: 100 });
    const promised = await action(id, { action: 'promise', fecha_promesa: inDays(5), monto: 200 });
    expect(promised.res.status).toBe(200);
    const [promise] = promised.body.data.promesas;
    expect(promise).toEqual({
      id: expect.any(String),
      object: 'promise',
      cotizacion_id: id,
      fecha_promesa: inDays(5),
      monto: 200,
      estado: 'pending',
    });
    const created = await events(promise.id, 'promise.created');
    expect(created[0]).toMatchObject({ object: 'promise', data: promise });
    // A payment dated after the promise's date does not count towards it.
    await action(id, { action: 'pay', monto: 300, fecha: inDays(6) });
    await action(id, { action: 'pay', monto: 150 });
    expect((await detail(id)).promesas[0].estado).toBe('pending');
    await action(id, { action: 'pay', monto: 50 });
    expect((await detail(id)).promesas[0].estado).toBe('kept');
    const kept = await events(promise.id, 'promise.kept');
    expect(kept).toHaveLength(1);
    expect(kept[0]!.data).toMatchObject({ estado: 'kept', monto: 200 });
  });

  it('refuses promises off an approved quote with a balance, in the past or above the balance', async () => {
    const id = await quote();
    const past = await action(id, { action: 'promise', fecha_promesa: inDays(-1), monto: 10 });
    expect((await expectError(past.res, 400, 'invalid_request')).error).toContain('fecha_promesa');
    const above = await action(id, { action: 'promise', fecha_promesa: today(), monto: 1160.01 });
    expect((await expectError(above.res, 400, 'invalid_request')).error).toContain('monto');
    const noDate = await action(id, { action: 'promise', monto: 10 });
    expect((await expectError(noDate.res, 400, 'invalid_request')).error).toContain('fecha_promesa');
    const sent = await quote({}, { approve: false });
    const early = await action(sent, { action: 'promise', fecha_promesa: today(), monto: 10 });
    await expectError(early.res, 409, 'invalid_state');
    expect((await detail(id)).promesas).toEqual([]);
  });

  it('breaks pending promises through the test helper and the scheduled job, once each', async () => {
    const id = await quote();
    const promised = await action(id, { action: 'promise', fecha_promesa: today(), monto: 100 });
    const promiseId = promised.body.data.promesas[0].id;
    const helper = await post(`/test_helpers/cotizaciones/${id}`, { action: 'break_promises' });
    expect(helper.res.status).toBe(200);
    expect(helper.body.data.promesas[0].estado).toBe('broken');
    expect(await events(promiseId, 'promise.broken')).toHaveLength(1);
    await post(`/test_helpers/cotizaciones/${id}`, { action: 'break_promises' });
    expect(await events(promiseId, 'promise.broken')).toHaveLength(1);

    const other = await quote();
    const due = await action(other, { action: 'promise', fecha_promesa: inDays(2), monto: 100 });
    const dueId = due.body.data.promesas[0].id;
    expect(await breakDuePromises(t.db, new Date())).toBe(0);
    expect(await breakDuePromises(t.db, new Date(Date.now() + 3 * 86_400_000))).toBeGreaterThanOrEqual(1);
    expect((await detail(other)).promesas[0].estado).toBe('broken');
    expect(await events(dueId, 'promise.broken')).toHaveLength(1);
    // A kept promise is never broken afterwards.
    const third = await quote();
    await action(third, { action: 'promise', fecha_promesa: today(), monto: 100 });
    await action(third, { action: 'pay', monto: 100 });
    await post(`/test_helpers/cotizaciones/${third}`, { action: 'break_promises' });
    expect((await detail(third)).promesas[0].estado).toBe('kept');
  });

  it('counts payments on the quote’s invoice: the quote’s balance, and its promises kept, never broken', async () => {
    const id = await quote();
    await action(id, { action: 'pay', monto: 160 });
    const promised = await action(id, { action: 'promise', fecha_promesa: inDays(5), monto: 1000 });
    const promiseId = promised.body.data.promesas[0].id;
    const invoiced = await action(id, { action: 'invoice' });
    expect(invoiced.res.status).toBe(200);
    const invoiceId = invoiced.body.data.factura.id as string;
    const pay = (monto: number) => post(`/facturas/${invoiceId}`, { action: 'pay', monto });
    expect((await pay(600)).res.status).toBe(200);
    expect(await detail(id)).toMatchObject({ pagado: 760, saldo: 400 });
    expect((await detail(id)).promesas[0].estado).toBe('pending');
    const last = await pay(400);
    expect(last.body.data).toMatchObject({ estado: 'paid', saldo: 0 });
    expect(await detail(id)).toMatchObject({ pagado: 1160, saldo: 0 });
    expect((await detail(id)).promesas[0].estado).toBe('kept');
    expect(await events(promiseId, 'promise.kept')).toHaveLength(1);
    await post(`/test_helpers/cotizaciones/${id}`, { action: 'break_promises' });
    expect(await events(promiseId, 'promise.broken')).toHaveLength(0);
  });

  it('keeps pending promises when the quote is marked paid outside the service', async () => {
    const id = await quote();
    await action(id, { action: 'promise', fecha_promesa: inDays(3), monto: 100 });
    await action(id, { action: 'mark_paid' });
    const d = await detail(id);
    expect(d).toMatchObject({ status: 'paid', saldo: 0 });
    expect(d.promesas[0].estado).toBe('kept');
  });

  it('counts a quote marked paid after part payments as paid in full: pagado is the total', async () => {
    const id = await quote();
    const total = (await detail(id)).total as number;
    await action(id, { action: 'pay', monto: 100 });
    const { body } = await action(id, { action: 'mark_paid' });
    expect(body.data).toMatchObject({ status: 'paid', pagado: total, saldo: 0 });
    // Only the payment registered here is listed; the rest was paid outside the service.
    expect(body.data.pagos.map((p: Json) => p.monto)).toEqual([100]);
    expect(await detail(id)).toMatchObject({ pagado: total, saldo: 0 });
  });
});

describe("the merchant's usual plan (widget settings)", () => {
  it('is in /elements/config with its line in five languages and given to the widget’s quotes', async () => {
    const origin = t.seed.publishable_origins[0] ?? 'http://localhost:5173';
    const asWidget = (method: string, path: string, body?: unknown) =>
      t.call(method, `/api/v1${path}`, { key: t.seed.keys.pk_test, body, headers: { origin } });
    const before = ((await (await asWidget('GET', '/elements/config')).json()) as Json).data;
    expect(before.plan_pagos).toBeNull();
    await t.db.query(
      `UPDATE orgs SET widget = widget || '{"plan_pagos": {"tipo": "anticipo", "porcentaje": 50}}' WHERE id = $1`,
      [t.seed.org.id],
    );
    t.deps.keys.invalidate(`org:${t.seed.org.id}`);
    try {
      const config = ((await (await asWidget('GET', '/elements/config')).json()) as Json).data;
      expect(config.plan_pagos).toEqual({
        tipo: 'anticipo',
        porcentaje: 50,
        texto: {
          es: '50 % de anticipo, después el saldo',
          en: '50 % deposit, then the balance',
          pt: '50 % de entrada, depois o saldo',
          fr: 'Acompte de 50 %, puis le solde',
          de: '50 % Anzahlung, danach der Rest',
        },
      });
      const created = await asWidget('POST', '/cotizaciones', {
        items,
        cliente: { ...cliente, email: 'w@x.example' },
      });
      expect(created.status).toBe(200);
      const id = ((await created.json()) as Json).data.id;
      expect((await detail(id)).plan_pagos).toEqual({ tipo: 'anticipo', porcentaje: 50 });
      // A visitor's quote too small for it (half of 0.01 leaves no balance) is cash, not refused.
      const tiny = await asWidget('POST', '/cotizaciones', {
        items: [{ descripcion: 'Muestra', cantidad: 1, precio_unitario: 0.01 }],
        cliente: { ...cliente, email: 'w2@x.example' },
      });
      expect(tiny.status).toBe(200);
      const tinyId = ((await tiny.json()) as Json).data.id;
      expect(await detail(tinyId)).toMatchObject({ total: 0.01, plan_pagos: { tipo: 'contado' } });
    } finally {
      await t.db.query(`UPDATE orgs SET widget = widget - 'plan_pagos' WHERE id = $1`, [t.seed.org.id]);
      t.deps.keys.invalidate(`org:${t.seed.org.id}`);
    }
  });
});

describe('the due date of an approved quote', () => {
  it('is the same in its calendario, in collections and on its invoice: the terms the quote gives, not the client record', async () => {
    // The quote gives net30 while its client's own record says contado: resend may give a quote
    // other terms than its client's, and the client may change after approval.
    const empresa = `Plazos ${Date.now()}`;
    const client = await post('/clientes', { empresa, terminos: 'contado' });
    expect(client.res.status).toBe(200);
    const id = await quote(
      { cliente: undefined, cliente_id: client.body.data.id, terminos: 'net30' },
      { approve: false },
    );
    expect((await action(id, { action: 'resend', terminos: 'net45' })).res.status).toBe(200);
    expect((await action(id, { action: 'approve' })).res.status).toBe(200);
    const q = await detail(id);
    expect(q.terminos_codigo).toBe('net45');
    const approvedOn = String(q.calendario[0].vence);
    const expected = new Date(Date.now() + 45 * 86_400_000).toISOString().slice(0, 10);
    expect(approvedOn).toBe(expected);
    const stored = await t.call('GET', `/api/v1/clientes/${q.cliente_id}`, { key: sk });
    expect(((await stored.json()) as Json).data.terminos).toBe('contado');
    const book = await t.call('GET', `/api/v1/cobranza?cliente_id=${q.cliente_id}`, { key: sk });
    const [row] = ((await book.json()) as Json).data.clientes as Json[];
    expect(row).toMatchObject({ cliente: empresa, vencimiento_mas_antiguo: expected, vencido: 0 });
    const invoiced = await action(id, { action: 'invoice' });
    expect(invoiced.res.status).toBe(200);
    const invoice = await t.call('GET', `/api/v1/facturas/${invoiced.body.data.factura.id}`, { key: sk });
    expect(((await invoice.json()) as Json).data.vence).toBe(expected);
  });
});
