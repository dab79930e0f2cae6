import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../services/api-keys.js';
import { expectError } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';

let t: TestContext;
let sk: string;
let quoteId: string;
beforeAll(async () => {
  t = await createTestContext();
  sk = t.seed.keys.sk_test_write;
  const res = await t.call('POST', '/api/v1/cotizaciones', {
    key: sk,
    body: {
      items: [{ descripcion: 'X', cantidad: 1, precio_unitario: 10 }],
      cliente: { empresa: 'Tareas SA' },
    },
  });
  quoteId = ((await res.json()) as { data: { id: string } }).data.id;
});
afterAll(() => t.close());

type Json = Record<string, any>;
const call = async (method: string, path: string, body?: unknown, key = sk) => {
  const res = await t.call(method, `/api/v1${path}`, { key, body });
  return { res, body: (await res.clone().json()) as Json };
};
const count = async () => (await t.db.query('SELECT id FROM tasks')).length;

describe('tasks', () => {
  it('creates a task with task.created carrying the spec task data', async () => {
    const created = await call('POST', '/tareas', {
      titulo: 'Llamar a Tareas SA',
      due_date: '2026-12-01',
      cotizacion_id: quoteId,
      notas: 'Preguntar por el anticipo',
    });
    expect(created.res.status).toBe(200);
    const task = created.body.data;
    expect(task).toEqual({
      id: expect.any(String),
      object: 'task',
      titulo: 'Llamar a Tareas SA',
      due_date: '2026-12-01',
      done: false,
      cotizacion_id: quoteId,
      factura_id: null,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
    });
    const events = (await call('GET', `/events?object_id=${task.id}`)).body.data;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'task.created', object: 'task' });
    expect(events[0].data).toEqual({
      id: task.id,
      object: 'task',
      titulo: 'Llamar a Tareas SA',
      due_date: '2026-12-01',
      done: false,
      cotizacion_id: quoteId,
    });
    expect((await call('GET', `/tareas/${task.id}`)).body.data).toEqual(task);
  });

  it('completes a task once (task.completed); a second time is 409', async () => {
    const { id } = (await call('POST', '/tareas', { titulo: 'Enviar factura' })).body.data;
    const done = await call('POST', `/tareas/${id}`, { action: 'complete' });
    expect(done.body.data).toMatchObject({ id, done: true, due_date: null, cotizacion_id: null });
    const completed = (await call('GET', `/events?object_id=${id}&type=task.completed`)).body.data;
    expect(completed).toHaveLength(1);
    expect(completed[0].data.done).toBe(true);
    await expectError(
      (await call('POST', `/tareas/${id}`, { action: 'complete' })).res,
      409,
      'invalid_state',
    );
    expect((await call('GET', `/events?object_id=${id}&type=task.completed`)).body.data).toHaveLength(1);
    await expectError(
      (await call('POST', `/tareas/${id}`, { action: 'reopen' })).res,
      400,
      'invalid_request',
    );
  });

  it('lists with filters done, cotizacion_id and limit/offset', async () => {
    const all = (await call('GET', '/tareas?limit=200')).body;
    expect(all.meta).toEqual({ limit: 200, offset: 0, total: all.data.length, next_cursor: null });
    const open = (await call('GET', '/tareas?done=false')).body;
    expect(open.data.every((task: Json) => task.done === false)).toBe(true);
    const done = (await call('GET', '/tareas?done=true')).body;
    expect(open.meta.total + done.meta.total).toBe(all.meta.total);
    const byQuote = (await call('GET', `/tareas?cotizacion_id=${quoteId}`)).body;
    expect(byQuote.data.map((task: Json) => task.titulo)).toEqual(['Llamar a Tareas SA']);
    const second = (await call('GET', '/tareas?limit=1&offset=1')).body;
    expect(second.data[0].id).toBe(all.data[1].id);
    expect(second.meta).toMatchObject({ limit: 1, offset: 1 });
    expect(second.meta.next_cursor === null).toBe(all.data.length <= 2);
    await expectError((await call('GET', '/tareas?done=yes')).res, 400, 'invalid_request');
    await expectError((await call('GET', '/tareas?estado=x')).res, 400, 'invalid_request');
  });

  it.each([
    [{}, 'titulo'],
    [{ titulo: '' }, 'titulo'],
    [{ titulo: 'x'.repeat(201) }, 'titulo'],
    [{ titulo: 'ok', due_date: '2026-13-01' }, 'due_date'],
    [{ titulo: 'ok', due_date: '0000-01-01' }, 'due_date'],
    [{ titulo: 'ok', cotizacion_id: 'nope' }, 'cotizacion_id'],
    [{ titulo: 'ok', cotizacion_id: '00000000-0000-4000-8000-000000000000' }, 'cotizacion_id'],
    [{ titulo: 'ok', extra: 1 }, 'extra'],
    [{ titulo: 'ok', factura_id: '00000000-0000-4000-8000-000000000000' }, 'factura_id'],
  ])('refuses %j with 400 naming %s, writing nothing', async (body, field) => {
    const before = await count();
    const res = await call('POST', '/tareas', body);
    expect((await expectError(res.res, 400, 'invalid_request')).error).toContain(field);
    expect(await count()).toBe(before);
  });

  it('keeps tasks per mode and answers 404 for unknown ones', async () => {
    const { id } = (await call('POST', '/tareas', { titulo: 'Solo pruebas' })).body.data;
    await expectError(
      (await call('GET', `/tareas/${id}`, undefined, t.seed.keys.sk_live_write)).res,
      404,
      'not_found',
    );
    await expectError((await call('GET', '/tareas/not-a-uuid')).res, 404, 'not_found');
  });

  it('is the restricted resource tareas', async () => {
    const { key } = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'restricted',
      mode: 'test',
      scope: 'write',
      permissions: { tareas: 'read' },
    });
    expect((await call('GET', '/tareas', undefined, key)).res.status).toBe(200);
    await expectError((await call('POST', '/tareas', { titulo: 'x' }, key)).res, 403, 'insufficient_scope');
    const other = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'restricted',
      mode: 'test',
      scope: 'write',
      permissions: { cotizaciones: 'write' },
    });
    await expectError((await call('GET', '/tareas', undefined, other.key)).res, 403, 'insufficient_scope');
    const pk = await t.call('GET', '/api/v1/tareas', {
      key: t.seed.keys.pk_test,
      headers: { origin: t.seed.publishable_origins[0] ?? 'http://localhost:5173' },
    });
    await expectError(pk, 403, 'insufficient_scope');
  });
});

