import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../db/database.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { updateInvoice } from './invoices.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

/** A draft invoice created through the API, by its id. */
async function draftInvoice(): Promise<string> {
  const res = await t.call('POST', '/api/v1/facturas', {
    key: t.seed.keys.sk_test_write,
    body: {
      cliente: { empresa: 'Papelería El Clip', email: 'pagos@clip.example' },
      items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 1000 }],
    },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

const eventsOf = (id: string) =>
  t.db.query<{ type: string; data: Record<string, unknown>; actor: string }>(
    'SELECT type, data, actor FROM events WHERE object_id = $1 ORDER BY seq',
    [id],
  );

describe('updateInvoice', () => {
  it("writes the change and its event in one statement, where finalizing holds the number's lock", async () => {
    const id = await draftInvoice();
    let statements = 0;
    const updated = await t.db.transaction((tx) => {
      const counted: Queryable = {
        query: (sql, params) => {
          statements++;
          return tx.query(sql, params);
        },
      };
      return updateInvoice(
        counted,
        id,
        { motivo_fiscal: 'con evento' },
        {
          orgId: t.seed.org.id,
          mode: 'test',
          type: 'invoice.finalized',
          object: 'invoice',
          objectId: id,
          data: { id, numero: 'F-999999', link_publico: 'https://secret.example/i/x' },
          actor: 'system',
        },
      );
    });
    expect(statements).toBe(1);
    expect(updated).toMatchObject({ id, motivo_fiscal: 'con evento' });
    expect(updated).not.toHaveProperty('notified');
    // Stored as insertEvent stores it: without the credential.
    expect(await eventsOf(id)).toEqual([
      { type: 'invoice.finalized', data: { id, numero: 'F-999999' }, actor: 'system' },
    ]);
  });

  it('writes no event without one', async () => {
    const id = await draftInvoice();
    expect(await updateInvoice(t.db, id, { motivo_fiscal: 'sin evento' })).toMatchObject({
      id,
      motivo_fiscal: 'sin evento',
    });
    expect(await eventsOf(id)).toEqual([]);
  });
});

describe('an invoice written by the previous release', () => {
  it('reads a missing accounting currency as its sale currency (a rolling deploy inserts without it)', async () => {
    const id = await draftInvoice();
    await t.db.query('UPDATE invoices SET moneda_fiscal = NULL WHERE id = $1', [id]);
    const res = await t.call('GET', `/api/v1/facturas/${id}`, { key: t.seed.keys.sk_test_write });
    const data = ((await res.json()) as { data: Record<string, unknown> }).data;
    expect(data).toMatchObject({ moneda: 'MXN', moneda_fiscal: 'MXN', tipo_cambio: null });
  });
});
