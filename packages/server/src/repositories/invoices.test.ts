import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../db/database.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { issueInvoice, takeNumber, updateInvoice } from './invoices.js';

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

describe('issueInvoice', () => {
  const scope = () => ({ orgId: t.seed.org.id, mode: 'test' });
  /** A counter of invoice numbers left at `last`, as if that many had been issued. */
  const counterAt = (last: number) =>
    t.db.query(
      `INSERT INTO invoice_counters (org_id, mode, kind, last) VALUES ($1, 'test', 'F', $2)
       ON CONFLICT (org_id, mode, kind) DO UPDATE SET last = $2`,
      [t.seed.org.id, last],
    );

  it('takes the next number in the statement that writes it, into numero, the XML and the event', async () => {
    const id = await draftInvoice();
    await counterAt(41);
    let statements = 0;
    const slot = 'RANURA0123456789abcdefgh';
    const issued = await t.db.transaction((tx) => {
      const counted: Queryable = {
        query: (sql, params) => {
          statements++;
          return tx.query(sql, params);
        },
      };
      return issueInvoice(
        counted,
        scope(),
        id,
        { numero: `F-${slot}`, estado: 'open', cfdi_xml: `<cfdi:Comprobante Serie="F" Folio="${slot}"/>` },
        slot,
        {
          orgId: t.seed.org.id,
          mode: 'test',
          type: 'invoice.finalized',
          object: 'invoice',
          objectId: id,
          data: { id, numero: `F-${slot}`, link_publico: 'https://secret.example/i/x' },
          actor: 'system',
        },
      );
    });
    expect(statements).toBe(1);
    expect(issued).toMatchObject({ id, numero: 'F-000042', estado: 'open' });
    const [xml] = await t.db.query<{ cfdi_xml: string }>('SELECT cfdi_xml FROM invoices WHERE id = $1', [id]);
    expect(xml!.cfdi_xml).toBe('<cfdi:Comprobante Serie="F" Folio="000042"/>');
    expect(await eventsOf(id)).toEqual([
      { type: 'invoice.finalized', data: { id, numero: 'F-000042' }, actor: 'system' },
    ]);
  });

  it('writes numbers past six digits whole, as takeNumber does', async () => {
    await counterAt(999_999);
    const id = await draftInvoice();
    const issued = await issueInvoice(t.db, scope(), id, { numero: 'F-x', estado: 'open' }, 'x');
    expect(issued.numero).toBe('F-1000000');
    expect(await t.db.transaction((tx) => takeNumber(tx, scope(), 'F'))).toBe('F-1000001');
    await counterAt(0);
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