describe('test-mode reset', () => {
  it('wipes the sandbox tasks, payments and promises, and keeps the live ones', async () => {
    const live = t.seed.keys.sk_live_write;
    const liveTask = (await call('POST', '/tareas', { titulo: 'En vivo' }, live)).body.data;
    const created = await call('POST', '/cotizaciones', {
      items: [{ descripcion: 'X', cantidad: 1, precio_unitario: 100 }],
      cliente: { empresa: 'Reinicio SA' },
      send: true,
    });
    const id = created.body.data.id;
    await call('POST', `/cotizaciones/${id}`, { action: 'approve' });
    await call('POST', `/cotizaciones/${id}`, { action: 'pay', monto: 10 });
    const today = new Date().toISOString().slice(0, 10);
    await call('POST', `/cotizaciones/${id}`, { action: 'promise', fecha_promesa: today, monto: 10 });
    await call('POST', '/tareas', { titulo: 'Prueba' });
    const res = await t.call('POST', '/api/test-mode/reset', { key: sk });
    expect(res.status).toBe(200);
    for (const table of ['tasks', 'quote_payments', 'payment_promises']) {
      const rows = await t.db.query(`SELECT 1 FROM ${table} WHERE org_id = $1 AND mode = 'test'`, [
        t.seed.org.id,
      ]);
      expect(rows, table).toHaveLength(0);
    }
    expect((await call('GET', `/tareas/${liveTask.id}`, undefined, live)).res.status).toBe(200);
  });
});
