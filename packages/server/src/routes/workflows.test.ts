import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertWorkflow } from '../repositories/workflows.js';
import type { WorkflowDefinition } from '../schemas/requests.js';
import { expectError } from '../testing/assertions.js';
import { createTestContext, restrictedKey, type TestContext } from '../testing/harness.js';

let t: TestContext;
let sk: string;
let byName: Record<string, Record<string, any>>;
beforeAll(async () => {
  t = await createTestContext();
  sk = t.seed.keys.sk_test_write;
  const list = (await (await t.call('GET', '/api/v1/workflows', { key: sk })).json()) as Json;
  byName = Object.fromEntries(list.data.map((w: Json) => [w.nombre, w]));
});
afterAll(() => t.close());

type Json = Record<string, any>;
/** A workflow of the seeded organization in test mode, as a setup plan would add it. */
const addTestWorkflow = (workflow: WorkflowDefinition) =>
  upsertWorkflow(t.db, { orgId: t.seed.org.id, mode: 'test' }, workflow);
const call = async (method: string, path: string, body?: unknown, key = sk, headers = {}) => {
  const res = await t.call(method, `/api/v1${path}`, { key, body, headers });
  return { res, body: (await res.clone().json()) as Json };
};
const newQuote = async (send = true) => {
  const created = await call('POST', '/cotizaciones', {
    items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 1000 }],
    cliente: { empresa: 'Flujos SA', email: 'flujos@example.com' },
  });
  const id = created.body.data.id as string;
  if (send) await call('POST', `/cotizaciones/${id}`, { action: 'send' });
  return { id, folio: created.body.data.folio as string };
};
const invoke = (workflowId: string, ids: string[], headers = {}) =>
  call('POST', `/workflows/${workflowId}/invoke`, { ids }, sk, headers);

