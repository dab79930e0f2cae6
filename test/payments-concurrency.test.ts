import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from './support/postgres.js';
import { cli, type ServerProcess, startServerProcess } from './support/processes.js';

/**
 * Payments on one quote from two server processes on one PostgreSQL (design.md section 12): the
 * balance is checked under the quote's row lock, so `pagado` never passes `total` and exactly one
 * payment fires `quote.paid`.
 */
describe('concurrent payments on one quote, two processes', () => {
  let database: Awaited<ReturnType<typeof createPgDatabase>>;
  let servers: ServerProcess[] = [];
  let key: string;

  beforeAll(async () => {
    database = await createPgDatabase('svc_pay');
    const env = { DATABASE_URL: database.url };
    key = JSON.parse((await cli(['seed', '--json'], env)).stdout).keys.sk_test_write;
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await database?.drop();
  });

  const call = async (i: number, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${servers[i % 2]!.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it('never takes pagado above total and fires exactly one quote.paid in 200 payments', async () => {
    // 1 × 24,500 at 16 %: total 28,420, which 100 payments of 284.20 settle exactly.
    const created = await call(0, 'POST', '/cotizaciones', {
      items: [{ descripcion: 'Laptop', cantidad: 1, precio_unitario: 24500 }],
      cliente: { empresa: 'Pagos Concurrentes SA' },
      plan_pagos: { tipo: 'cuotas', numero: 20 },
    });
    const id = created.body.data.id as string;
    expect((await call(0, 'POST', `/cotizaciones/${id}`, { action: 'send' })).status).toBe(200);
    expect((await call(1, 'POST', `/cotizaciones/${id}`, { action: 'approve' })).status).toBe(200);

    // Each process computes the collections report once; the other's payments must show in it.
    const receivable = async (i: number) =>
      ((await call(i, 'GET', '/cobranza')).body.data.monedas as { por_cobrar: number }[]).reduce(
        (sum, m) => sum + m.por_cobrar,
        0,
      );
    expect(await receivable(0)).toBe(28420);
    expect(await receivable(1)).toBe(28420);

    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        call(i, 'POST', `/cotizaciones/${id}`, { action: 'pay', monto: 284.2 }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    // Refused ones: the balance was gone (400) or the quote already paid (409); never a 5xx.
    expect(statuses.every((s) => s === 200 || s === 400 || s === 409)).toBe(true);

    const detail = (await call(0, 'GET', `/cotizaciones/${id}`)).body.data;
    expect(detail).toMatchObject({ status: 'paid', pagado: 28420, saldo: 0, total: 28420 });
    expect(detail.pagos).toHaveLength(100);
    // 20 installments of 1,421: each takes five payments, in order.
    expect(detail.pagos.map((p: { numero_cuota: number }) => p.numero_cuota)).toEqual(
      Array.from({ length: 100 }, (_, i) => Math.floor(i / 5) + 1),
    );
    const paid = (await call(1, 'GET', `/events?object_id=${id}&type=quote.paid&limit=100`)).body.data;
    expect(paid).toHaveLength(1);
    const partial = (await call(0, 'GET', `/events?object_id=${id}&type=payment.partial&limit=100`)).body;
    expect(partial.data).toHaveLength(99);
    expect(await receivable(0)).toBe(0);
    expect(await receivable(1)).toBe(0);
  });
});