describe('workflows', () => {
  it('lists the demo organization’s three workflows', () => {
    expect(Object.keys(byName).sort()).toEqual(['incobrables', 'recordatorio_cobro', 'seguimiento']);
    expect(byName.seguimiento).toMatchObject({
      id: expect.any(String),
      object: 'workflow',
      objeto: 'cotizacion',
      activo: true,
      pasos: [{ tipo: 'create_task', dias: 2 }, { tipo: 'send_reminder' }],
    });
    expect(byName.recordatorio_cobro).toMatchObject({
      objeto: 'factura',
      pasos: [{ tipo: 'send_reminder' }],
    });
    expect(byName.incobrables).toMatchObject({
      objeto: 'factura',
      pasos: [{ tipo: 'mark_uncollectible', dias_vencida: 90 }],
    });
  });

  it('runs seguimiento on each record alone: a task titled with the folio, a reminder, failures per record', async () => {
    const sent = await newQuote();
    const draft = await newQuote(false);
    const unknown = randomUUID();
    const outboxBefore = (await t.db.query('SELECT id FROM email_outbox')).length;
    const { res, body } = await invoke(byName.seguimiento!.id, [sent.id, draft.id, unknown]);
    expect(res.status).toBe(200);
    expect(body.data.workflow_id).toBe(byName.seguimiento!.id);
    expect(body.data.resultados).toEqual([
      { id: sent.id, ok: true },
      { id: draft.id, ok: false, code: 'invalid_state', error: expect.any(String) },
      { id: unknown, ok: false, code: 'not_found', error: expect.any(String) },
    ]);
    const tasks = (await call('GET', `/tareas?cotizacion_id=${sent.id}`)).body.data;
    expect(tasks).toHaveLength(1);
    expect(tasks[0].titulo).toContain(sent.folio);
    expect(tasks[0].titulo).toContain('Flujos SA');
    const inTwoDays = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    expect(tasks[0].due_date).toBe(inTwoDays);
    expect((await call('GET', `/tareas?cotizacion_id=${draft.id}`)).body.data).toHaveLength(0);
    const reminders = await t.db.query<{ quote_id: string; subject: string; to_email: string }>(
      `SELECT quote_id, subject, to_email FROM email_outbox WHERE quote_id = $1 AND subject LIKE 'Recordatorio%'`,
      [sent.id],
    );
    expect(reminders).toEqual([
      { quote_id: sent.id, subject: expect.stringContaining(sent.folio), to_email: 'flujos@example.com' },
    ]);
    expect((await t.db.query('SELECT id FROM email_outbox')).length).toBe(outboxBefore + 1);
    const created = (await call('GET', `/events?type=task.created&object_id=${tasks[0].id}`)).body.data;
    expect(created).toHaveLength(1);
  });

  it('rolls back a record whose later step fails, keeping the steps before it', async () => {
    const [workflow] = [
      await addTestWorkflow({
        nombre: 'tarea_y_reenvio',
        objeto: 'cotizacion',
        pasos: [{ tipo: 'create_task', titulo: 'Revisar {folio}', dias: 0 }, { tipo: 'resend' }],
        activo: true,
      }),
    ];
    // Alone, and inside the transaction of an Idempotency-Key (each record then in a savepoint).
    for (const headers of [{}, { 'idempotency-key': `wf-${randomUUID()}` }]) {
      const sent = await newQuote();
      const approved = await newQuote();
      await call('POST', `/cotizaciones/${approved.id}`, { action: 'approve' });
      const { body } = await invoke(workflow!.id, [sent.id, approved.id], headers);
      expect(body.data.resultados.map((r: Json) => r.ok)).toEqual([true, false]);
      expect((await call('GET', `/tareas?cotizacion_id=${approved.id}`)).body.data).toHaveLength(0);
      expect((await call('GET', `/tareas?cotizacion_id=${sent.id}`)).body.data).toHaveLength(1);
      expect((await call('GET', `/events?object_id=${sent.id}&type=quote.updated`)).body.data).toHaveLength(
        1,
      );
    }
  });

  it('adds a seller comment with add_comment', async () => {
    const workflow = await addTestWorkflow({
      nombre: 'comentario',
      objeto: 'cotizacion',
      pasos: [{ tipo: 'add_comment', mensaje: 'Quedo atento, {cliente}' }],
      activo: true,
    });
    const quote = await newQuote();
    await invoke(workflow!.id, [quote.id]);
    const events = (await call('GET', `/events?object_id=${quote.id}&type=quote.comment_added`)).body.data;
    expect(events[0].data).toMatchObject({ autor: 'vendedor', mensaje: 'Quedo atento, Flujos SA' });
  });

  it('fills placeholders with the client as named, in one pass, and keeps a long title within 200', async () => {
    const workflow = await addTestWorkflow({
      nombre: 'nombres-raros',
      objeto: 'cotizacion',
      pasos: [
        { tipo: 'create_task', titulo: 'Llamar a {cliente} por {folio}', dias: 1 },
        { tipo: 'add_comment', mensaje: 'Hola {cliente}' },
      ],
      activo: true,
    });
    const named = async (empresa: string) => {
      const created = await call('POST', '/cotizaciones', {
        items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 1000 }],
        cliente: { empresa },
      });
      const id = created.body.data.id as string;
      expect((await invoke(workflow!.id, [id])).body.data.resultados).toEqual([{ id, ok: true }]);
      const task = (await call('GET', `/tareas?cotizacion_id=${id}`)).body.data[0];
      const comment = (await call('GET', `/events?object_id=${id}&type=quote.comment_added`)).body.data[0];
      return {
        folio: created.body.data.folio as string,
        titulo: task.titulo as string,
        mensaje: comment.data.mensaje,
      };
    };
    // `$&`, `$$` and `$'` are replacement patterns to String.replace; `{folio}` a placeholder.
    const odd = "Ca$$h & $& Co $' {folio}";
    const filled = await named(odd);
    expect(filled.titulo).toBe(`Llamar a ${odd} por ${filled.folio}`);
    expect(filled.mensaje).toBe(`Hola ${odd}`);
    const long = await named('Ñ'.repeat(200));
    expect([...long.titulo]).toHaveLength(200);
    expect(long.titulo).toBe(`Llamar a ${'Ñ'.repeat(190)}…`);
    expect(long.mensaje).toBe(`Hola ${'Ñ'.repeat(200)}`);
  });

  /** A finalized (open) invoice for Flujos SA, due `overdue` days ago (0: due today). */
  const openInvoice = async (overdue = 0) => {
    const created = await call('POST', '/facturas', {
      cliente: { empresa: 'Flujos SA', email: 'flujos@example.com' },
      items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 1000 }],
    });
    const id = created.body.data.id as string;
    const finalized = await call('POST', `/facturas/${id}`, { action: 'finalize' });
    expect(finalized.res.status, JSON.stringify(finalized.body)).toBe(200);
    await t.db.query(`UPDATE invoices SET vence = current_date - $2::int WHERE id = $1`, [id, overdue]);
    return {
      id,
      numero: finalized.body.data.numero as string,
      link: finalized.body.data.link_publico as string,
    };
  };

  it('runs recordatorio_cobro on open invoices: a reminder with the number, balance and link; a draft fails alone', async () => {
    const open = await openInvoice(5);
    const draft = await call('POST', '/facturas', {
      cliente: { empresa: 'Flujos SA' },
      items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 1000 }],
    });
    const before = (await t.db.query('SELECT id FROM email_outbox')).length;
    const { body } = await invoke(byName.recordatorio_cobro!.id, [open.id, draft.body.data.id]);
    expect(body.data.resultados).toEqual([
      { id: open.id, ok: true },
      { id: draft.body.data.id, ok: false, code: 'invalid_state', error: expect.any(String) },
    ]);
    const outbox = await t.db.query<{ subject: string; body: string; to_email: string }>(
      'SELECT subject, body, to_email FROM email_outbox ORDER BY created_at DESC, id LIMIT 2',
    );
    expect((await t.db.query('SELECT id FROM email_outbox')).length).toBe(before + 1);
    expect(outbox[0]!.to_email).toBe('flujos@example.com');
    expect(outbox[0]!.subject).toContain(open.numero);
    expect(outbox[0]!.body).toContain(open.link);
    // As the invoice's page writes it in Mexico: $1,160.00, not Spain's 1160,00.
    expect(outbox[0]!.body).toContain('saldo de $1,160.00');
  });

  it('runs incobrables: an invoice 90 days overdue or more becomes uncollectible, a newer one fails alone', async () => {
    const old = await openInvoice(95);
    const recent = await openInvoice(30);
    const { body } = await invoke(byName.incobrables!.id, [old.id, recent.id]);
    expect(body.data.resultados).toEqual([
      { id: old.id, ok: true },
      { id: recent.id, ok: false, code: 'invalid_state', error: expect.stringContaining('30 days') },
    ]);
    expect((await call('GET', `/facturas/${old.id}`)).body.data.estado).toBe('uncollectible');
    expect((await call('GET', `/facturas/${recent.id}`)).body.data.estado).toBe('open');
    const events = (await call('GET', `/events?object_id=${old.id}&type=invoice.marked_uncollectible`)).body
      .data;
    expect(events).toHaveLength(1);
    // Once uncollectible it is not open any more: a second run fails for that record.
    const again = await invoke(byName.incobrables!.id, [old.id]);
    expect(again.body.data.resultados[0]).toMatchObject({ ok: false, code: 'invalid_state' });
    // An invoice not due yet is not "0 days overdue": the message says when it is due.
    const notDue = await openInvoice(-30);
    const { vence } = (await call('GET', `/facturas/${notDue.id}`)).body.data;
    const early = await invoke(byName.incobrables!.id, [notDue.id]);
    expect(early.body.data.resultados[0]).toEqual({
      id: notDue.id,
      ok: false,
      code: 'invalid_state',
      error: `mark_uncollectible: invoice ${notDue.numero} is not due until ${vence}. Nothing was changed.`,
    });
  });

  it('creates a task on an invoice titled with its number, and refuses a quote id to an invoice workflow', async () => {
    const workflow = await addTestWorkflow({
      nombre: 'llamar_factura',
      objeto: 'factura',
      pasos: [{ tipo: 'create_task', titulo: 'Llamar por {numero} ({cliente})', dias: 1 }],
      activo: true,
    });
    const invoice = await openInvoice();
    const quote = await newQuote();
    const { body } = await invoke(workflow!.id, [invoice.id, quote.id]);
    expect(body.data.resultados).toEqual([
      { id: invoice.id, ok: true },
      { id: quote.id, ok: false, code: 'not_found', error: expect.any(String) },
    ]);
    const tasks = (await call('GET', `/tareas?factura_id=${invoice.id}`)).body.data;
    expect(tasks).toHaveLength(1);
    expect(tasks[0].titulo).toBe(`Llamar por ${invoice.numero} (Flujos SA)`);
  });

  it('answers 404 for an unknown workflow and 409 for an inactive one, running nothing', async () => {
    const quote = await newQuote();
    await expectError((await invoke(randomUUID(), [quote.id])).res, 404, 'not_found');
    await expectError((await invoke('nope', [quote.id])).res, 404, 'not_found');
    const inactive = await addTestWorkflow({
      nombre: 'apagado',
      objeto: 'cotizacion',
      pasos: [{ tipo: 'create_task', titulo: 'x', dias: 0 }],
      activo: false,
    });
    await expectError((await invoke(inactive!.id, [quote.id])).res, 409, 'invalid_state');
    expect((await call('GET', `/tareas?cotizacion_id=${quote.id}`)).body.data).toHaveLength(0);
  });

  it.each([
    [{}],
    [{ ids: [] }],
    [{ ids: ['x'] }],
    [{ ids: Array.from({ length: 101 }, () => randomUUID()) }],
    [{ ids: [randomUUID()], extra: true }],
  ])('refuses the body %# with 400', async (body) => {
    const res = await call('POST', `/workflows/${byName.seguimiento!.id}/invoke`, body);
    await expectError(res.res, 400, 'invalid_request');
  });

  it('replays an invocation with the same Idempotency-Key without running it again', async () => {
    const quote = await newQuote();
    const headers = { 'idempotency-key': `wf-${randomUUID()}` };
    const first = await invoke(byName.seguimiento!.id, [quote.id], headers);
    const second = await invoke(byName.seguimiento!.id, [quote.id], headers);
    expect(second.res.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect((await call('GET', `/tareas?cotizacion_id=${quote.id}`)).body.data).toHaveLength(1);
  });

  it('keeps test and live workflows apart: each mode has the demo three, and one added in test is not in live', async () => {
    const live = t.seed.keys.sk_live_write;
    const added = await addTestWorkflow({
      nombre: 'solo_pruebas',
      objeto: 'cotizacion',
      pasos: [{ tipo: 'add_comment', mensaje: 'hola' }],
      activo: true,
    });
    const names = async (key: string) =>
      ((await call('GET', '/workflows?limit=200', undefined, key)).body.data as Json[]).map((w) => w.nombre);
    expect(await names(sk)).toContain('solo_pruebas');
    expect(await names(live)).not.toContain('solo_pruebas');
    for (const demo of ['seguimiento', 'recordatorio_cobro', 'incobrables'])
      expect(await names(live)).toContain(demo);
    const invoked = await call('POST', `/workflows/${added!.id}/invoke`, { ids: [randomUUID()] }, live);
    await expectError(invoked.res, 404, 'not_found');
  });

  it('pages with limit and offset like every list, and refuses a bad page', async () => {
    const all = await call('GET', '/workflows');
    const total = all.body.data.length as number;
    expect(total).toBeGreaterThanOrEqual(3);
    expect(all.body.meta).toEqual({ limit: 20, offset: 0, total, next_cursor: null });
    const page = await call('GET', '/workflows?limit=1&offset=1');
    expect(page.body.meta).toMatchObject({ limit: 1, offset: 1, total, next_cursor: expect.any(String) });
    expect(page.body.data.map((w: Json) => w.id)).toEqual([all.body.data[1].id]);
    const next = await call('GET', `/workflows?limit=1&cursor=${page.body.meta.next_cursor}`);
    expect(next.body.data.map((w: Json) => w.id)).toEqual([all.body.data[2].id]);
    const last = await call('GET', `/workflows?limit=1&offset=${total - 1}`);
    expect(last.body.meta.next_cursor).toBeNull();
    await expectError((await call('GET', '/workflows?limit=0')).res, 400, 'invalid_request');
    await expectError((await call('GET', '/workflows?offset=-1')).res, 400, 'invalid_request');
    await expectError((await call('GET', '/workflows?activo=true')).res, 400, 'invalid_request');
  });

  it('is the restricted resource workflows', async () => {
    const key = await restrictedKey(t, { workflows: 'read' });
    expect((await call('GET', '/workflows', undefined, key)).res.status).toBe(200);
    const quote = await newQuote();
    const res = await call('POST', `/workflows/${byName.seguimiento!.id}/invoke`, { ids: [quote.id] }, key);
    await expectError(res.res, 403, 'insufficient_scope');
  });

  it('runs for a restricted key only when it may itself make the changes its steps make', async () => {
    const quote = await newQuote();
    const tasks = async () =>
      (await t.db.query('SELECT 1 FROM tasks WHERE cotizacion_id = $1', [quote.id])).length;
    // seguimiento adds a task to a quote and sends a reminder.
    for (const permissions of [
      { workflows: 'write' },
      { workflows: 'write', cotizaciones: 'write' },
      { workflows: 'write', tareas: 'write' },
    ] as Record<string, 'read' | 'write'>[]) {
      const key = await restrictedKey(t, permissions);
      const res = await call('POST', `/workflows/${byName.seguimiento!.id}/invoke`, { ids: [quote.id] }, key);
      await expectError(res.res, 403, 'insufficient_scope');
    }
    expect(await tasks()).toBe(0);
    const allowed = await restrictedKey(t, { workflows: 'write', cotizaciones: 'write', tareas: 'write' });
    const ok = await call(
      'POST',
      `/workflows/${byName.seguimiento!.id}/invoke`,
      { ids: [quote.id] },
      allowed,
    );
    expect(ok.body.data.resultados).toEqual([{ id: quote.id, ok: true }]);
    expect(await tasks()).toBe(1);
  });
});
