import { randomUUID } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { SaxesParser } from 'saxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../services/api-keys.js';
import { fireOverdueInvoices } from '../services/invoices.js';
import { createOrg } from '../services/orgs.js';
import { PLANS } from '../services/plans.js';
import { expectError, statementsDuring } from '../testing/assertions.js';
import { INVOICE_EVENT_FIELDS } from '../testing/event-fields.js';
import { createTestContext, restrictedKey, type TestContext } from '../testing/harness.js';

let t: TestContext;
let sk: string;
let skLive: string;
let laptop: string;
beforeAll(async () => {
  t = await createTestContext();
  sk = t.seed.keys.sk_test_write;
  skLive = t.seed.keys.sk_live_write;
  laptop = t.seed.products.find((p) => p.sku === 'LAP-14')!.id;
});
afterAll(() => t.close());

type Json = Record<string, any>;
const call = async (
  method: string,
  path: string,
  body?: unknown,
  key = sk,
  headers: Record<string, string> = {},
) => {
  const res = await t.call(method, `/api/v1${path}`, { key, body, headers });
  return { res, body: (await res.clone().json()) as Json };
};
const cliente = {
  empresa: 'Ferretería La Tuerca',
  email: 'pagos@tuerca.example',
  fiscal: {
    country: 'MX',
    tax_id: 'FLT010101AB1',
    regimen_fiscal: '601',
    uso_cfdi: 'G03',
    cp_fiscal: '44100',
  },
};
const line = (cantidad = 2, precio_unitario = 1000) => ({
  descripcion: 'Servicio',
  cantidad,
  precio_unitario,
});
const draft = async (extra: Json = {}, key = sk) => {
  const { res, body } = await call('POST', '/facturas', { cliente, items: [line()], ...extra }, key);
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.data as Json;
};
const act = (id: string, body: Json, key = sk) => call('POST', `/facturas/${id}`, body, key);
/** A secret test key of a new organization of the developer plan (Spanish unless said). */
async function orgKey(fields: Partial<Parameters<typeof createOrg>[1]> & { nombre: string }) {
  const org = await createOrg(t.db, { plan: 'developer', ...fields });
  return (await createApiKey(t.db, { orgId: org.id, kind: 'secret', mode: 'test', scope: 'write' })).key;
}
const spanishKey = (nombre: string, currencies = ['EUR']) =>
  orgKey({ nombre, country: 'ES', currency: 'EUR', currencies, default_tax_rate: 0.21, locale: 'es' });
const count = async (table: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n;
const eventsOf = async (id: string) =>
  (await call('GET', `/events?object_id=${id}`)).body.data.map((e: Json) => e.type).reverse();

describe('POST /facturas', () => {
  it('creates a draft priced by computeTotals, with no number, no link and no event', async () => {
    const data = await draft({ items: [line(2, 1000)], descuento: { tipo: 'porcentaje', valor: 10 } });
    expect(data).toMatchObject({
      object: 'invoice',
      numero: null,
      folio_fiscal: null,
      estado: 'draft',
      estado_fiscal: 'pending',
      pais: 'MX',
      tipo: 'cfdi',
      moneda: 'MXN',
      subtotal: 2000,
      descuento: 200,
      impuestos: 288,
      total: 2088,
      pagado: 0,
      acreditado: 0,
      saldo: 2088,
      emitida: null,
      metodo_pago: 'PPD',
      cotizacion_id: null,
      link_publico: null,
      pagos: [],
      notas_credito: [],
    });
    expect(data.vence).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(data.items).toHaveLength(1);
    expect(await eventsOf(data.id)).toEqual([]);
  });

  it('answers creation and finalize with the detail a read gives, without reading back what it wrote or knows empty', async () => {
    const reads = (statements: string[]) =>
      statements.filter((sql) => /FROM (invoice_items|invoice_payments|credit_notes)\b/.test(sql));
    let created: Json = {};
    const creation = await statementsDuring(t.db, async () => {
      created = await draft({ items: [line(3, 250), { ...line(1, 99.99), descripcion: 'Extra' }] });
    });
    expect(reads(creation)).toEqual([]);
    expect(created.items.map((item: Json) => item.descripcion)).toEqual(['Servicio', 'Extra']);
    expect(created).toEqual((await call('GET', `/facturas/${created.id}`)).body.data);
    let finalized: Json = {};
    const finalization = await statementsDuring(t.db, async () => {
      finalized = (await act(created.id, { action: 'finalize' })).body.data;
    });
    // Its lines are read once, with its client, to stamp them, and a draft has no payments or
    // credit notes.
    expect(reads(finalization)).toEqual([expect.stringMatching(/FROM invoice_items\b[\s\S]*FROM clients\b/)]);
    expect(finalization.filter((sql) => /\bFROM clients\b/.test(sql))).toHaveLength(1);
    expect(finalized.estado).toBe('open');
    expect(finalized).toEqual((await call('GET', `/facturas/${created.id}`)).body.data);
  });

  it('prices catalog lines and takes a due date or days of credit', async () => {
    const data = await draft({
      items: [{ descripcion: 'Laptop', cantidad: 1, precio_unitario: 24500, producto_id: laptop }],
      vence: '2099-01-31',
    });
    expect(data.vence).toBe('2099-01-31');
    expect(data.items[0]).toMatchObject({ sku: 'LAP-14', producto_id: laptop });
  });

  it('takes a due date already past (an invoice issued earlier), aged as such in /cobranza', async () => {
    const vence = new Date(Date.now() - 45 * 86_400_000).toISOString().slice(0, 10);
    const created = await draft({
      cliente: { empresa: `Atrasada ${randomUUID()}` },
      items: [line(1, 100)],
      vence,
    });
    expect(created).toMatchObject({ vence, metodo_pago: 'PPD' });
    const open = (await call('POST', `/facturas/${created.id}`, { action: 'finalize' })).body.data;
    expect(open).toMatchObject({ estado: 'open', vence });
    const report = (await call('GET', `/cobranza?cliente_id=${created.cliente_id}`)).body.data;
    expect(report.monedas[0].antiguedad).toEqual({
      al_corriente: 0,
      d1_30: 0,
      d31_60: open.total,
      d61_90: 0,
      mas_90: 0,
    });
  });

  it.each([
    [{ items: [] }, 'items'],
    [{ items: [line(0)] }, 'cantidad'],
    [{ cliente: undefined }, 'cliente'],
    [{ cliente_id: '00000000-0000-0000-0000-000000000000', cliente: undefined }, 'cliente_id'],
    [{ cliente_id: '-'.repeat(36), cliente: undefined }, 'cliente_id'],
    [{ vence: '2099-02-30' }, 'vence'],
    [{ vence: '2099-01-01', dias_credito: 5 }, 'dias_credito'],
    [{ moneda: 'JPY' }, 'moneda'],
    [{ metodo_pago: 'XYZ' }, 'metodo_pago'],
    [{ sorpresa: true }, 'sorpresa'],
  ])('refuses bad input (%j) naming the field, writing nothing', async (extra, field) => {
    const before = [await count('invoices'), await count('clients'), await count('events')];
    const { res, body } = await call('POST', '/facturas', { cliente, items: [line()], ...extra });
    expect(res.status).toBe(400);
    expect(['invalid_request', 'invalid_client']).toContain(body.code);
    expect(body.error).toContain(field);
    expect([await count('invoices'), await count('clients'), await count('events')]).toEqual(before);
  });

  it('finds its client by e-mail or creates it once, with its client.created event, within the plan', async () => {
    const email = `${randomUUID()}@cliente.example`;
    const clientsBy = async () =>
      t.db.query<{ id: string }>('SELECT id FROM clients WHERE email = $1', [email]);
    let first: Json = {};
    const statements = await statementsDuring(t.db, async () => {
      first = await draft({
        cliente: { empresa: 'Nueva SA', email },
        items: [line(), { descripcion: 'Laptop', cantidad: 1, precio_unitario: 24500, producto_id: laptop }],
      });
    });
    // One statement reads the client, the client count and the products; one writes the invoice
    // with its lines.
    expect(statements.filter((sql) => /\bFROM (clients|client_counts|products)\b/.test(sql))).toHaveLength(1);
    const lines = statements.filter((sql) => /\binvoice_items\b/.test(sql));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/INSERT INTO invoices\b/);
    const [created] = await clientsBy();
    expect(first.cliente_id).toBe(created!.id);
    const again = await draft({ cliente: { empresa: 'Otro nombre', email: email.toUpperCase() } });
    expect(again.cliente_id).toBe(created!.id);
    expect(await clientsBy()).toHaveLength(1);
    const events = await t.db.query<{ type: string }>('SELECT type FROM events WHERE object_id = $1', [
      created!.id,
    ]);
    expect(events.map((event) => event.type)).toEqual(['client.created']);
    expect((await draft({ cliente_id: created!.id, cliente: undefined })).cliente_id).toBe(created!.id);
    await expectError(
      (await call('POST', '/facturas', { cliente_id: 'not-an-id', items: [line()] })).res,
      400,
      'invalid_client',
    );

    const free = t.seed.free_org.keys.sk_test_write;
    await t.db.query(
      `INSERT INTO clients (org_id, mode, empresa) SELECT $1, 'test', 'Lleno ' || i
       FROM generate_series(1, $2::int - (SELECT count(*)::int FROM clients WHERE org_id = $1 AND mode = 'test')) i`,
      [t.seed.free_org.id, PLANS.free.maxClients],
    );
    const before = await count('clients');
    const { res } = await call(
      'POST',
      '/facturas',
      { cliente: { empresa: 'Uno más' }, items: [line()] },
      free,
    );
    await expectError(res, 402, 'plan_limit_reached');
    expect(await count('clients')).toBe(before);
  });

  it('refuses publishable keys and read keys, and keeps test and live apart', async () => {
    await expectError(
      (
        await call('POST', '/facturas', { cliente, items: [line()] }, t.seed.keys.pk_test, {
          Origin: 'http://localhost:3000',
        })
      ).res,
      403,
      'insufficient_scope',
    );
    await expectError(
      (await call('POST', '/facturas', { cliente, items: [line()] }, t.seed.keys.sk_test_read)).res,
      403,
      'insufficient_scope',
    );
    const test = await draft();
    await expectError((await call('GET', `/facturas/${test.id}`, undefined, skLive)).res, 404, 'not_found');
    const list = await call('GET', '/facturas?limit=200', undefined, skLive);
    expect(list.body.data.map((i: Json) => i.id)).not.toContain(test.id);
  });

  it('needs the facturas permission on a restricted key', async () => {
    const make = (permissions: Record<string, 'read' | 'write'>) => restrictedKey(t, permissions);
    const none = await make({ cotizaciones: 'write' });
    const reader = await make({ facturas: 'read' });
    const writer = await make({ facturas: 'write' });
    await expectError((await call('GET', '/facturas', undefined, none)).res, 403, 'insufficient_scope');
    expect((await call('GET', '/facturas', undefined, reader)).res.status).toBe(200);
    await expectError(
      (await call('POST', '/facturas', { cliente, items: [line()] }, reader)).res,
      403,
      'insufficient_scope',
    );
    expect((await call('POST', '/facturas', { cliente, items: [line()] }, writer)).res.status).toBe(200);
  });
});

describe('GET /facturas', () => {
  it('pages newest first by cursor and filters by estado and client', async () => {
    const a = await draft();
    const b = await draft();
    await act(b.id, { action: 'finalize' });
    const first = await call('GET', '/facturas?limit=1');
    expect(first.body.data).toHaveLength(1);
    expect(first.body.data[0].id).toBe(b.id);
    expect(first.body.data[0]).not.toHaveProperty('items');
    const second = await call('GET', `/facturas?limit=1&cursor=${first.body.meta.next_cursor}`);
    expect(second.body.data[0].id).toBe(a.id);
    const open = await call('GET', '/facturas?estado=open&limit=200');
    expect(open.body.data.length).toBeGreaterThan(0);
    expect(open.body.data.every((i: Json) => i.estado === 'open')).toBe(true);
    const mine = await call('GET', `/facturas?cliente_id=${a.cliente_id}&limit=200`);
    expect(mine.body.data.map((i: Json) => i.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    await expectError((await call('GET', '/facturas?estado=nope')).res, 400, 'invalid_request');
    await expectError((await call('GET', '/facturas?offset=1')).res, 400, 'invalid_request');
  });
});

describe('finalize (MX, sandbox stamping)', () => {
  it('writes a well-formed CFDI whatever the names and descriptions hold, reading back the invoice’s text', async () => {
    const descripcion = 'Soporte AT&T; plan &nbsp; <b>&amp; "HDMI"\u0001 ñ';
    const legal = 'Ferretería & Hijos; &copy\u0007';
    const inv = await draft({
      // A client of its own: the file's usual one already exists with its own fiscal data.
      cliente: {
        empresa: 'Hijos y Tuercas',
        email: 'hijos@tuerca.example',
        fiscal: { ...cliente.fiscal, tax_id: 'HYT010101AB1', legal_name: legal },
      },
      items: [{ descripcion, cantidad: 1, precio_unitario: 10 }],
    });
    const { body } = await act(inv.id, { action: 'finalize' });
    expect(body.data.estado_fiscal).toBe('stamped');
    const xml = await (await t.app.request(`/i/${body.data.link_publico.split('/i/')[1]}/cfdi.xml`)).text();
    // A strict XML 1.0 parser: undefined entities and control characters are errors.
    const attributes = new Map<string, Record<string, string>>();
    const parser = new SaxesParser({ xmlns: false });
    parser.on('opentag', (tag) => {
      attributes.set(tag.name, tag.attributes as Record<string, string>);
    });
    expect(() => parser.write(xml).close()).not.toThrow();
    expect(attributes.get('cfdi:Concepto')).toMatchObject({
      Descripcion: 'Soporte AT&T; plan &nbsp; <b>&amp; "HDMI" ñ',
    });
    expect(attributes.get('cfdi:Receptor')?.Nombre).toBe('FERRETERÍA & HIJOS; &COPY');
  });

  it('numbers, stamps a CFDI 4.0 with the client fiscal data, opens, and fires invoice.finalized', async () => {
    const inv = await draft();
    const { res, body } = await act(inv.id, { action: 'finalize' });
    expect(res.status).toBe(200);
    const data = body.data;
    expect(data).toMatchObject({ estado: 'open', estado_fiscal: 'stamped', motivo_fiscal: null });
    expect(data.numero).toMatch(/^F-\d{6}$/);
    expect(data.folio_fiscal).toMatch(/^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
    expect(data.emitida).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(data.link_publico).toMatch(/\/i\/[0-9A-Za-z]{40}$/);
    expect(await eventsOf(inv.id)).toEqual(['invoice.finalized']);
    const [event] = (await call('GET', `/events?object_id=${inv.id}`)).body.data;
    expect(Object.keys(event.data).sort()).toEqual(
      INVOICE_EVENT_FIELDS.filter((field) => field !== 'link_publico').sort(),
    );
    // Written by the invoice's own update (one round trip under the number's lock): the invoice
    // as it was answered.
    expect(event.data).toEqual({
      id: data.id,
      object: 'invoice',
      numero: data.numero,
      folio_fiscal: data.folio_fiscal,
      estado: 'open',
      estado_fiscal: 'stamped',
      pais: data.pais,
      tipo: data.tipo,
      moneda: data.moneda,
      total: data.total,
      pagado: data.pagado,
      saldo: data.saldo,
      vence: data.vence,
      cliente: data.cliente,
      cotizacion_id: data.cotizacion_id,
    });
    // The stamped XML, read back.
    const xml = await (await t.app.request(`/i/${data.link_publico.split('/i/')[1]}/cfdi.xml`)).text();
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
    const c = doc['cfdi:Comprobante'];
    expect(c).toMatchObject({
      Version: '4.0',
      Serie: 'F',
      Folio: data.numero.slice(2),
      Total: '2320.00',
      Moneda: 'MXN',
      TipoDeComprobante: 'I',
    });
    expect(c['cfdi:Receptor']).toMatchObject({
      Rfc: 'FLT010101AB1',
      RegimenFiscalReceptor: '601',
      UsoCFDI: 'G03',
      DomicilioFiscalReceptor: '44100',
    });
    expect(c['cfdi:Conceptos']['cfdi:Concepto']).toMatchObject({
      ClaveProdServ: '01010101',
      ClaveUnidad: 'H87',
      Importe: '2000.00',
    });
    expect(c['cfdi:Impuestos']).toMatchObject({ TotalImpuestosTrasladados: '320.00' });
    const tfd = c['cfdi:Complemento']['tfd:TimbreFiscalDigital'];
    expect(tfd.UUID).toBe(data.folio_fiscal);
    expect(tfd.Leyenda).toMatch(/SANDBOX/);
  });

  it('a forced rejection answers 400 fiscal_rejected, keeps the draft (estado_fiscal rejected) and skips no number', async () => {
    const first = await draft();
    await act(first.id, { action: 'finalize' });
    const before = (await call('GET', `/facturas/${first.id}`)).body.data.numero as string;
    const inv = await draft();
    expect(
      (
        await call('POST', '/test_helpers/fiscal', {
          result: 'rejected',
          motivo: 'RFC del receptor no válido',
        })
      ).res.status,
    ).toBe(200);
    const refused = await act(inv.id, { action: 'finalize' });
    const error = await expectError(refused.res, 400, 'invalid_request');
    expect(error).toMatchObject({ reason: 'fiscal_rejected', motivo: 'RFC del receptor no válido' });
    const kept = (await call('GET', `/facturas/${inv.id}`)).body.data;
    expect(kept).toMatchObject({
      estado: 'draft',
      estado_fiscal: 'rejected',
      motivo_fiscal: 'RFC del receptor no válido',
      numero: null,
    });
    expect(await eventsOf(inv.id)).toEqual([]);
    // Used once: the next finalize stamps, with the very next number.
    const ok = (await act(inv.id, { action: 'finalize' })).body.data;
    expect(ok).toMatchObject({ estado: 'open', estado_fiscal: 'stamped', motivo_fiscal: null });
    expect(Number(ok.numero.slice(2))).toBe(Number(before.slice(2)) + 1);
  });

  it('a forced outage answers 503 fiscal_unavailable with Retry-After and changes nothing', async () => {
    const inv = await draft();
    await call('POST', '/test_helpers/fiscal', { result: 'unavailable' });
    const { res } = await act(inv.id, { action: 'finalize' });
    await expectError(res, 503, 'fiscal_unavailable');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call('GET', `/facturas/${inv.id}`)).body.data).toMatchObject({
      estado: 'draft',
      estado_fiscal: 'pending',
      numero: null,
    });
    expect(await eventsOf(inv.id)).toEqual([]);
    // An agent gets the wait in the tool error, where it cannot read a header.
    await call('POST', '/test_helpers/fiscal', { result: 'unavailable' });
    const overMcp = await t.call('POST', '/mcp', {
      key: sk,
      headers: { accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'invoice_action', arguments: { id: inv.id, action: 'finalize' } },
      },
    });
    const tool = ((await overMcp.json()) as Json).result;
    expect(tool.isError).toBe(true);
    expect(tool.structuredContent).toMatchObject({
      code: 'fiscal_unavailable',
      retry_after: expect.any(Number),
    });
    expect(tool.structuredContent.retry_after).toBeGreaterThan(0);
  });

  it('under an Idempotency-Key too, a forced rejection is recorded and each forced result is used once', async () => {
    const withKey = (id: string, key: string) =>
      call('POST', `/facturas/${id}`, { action: 'finalize' }, sk, { 'Idempotency-Key': key });
    const rejected = await draft();
    await call('POST', '/test_helpers/fiscal', { result: 'rejected', motivo: 'RFC no registrado' });
    await expectError((await withKey(rejected.id, `rej-${rejected.id}`)).res, 400, 'invalid_request');
    expect((await call('GET', `/facturas/${rejected.id}`)).body.data).toMatchObject({
      estado: 'draft',
      estado_fiscal: 'rejected',
      motivo_fiscal: 'RFC no registrado',
    });
    const next = await draft();
    expect((await act(next.id, { action: 'finalize' })).body.data.estado_fiscal).toBe('stamped');

    const unavailable = await draft();
    await call('POST', '/test_helpers/fiscal', { result: 'unavailable' });
    await expectError(
      (await withKey(unavailable.id, `out-${unavailable.id}`)).res,
      503,
      'fiscal_unavailable',
    );
    // A 5xx is not stored: the retry with the same key runs again, and the outage was used once.
    const retried = await withKey(unavailable.id, `out-${unavailable.id}`);
    expect(retried.res.status).toBe(200);
    expect(retried.body.data).toMatchObject({ estado: 'open', estado_fiscal: 'stamped' });
  });

  it('a live MX invoice fails closed without a configured provider', async () => {
    const inv = await draft({}, skLive);
    const { res } = await act(inv.id, { action: 'finalize' }, skLive);
    await expectError(res, 503, 'fiscal_unavailable');
    expect((await call('GET', `/facturas/${inv.id}`, undefined, skLive)).body.data.estado).toBe('draft');
  });

  it('the fiscal test helper is for test keys only and validates its body', async () => {
    await expectError(
      (await call('POST', '/test_helpers/fiscal', { result: 'stamped' }, skLive)).res,
      403,
      'insufficient_scope',
    );
    await expectError(
      (await call('POST', '/test_helpers/fiscal', { result: 'maybe' })).res,
      400,
      'invalid_request',
    );
  });
});

describe('invoice actions', () => {
  const open = async () => {
    const inv = await draft();
    return (await act(inv.id, { action: 'finalize' })).body.data as Json;
  };

  it('pays in parts, then in full: paid with invoice.paid once', async () => {
    const inv = await open();
    const part = (
      await act(inv.id, { action: 'pay', monto: 1000, metodo: 'transferencia', referencia: 'SPEI 123' })
    ).body.data;
    expect(part).toMatchObject({ estado: 'open', pagado: 1000, saldo: 1320 });
    expect(part.pagos[0]).toMatchObject({ monto: 1000, metodo: 'transferencia', referencia: 'SPEI 123' });
    await expectError((await act(inv.id, { action: 'pay', monto: 1320.01 })).res, 400, 'invalid_request');
    await expectError((await act(inv.id, { action: 'pay', monto: 0 })).res, 400, 'invalid_request');
    await expectError(
      (await act(inv.id, { action: 'pay', monto: 1, fecha: '0000-01-01' })).res,
      400,
      'invalid_request',
    );
    // Not dated after today: a payment is registered once received.
    const future = await act(inv.id, { action: 'pay', monto: 1, fecha: '2099-01-01' });
    expect((await expectError(future.res, 400, 'invalid_request')).error).toContain('fecha');
    expect((await call('GET', `/facturas/${inv.id}`)).body.data.pagado).toBe(1000);
    // More decimals than the currency has would leave payments that do not add up to pagado.
    for (const action of ['pay', 'credit_note']) {
      const refused = await act(inv.id, {
        action,
        monto: 100.005,
        ...(action === 'pay' ? {} : { motivo: 'x' }),
      });
      expect((await expectError(refused.res, 400, 'invalid_request')).error).toMatch(
        /monto: at most 2 decimals/,
      );
    }
    expect((await call('GET', `/facturas/${inv.id}`)).body.data).toMatchObject({
      pagado: 1000,
      acreditado: 0,
    });
    const full = (await act(inv.id, { action: 'pay', monto: 1320 })).body.data;
    expect(full).toMatchObject({ estado: 'paid', pagado: 2320, saldo: 0 });
    expect(await eventsOf(inv.id)).toEqual(['invoice.finalized', 'invoice.paid']);
    await expectError((await act(inv.id, { action: 'pay', monto: 1 })).res, 409, 'invalid_state');
  });

  it('issues an invoice with nothing to collect (a total of 0) as paid, with invoice.paid', async () => {
    const free = await draft({ items: [line(1, 0)] });
    const done = (await act(free.id, { action: 'finalize' })).body.data;
    expect(done).toMatchObject({ estado: 'paid', total: 0, saldo: 0, estado_fiscal: 'stamped' });
    expect(await eventsOf(free.id)).toEqual(['invoice.finalized', 'invoice.paid']);
  });

  it('issues stamped credit notes NC-… that settle the balance', async () => {
    const inv = await open();
    const noted = (
      await act(inv.id, { action: 'credit_note', monto: 320, motivo: 'Descuento por pronto pago' })
    ).body.data;
    expect(noted).toMatchObject({ acreditado: 320, saldo: 2000, estado: 'open' });
    expect(noted.notas_credito[0]).toMatchObject({ monto: 320, motivo: 'Descuento por pronto pago' });
    expect(noted.notas_credito[0].numero).toMatch(/^NC-\d{6}$/);
    expect(noted.notas_credito[0].folio_fiscal).toMatch(/^[0-9A-F-]{36}$/);
    await expectError((await act(inv.id, { action: 'credit_note', monto: 10 })).res, 400, 'invalid_request');
    const settled = (
      await act(inv.id, { action: 'credit_note', monto: 2000, motivo: 'Cancelación del servicio' })
    ).body.data;
    expect(settled).toMatchObject({ estado: 'paid', saldo: 0 });
    expect(await eventsOf(inv.id)).toEqual(['invoice.finalized', 'invoice.paid']);
  });

  it('voids only without payments or credit notes (409 says to issue a credit note); MX cancels the stamp', async () => {
    const paid = await open();
    await act(paid.id, { action: 'pay', monto: 1 });
    const refused = await expectError((await act(paid.id, { action: 'void' })).res, 409, 'invalid_state');
    expect(String(refused.error)).toMatch(/credit note/);
    const inv = await open();
    const voided = (await act(inv.id, { action: 'void', motivo: 'Error de captura' })).body.data;
    expect(voided).toMatchObject({ estado: 'void', estado_fiscal: 'cancelled' });
    expect(await eventsOf(inv.id)).toEqual(['invoice.finalized', 'invoice.voided']);
  });

  it('marks uncollectible from open, then takes payments or a void from there', async () => {
    const inv = await open();
    expect((await act(inv.id, { action: 'mark_uncollectible' })).body.data.estado).toBe('uncollectible');
    await expectError((await act(inv.id, { action: 'mark_uncollectible' })).res, 409, 'invalid_state');
    expect((await act(inv.id, { action: 'send' })).body.data.estado).toBe('uncollectible');
    expect((await act(inv.id, { action: 'pay', monto: 2320 })).body.data.estado).toBe('paid');
    expect(await eventsOf(inv.id)).toEqual([
      'invoice.finalized',
      'invoice.marked_uncollectible',
      'invoice.sent',
      'invoice.paid',
    ]);
  });

  it('refuses each action from a state it does not start from, changing nothing', async () => {
    const inv = await draft();
    for (const action of ['send', 'pay', 'credit_note', 'void', 'mark_uncollectible']) {
      const body =
        action === 'pay'
          ? { action, monto: 1 }
          : action === 'credit_note'
            ? { action, monto: 1, motivo: 'x' }
            : { action };
      await expectError((await act(inv.id, body)).res, 409, 'invalid_state');
    }
    await act(inv.id, { action: 'finalize' });
    await expectError((await act(inv.id, { action: 'finalize' })).res, 409, 'invalid_state');
    await expectError((await act(inv.id, { action: 'refund' })).res, 400, 'invalid_request');
    expect(await eventsOf(inv.id)).toEqual(['invoice.finalized']);
  });

  it('sends the invoice to the client through the outbox, with its link', async () => {
    const inv = await open();
    await act(inv.id, { action: 'send' });
    const [mail] = await t.db.query<{ subject: string; body: string; to_email: string }>(
      'SELECT subject, body, to_email FROM email_outbox ORDER BY created_at DESC LIMIT 1',
    );
    expect(mail!.subject).toContain(inv.numero);
    expect(mail!.body).toContain(inv.link_publico);
    expect(mail!.to_email).toBe('pagos@tuerca.example');
    // The due date as the invoice's page writes it, never as ISO.
    const due = new Intl.DateTimeFormat('es-MX', { dateStyle: 'long', timeZone: 'UTC' }).format(
      new Date(`${inv.vence}T00:00:00Z`),
    );
    expect(mail!.body).toContain(due);
    expect(mail!.body).not.toContain(inv.vence);
  });

  it('replays an action with the same Idempotency-Key instead of paying twice', async () => {
    const inv = await open();
    const headers = { 'Idempotency-Key': `pay-${inv.id}` };
    const a = await call('POST', `/facturas/${inv.id}`, { action: 'pay', monto: 100 }, sk, headers);
    const b = await call('POST', `/facturas/${inv.id}`, { action: 'pay', monto: 100 }, sk, headers);
    expect(b.res.headers.get('idempotent-replayed')).toBe('true');
    expect(await b.res.text()).toBe(await a.res.text());
    expect((await call('GET', `/facturas/${inv.id}`)).body.data.pagado).toBe(100);
  });
});

describe('overdue and failed charges', () => {
  it('fires invoice.overdue once with a reminder e-mail (helper and job)', async () => {
    const inv = await draft();
    await act(inv.id, { action: 'finalize' });
    const helped = await call('POST', `/test_helpers/facturas/${inv.id}`, { action: 'overdue' });
    expect(helped.res.status).toBe(200);
    expect(helped.body.data.vence < new Date().toISOString().slice(0, 10)).toBe(true);
    await fireOverdueInvoices(t.deps, new Date());
    await fireOverdueInvoices(t.deps, new Date(Date.now() + 86_400_000));
    expect(await eventsOf(inv.id)).toEqual(['invoice.finalized', 'invoice.overdue']);
    const reminders = await t.db.query<{ subject: string }>(
      `SELECT subject FROM email_outbox WHERE subject LIKE '%' || $1 || '%'`,
      [helped.body.data.numero],
    );
    expect(reminders).toHaveLength(1);
  });

  it('records a failed charge without changing the invoice', async () => {
    const inv = await draft();
    await act(inv.id, { action: 'finalize' });
    const { body } = await call('POST', `/test_helpers/facturas/${inv.id}`, {
      action: 'payment_failed',
      motivo: 'card_declined',
    });
    expect(body.data.estado).toBe('open');
    expect(await eventsOf(inv.id)).toEqual(['invoice.finalized', 'invoice.payment_failed']);
    await expectError(
      (await call('POST', `/test_helpers/facturas/${inv.id}`, { action: 'payment_failed' }, skLive)).res,
      403,
      'insufficient_scope',
    );
  });
});

describe('quote action invoice', () => {
  const approvedQuote = async (key = sk) => {
    const created = await call(
      'POST',
      '/cotizaciones',
      { cliente, items: [line(2, 1000)], cupon: 'BIENVENIDA10' },
      key,
    );
    const id = created.body.data.id as string;
    await call('POST', `/cotizaciones/${id}`, { action: 'send' }, key);
    await call('POST', `/cotizaciones/${id}`, { action: 'approve' }, key);
    return id;
  };

  it('declares the exchange rate of a sale in another currency than the accounting one, or refuses without one', async () => {
    const comprobante = (xml: string) =>
      new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml)['cfdi:Comprobante'];
    const publicXml = async (link: string) =>
      (await t.app.request(`/i/${link.split('/i/')[1]}/cfdi.xml`)).text();
    const approved = async (extra: Json, key = sk) => {
      const created = await call('POST', '/cotizaciones', { cliente, items: [line(1, 100)], ...extra }, key);
      const id = created.body.data.id as string;
      await call('POST', `/cotizaciones/${id}`, { action: 'send' }, key);
      await call('POST', `/cotizaciones/${id}`, { action: 'approve' }, key);
      return id;
    };
    // Mexico, sold in dollars: a CFDI is accounted in pesos, 18.5 by the organization's rates,
    // even when the quote named another accounting currency.
    const dollars = await approved({ base_currency: 'USD', fiscal_currency: 'USD' });
    const invoiced = (await call('POST', `/cotizaciones/${dollars}`, { action: 'invoice' })).body.data;
    const invoice = (await call('GET', `/facturas/${invoiced.factura.id}`)).body.data;
    expect(invoice).toMatchObject({ moneda: 'USD', moneda_fiscal: 'MXN', tipo_cambio: 18.5 });
    expect(comprobante(await publicXml(invoice.link_publico))).toMatchObject({
      Moneda: 'USD',
      TipoCambio: '18.5',
    });
    // Its credit note declares the same rate.
    expect((await act(invoice.id, { action: 'credit_note', monto: 10, motivo: 'Ajuste' })).res.status).toBe(
      200,
    );
    const [note] = await t.db.query<{ cfdi_xml: string }>(
      'SELECT cfdi_xml FROM credit_notes WHERE invoice_id = $1',
      [invoice.id],
    );
    expect(comprobante(note!.cfdi_xml)).toMatchObject({ Moneda: 'USD', TipoCambio: '18.5' });
    // In pesos: no rate to declare.
    const pesos = await draft();
    expect(pesos).toMatchObject({ moneda: 'MXN', moneda_fiscal: 'MXN', tipo_cambio: null });
    const issued = (await act(pesos.id, { action: 'finalize' })).body.data;
    expect(issued.tipo_cambio).toBeNull();
    expect(comprobante(await publicXml(issued.link_publico))).not.toHaveProperty('TipoCambio');
    // Outside Mexico the accounting currency is the sale's unless the quote names another; this
    // organization has no rates, so naming one cannot be issued: 503, nothing changed.
    const key = await spanishKey('Cambios SL', ['EUR', 'USD']);
    const plain = await approved({ base_currency: 'USD' }, key);
    const plainInvoice = (await call('POST', `/cotizaciones/${plain}`, { action: 'invoice' }, key)).body.data;
    expect(
      (await call('GET', `/facturas/${plainInvoice.factura.id}`, undefined, key)).body.data,
    ).toMatchObject({
      moneda: 'USD',
      moneda_fiscal: 'USD',
      tipo_cambio: null,
    });
    const euros = await approved({ base_currency: 'USD', fiscal_currency: 'EUR' }, key);
    const before = await count('invoices');
    await expectError(
      (await call('POST', `/cotizaciones/${euros}`, { action: 'invoice' }, key)).res,
      503,
      'fx_unavailable',
    );
    expect(await count('invoices')).toBe(before);
    expect((await call('GET', `/cotizaciones/${euros}`, undefined, key)).body.data.status).toBe('approved');
  });

  it('refuses an invoice without its rate before taking a forced test result for the stamp', async () => {
    const key = await orgKey({
      nombre: 'Sin Tasas SA',
      country: 'MX',
      currency: 'MXN',
      currencies: ['MXN', 'USD'],
    });
    const items = [line(1, 100)];
    expect(
      (await call('POST', '/test_helpers/fiscal', { result: 'rejected', motivo: 'Forzado' }, key)).res.status,
    ).toBe(200);
    const dollars = (await call('POST', '/facturas', { cliente, items, moneda: 'USD' }, key)).body.data;
    await expectError((await act(dollars.id, { action: 'finalize' }, key)).res, 503, 'fx_unavailable');
    // The forced rejection is still there for the next stamping.
    const pesos = (await call('POST', '/facturas', { cliente, items }, key)).body.data;
    const refused = await act(pesos.id, { action: 'finalize' }, key);
    expect(refused.res.status).toBe(400);
    expect(refused.body).toMatchObject({ reason: 'fiscal_rejected', motivo: 'Forzado' });
  });

  it('invoices an approved quote: stamped, quote invoiced, invoice.stamped with the quote family data', async () => {
    const id = await approvedQuote();
    const { res, body } = await call('POST', `/cotizaciones/${id}`, { action: 'invoice' });
    expect(res.status).toBe(200);
    expect(body.data.status).toBe('invoiced');
    // The quote detail, as every other action answers it; an invoiced quote's names its invoice.
    expect(body.data).toEqual((await call('GET', `/cotizaciones/${id}`)).body.data);
    expect(body.data).toHaveProperty('saldo');
    expect(body.data).toHaveProperty('conversacion');
    expect(body.data.factura).toMatchObject({
      estado: 'open',
      numero: expect.stringMatching(/^F-\d{6}$/),
      folio_fiscal: expect.stringMatching(/^[0-9A-F-]{36}$/),
    });
    const invoice = (await call('GET', `/facturas/${body.data.factura.id}`)).body.data;
    expect(invoice).toMatchObject({
      cotizacion_id: id,
      total: 2088,
      subtotal: 2000,
      descuento: 200,
      metodo_pago: 'PPD',
      estado_fiscal: 'stamped',
    });
    const events = (await call('GET', `/events?object_id=${id}`)).body.data;
    expect(events[0]).toMatchObject({
      type: 'invoice.stamped',
      object: 'quote',
      data: { id, status: 'invoiced', total: 2088 },
    });
    await expectError(
      (await call('POST', `/cotizaciones/${id}`, { action: 'invoice' })).res,
      409,
      'invalid_state',
    );
    // Paid, the invoice is named as it stands now.
    await act(invoice.id, { action: 'pay', monto: 2088 });
    expect((await call('GET', `/cotizaciones/${id}`)).body.data.factura).toEqual({
      id: invoice.id,
      numero: invoice.numero,
      folio_fiscal: invoice.folio_fiscal,
      estado: 'paid',
    });
  });

  it('a paid quote gives a paid invoice (PUE)', async () => {
    const id = await approvedQuote();
    await call('POST', `/cotizaciones/${id}`, { action: 'mark_paid' });
    const { body } = await call('POST', `/cotizaciones/${id}`, { action: 'invoice' });
    const invoice = (await call('GET', `/facturas/${body.data.factura.id}`)).body.data;
    expect(invoice).toMatchObject({ estado: 'paid', metodo_pago: 'PUE', pagado: 2088, saldo: 0 });
  });

  it('carries a deposit paid on the quote over to its invoice', async () => {
    const created = await call('POST', '/cotizaciones', {
      cliente,
      items: [line(1, 1000)],
      plan_pagos: { tipo: 'anticipo', porcentaje: 50 },
    });
    const id = created.body.data.id as string;
    await call('POST', `/cotizaciones/${id}`, { action: 'send' });
    const deposit = await call('POST', `/cotizaciones/${id}`, { action: 'pay', monto: 580 });
    expect(deposit.body.data).toMatchObject({ status: 'approved', pagado: 580 });
    const { body } = await call('POST', `/cotizaciones/${id}`, { action: 'invoice' });
    const invoice = (await call('GET', `/facturas/${body.data.factura.id}`)).body.data;
    expect(invoice).toMatchObject({ estado: 'open', total: 1160, pagado: 580, saldo: 580 });
    expect(invoice.pagos[0]).toMatchObject({ monto: 580, referencia: created.body.data.folio });
  });

  it('a rejected stamping leaves the quote approved and creates no invoice', async () => {
    const id = await approvedQuote();
    const before = await count('invoices');
    await call('POST', '/test_helpers/fiscal', { result: 'rejected', motivo: 'Régimen fiscal incorrecto' });
    const error = await expectError(
      (await call('POST', `/cotizaciones/${id}`, { action: 'invoice' })).res,
      400,
      'invalid_request',
    );
    expect(error.reason).toBe('fiscal_rejected');
    expect((await call('GET', `/cotizaciones/${id}`)).body.data.status).toBe('approved');
    expect(await count('invoices')).toBe(before);
  });

  it('refuses quotes that are not approved or paid', async () => {
    const created = await call('POST', '/cotizaciones', { cliente, items: [line()] });
    await expectError(
      (await call('POST', `/cotizaciones/${created.body.data.id}`, { action: 'invoice' })).res,
      409,
      'invalid_state',
    );
  });

  it('derives the exemption_reason of lines taxed at 0 from the client, for quotes and invoices', async () => {
    const key = await spanishKey('Exenciones SL');
    const zero = { descripcion: 'Exenta', cantidad: 1, precio_unitario: 100, tax_rate: 0 };
    const items = [zero, line(1, 100), { ...zero, exemption_reason: 'E1' }];
    const french = { empresa: 'Vins SARL', fiscal: { country: 'FR', tax_id: 'FR12345678901' } };
    const quote = await call('POST', '/cotizaciones', { cliente: french, items }, key);
    expect(quote.res.status).toBe(200);
    const detail = (await call('GET', `/cotizaciones/${quote.body.data.id}`, undefined, key)).body.data;
    // Intra-Community: E5 where the rate is 0 and none was given; the given one stays.
    expect(detail.items.map((item: Json) => item.exemption_reason)).toEqual(['E5', null, 'E1']);
    const american = { empresa: 'Wine Inc', fiscal: { country: 'US', tax_id: '12-3456789' } };
    const invoice = await call('POST', '/facturas', { cliente: american, items }, key);
    expect(invoice.res.status).toBe(200);
    expect(invoice.body.data.items.map((item: Json) => item.exemption_reason)).toEqual(['E2', null, 'E1']);
    // A domestic sale, or a client without a fiscal country, tells nothing: no cause is invented.
    const spanish = { empresa: 'Bar Pepe', fiscal: { country: 'ES', tax_id: 'B12345678' } };
    for (const client of [spanish, { empresa: 'Sin País' }]) {
      const local = await call('POST', '/facturas', { cliente: client, items: [zero] }, key);
      expect(local.body.data.items[0].exemption_reason).toBeNull();
    }
  });

  it('takes each country’s own exemption causes, on any line taxed at 0, and ignores SAT keys outside Mexico', async () => {
    const spain = await spanishKey('Causas SL');
    const france = await orgKey({
      nombre: 'Causes SARL',
      country: 'FR',
      currency: 'EUR',
      default_tax_rate: 0.2,
    });
    const usa = await orgKey({ nombre: 'Causes Inc', country: 'US', currency: 'USD', default_tax_rate: 0 });
    const exempt = (reason: string | null, extra: Json = {}) => ({
      cliente: { empresa: 'Cliente' },
      items: [
        { descripcion: 'Exenta', cantidad: 1, precio_unitario: 100, exemption_reason: reason, ...extra },
      ],
    });
    const zero = { tax_rate: 0 };
    const before = await count('invoices');
    // Spain's causes in Spain, the European classification elsewhere in the EU.
    for (const [key, reason] of [
      [spain, 'VATEX-EU-IC'],
      [spain, 'Z'],
      [france, 'E1'],
    ] as const) {
      const refused = await expectError(
        (await call('POST', '/facturas', exempt(reason, zero), key)).res,
        400,
        'invalid_request',
      );
      expect(refused.error).toMatch(/^items\[0\]\.exemption_reason: an organization in (ES|FR) takes /);
    }
    expect(await count('invoices')).toBe(before);
    const french = await call('POST', '/facturas', exempt('VATEX-FR-FRANCHISE', zero), france);
    expect(french.body.data.items[0].exemption_reason).toBe('VATEX-FR-FRANCHISE');
    // A line taxed at 0 by the organization's default takes a cause without repeating tax_rate: 0;
    // one taxed otherwise is refused, even when its rate was not written on it.
    const american = await call('POST', '/facturas', exempt('E2'), usa);
    expect(american.res.status).toBe(200);
    expect(american.body.data.items[0]).toMatchObject({ tax_rate: 0, exemption_reason: 'E2' });
    const taxed = await expectError(
      (await call('POST', '/facturas', exempt('E1'), spain)).res,
      400,
      'invalid_request',
    );
    expect(taxed.error).toBe(
      'items[0].exemption_reason: only allowed on a line with tax_rate 0; this one is taxed at 0.21',
    );
    // null is "none given": derived from the client (none for a domestic one).
    const derived = await call('POST', '/facturas', exempt(null, zero), spain);
    expect(derived.body.data.items[0].exemption_reason).toBeNull();
    // SAT keys are Mexico's: ignored elsewhere, whatever they hold; checked in Mexico.
    const keys = { clave_sat: 'ABC', clave_unidad_sat: 'TOO-LONG' };
    const ignored = await call('POST', '/facturas', exempt(null, { ...zero, ...keys }), spain);
    expect(ignored.res.status).toBe(200);
    expect(ignored.body.data.items[0]).toMatchObject({ clave_sat: null, clave_unidad_sat: null });
    const mexican = await call('POST', '/facturas', { cliente, items: [{ ...line(), clave_sat: 'ABC' }] });
    expect((await expectError(mexican.res, 400, 'invalid_request')).error).toBe(
      'items[0].clave_sat: must be 8 digits',
    );
  });

  it('a non-MX organization issues commercial invoices with invoice.issued and no stamping', async () => {
    const key = await spanishKey('Estudio Olivo');
    const created = await call(
      'POST',
      '/cotizaciones',
      { cliente: { empresa: 'Bodega Sol' }, items: [line(1, 100)] },
      key,
    );
    const id = created.body.data.id;
    await call('POST', `/cotizaciones/${id}`, { action: 'send' }, key);
    await call('POST', `/cotizaciones/${id}`, { action: 'approve' }, key);
    const { body } = await call('POST', `/cotizaciones/${id}`, { action: 'invoice' }, key);
    expect(body.data.factura).toMatchObject({ estado: 'open', folio_fiscal: null, numero: 'F-000001' });
    const invoice = (await call('GET', `/facturas/${body.data.factura.id}`, undefined, key)).body.data;
    expect(invoice).toMatchObject({
      pais: 'ES',
      tipo: 'commercial',
      estado_fiscal: 'not_applicable',
      metodo_pago: null,
      moneda: 'EUR',
      total: 121,
    });
    const events = (await call('GET', `/events?object_id=${id}`, undefined, key)).body.data;
    expect(events[0].type).toBe('invoice.issued');
    // Numbers are per organization: this one's first is F-000001 while the demo's are far along.
    const demo = (await call('GET', '/facturas?estado=open&limit=1')).body.data[0];
    expect(demo.numero).not.toBe('F-000001');
  });
});

describe('the CFDI of a Mexican invoice (Anexo 20)', () => {
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' });
  const comprobante = (xml: string) => parser.parse(xml)['cfdi:Comprobante'] as Json;
  const list = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : ([] as T[]).concat(value));
  const cents = (value: string) => Math.round(Number(value) * 100);
  const invoiceXml = async (invoice: Json) =>
    comprobante(await (await t.app.request(`/i/${invoice.link_publico.split('/i/')[1]}/cfdi.xml`)).text());
  const noteXml = async (invoiceId: string) => {
    const rows = await t.db.query<{ cfdi_xml: string }>(
      'SELECT cfdi_xml FROM credit_notes WHERE invoice_id = $1 ORDER BY created_at DESC LIMIT 1',
      [invoiceId],
    );
    return comprobante(rows[0]!.cfdi_xml);
  };
  const issued = async (body: Json) => {
    const created = await call('POST', '/facturas', body);
    expect(created.res.status, JSON.stringify(created.body)).toBe(200);
    return (await act(created.body.data.id, { action: 'finalize' })).body.data as Json;
  };
  const quoteOf = async (body: Json) => {
    const created = await call('POST', '/cotizaciones', body);
    expect(created.res.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.data.id as string;
    await call('POST', `/cotizaciones/${id}`, { action: 'send' });
    await call('POST', `/cotizaciones/${id}`, { action: 'approve' });
    return { id, folio: created.body.data.folio as string };
  };
  const invoiceOfQuote = async (id: string) => {
    const { res, body } = await call('POST', `/cotizaciones/${id}`, { action: 'invoice' });
    expect(res.status, JSON.stringify(body)).toBe(200);
    return (await call('GET', `/facturas/${body.data.factura.id}`)).body.data as Json;
  };

  /** A credit note's CFDI: catalog rates only, Importe = Base × rate, parts adding up to `monto`. */
  function expectCreditNote(c: Json, monto: number) {
    const conceptos = list(c['cfdi:Conceptos']['cfdi:Concepto']);
    const traslados = conceptos.map(
      (concepto) => concepto['cfdi:Impuestos']['cfdi:Traslados']['cfdi:Traslado'],
    );
    for (const traslado of traslados) {
      expect(['0.000000', '0.080000', '0.160000']).toContain(traslado.TasaOCuota);
      expect(cents(traslado.Importe)).toBe(Math.round(cents(traslado.Base) * Number(traslado.TasaOCuota)));
      expect(cents(traslado.Base)).toBeGreaterThan(0);
    }
    const base = traslados.reduce((sum, tr) => sum + cents(tr.Base), 0);
    const tax = traslados.reduce((sum, tr) => sum + cents(tr.Importe), 0);
    expect(base + tax).toBe(Math.round(monto * 100));
    expect(cents(c.Total)).toBe(Math.round(monto * 100));
    expect(cents(c.SubTotal)).toBe(base);
    expect(cents(c['cfdi:Impuestos'].TotalImpuestosTrasladados)).toBe(tax);
    const global = list(c['cfdi:Impuestos']['cfdi:Traslados']['cfdi:Traslado']);
    expect(global.map((tr: Json) => tr.TasaOCuota).sort()).toEqual(
      traslados.map((tr: Json) => tr.TasaOCuota).sort(),
    );
    return traslados;
  }

  it('declares a credit note at the rates of the SAT catalog, split over the invoice rates to the cent', async () => {
    // One rate, whose per-line rounding made the effective rate 1.60 / 10.03.
    const single = await issued({
      cliente,
      items: [{ descripcion: 'Tornillo', cantidad: 1, precio_unitario: 10.03, tax_rate: 0.16 }],
    });
    expect(single).toMatchObject({ subtotal: 10.03, impuestos: 1.6, total: 11.63 });
    await act(single.id, { action: 'credit_note', monto: 5, motivo: 'Devolución' });
    const one = expectCreditNote(await noteXml(single.id), 5);
    expect(one).toEqual([
      { Base: '4.31', Impuesto: '002', TipoFactor: 'Tasa', TasaOCuota: '0.160000', Importe: '0.69' },
    ]);
    // Three rates: 1160 at 16 %, 540 at 8 %, 300 at 0 %; 333.33 split by largest remainder.
    const mixed = await issued({
      cliente,
      items: [
        { descripcion: 'Dieciséis', cantidad: 1, precio_unitario: 1000, tax_rate: 0.16 },
        { descripcion: 'Ocho', cantidad: 1, precio_unitario: 500, tax_rate: 0.08 },
        { descripcion: 'Cero', cantidad: 1, precio_unitario: 300, tax_rate: 0 },
      ],
    });
    expect(mixed.total).toBe(2000);
    await act(mixed.id, { action: 'credit_note', monto: 333.33, motivo: 'Devolución parcial' });
    const parts = expectCreditNote(await noteXml(mixed.id), 333.33);
    expect(parts.map((tr) => [tr.TasaOCuota, cents(tr.Base) + cents(tr.Importe)])).toEqual([
      ['0.160000', 19333],
      ['0.080000', 9000],
      ['0.000000', 5000],
    ]);
    // The rest of the balance, in another note: the same rules.
    await act(mixed.id, { action: 'credit_note', monto: 1666.67, motivo: 'Cancelación' });
    expectCreditNote(await noteXml(mixed.id), 1666.67);
  });

  it('declares a line with nothing left to tax as no object of tax (Anexo 20 wants a Base above 0)', async () => {
    const taxed = { descripcion: 'Servicio', cantidad: 1, precio_unitario: 100, tax_rate: 0.16 };
    const free = { descripcion: 'Cortesía', cantidad: 1, precio_unitario: 0, tax_rate: 0.16 };
    const mixed = await invoiceXml(await issued({ cliente, items: [taxed, free] }));
    const [paid, gift] = list(mixed['cfdi:Conceptos']['cfdi:Concepto']) as Json[];
    expect(paid).toMatchObject({ ObjetoImp: '02', Importe: '100.00' });
    expect(gift).toMatchObject({ ObjetoImp: '01', Importe: '0.00' });
    expect(gift!['cfdi:Impuestos']).toBeUndefined();
    expect(mixed['cfdi:Impuestos']).toMatchObject({ TotalImpuestosTrasladados: '16.00' });
    expect(list(mixed['cfdi:Impuestos']['cfdi:Traslados']['cfdi:Traslado'])).toEqual([
      { Base: '100.00', Impuesto: '002', TipoFactor: 'Tasa', TasaOCuota: '0.160000', Importe: '16.00' },
    ]);
    // Every line discounted to nothing: no Impuestos at all, and a total of 0.
    const whole = await invoiceXml(
      await issued({ cliente, items: [taxed], descuento: { tipo: 'porcentaje', valor: 100 } }),
    );
    expect(whole).toMatchObject({ SubTotal: '100.00', Descuento: '100.00', Total: '0.00' });
    expect(whole['cfdi:Conceptos']['cfdi:Concepto']).toMatchObject({ ObjetoImp: '01', Descuento: '100.00' });
    expect(whole['cfdi:Impuestos']).toBeUndefined();
  });

  it('stamps a client abroad as the generic foreign receiver and the public at large as the SAT says', async () => {
    const abroad = await issued({
      cliente: {
        empresa: 'Acme Corp',
        fiscal: { country: 'US', tax_id: '12-3456789', legal_name: 'Acme Corp' },
      },
      items: [{ descripcion: 'Consulting export', cantidad: 10, precio_unitario: 150, tax_rate: 0 }],
    });
    const c = await invoiceXml(abroad);
    expect(c['cfdi:Receptor']).toEqual({
      Rfc: 'XEXX010101000',
      Nombre: 'ACME CORP',
      DomicilioFiscalReceptor: c.LugarExpedicion,
      ResidenciaFiscal: 'USA',
      NumRegIdTrib: '123456789',
      RegimenFiscalReceptor: '616',
      UsoCFDI: 'S01',
    });
    // Its credit note too (S01, as the generic RFCs take).
    await act(abroad.id, { action: 'credit_note', monto: 100, motivo: 'Ajuste' });
    expect((await noteXml(abroad.id))['cfdi:Receptor']).toMatchObject({
      Rfc: 'XEXX010101000',
      ResidenciaFiscal: 'USA',
      UsoCFDI: 'S01',
    });
    // No tax data, or the generic RFC: the public at large, whatever else its fiscal data says.
    const generic = {
      country: 'MX',
      tax_id: 'XAXX010101000',
      regimen_fiscal: '601',
      uso_cfdi: 'G03',
      cp_fiscal: '44100',
    };
    for (const fiscal of [undefined, generic]) {
      const publico = await issued({
        cliente: { empresa: `Mostrador ${randomUUID()}`, ...(fiscal ? { fiscal } : {}) },
        items: [line(1, 100)],
      });
      const p = await invoiceXml(publico);
      expect(p['cfdi:Receptor']).toMatchObject({
        Rfc: 'XAXX010101000',
        DomicilioFiscalReceptor: p.LugarExpedicion,
        RegimenFiscalReceptor: '616',
        UsoCFDI: 'S01',
      });
    }
  });

  it('declares the FormaPago of the payment that settles a PUE invoice, and carries quote payments with their method', async () => {
    // Paid in cash on the quote: an invoice paid in cash, FormaPago 01.
    const cash = await quoteOf({ cliente, items: [line(1, 1000)] });
    await call('POST', `/cotizaciones/${cash.id}`, {
      action: 'pay',
      monto: 1160,
      payment_method: 'efectivo',
    });
    const cashInvoice = await invoiceOfQuote(cash.id);
    expect(cashInvoice).toMatchObject({ estado: 'paid', metodo_pago: 'PUE', pagado: 1160 });
    expect(cashInvoice.pagos).toEqual([
      expect.objectContaining({ monto: 1160, metodo: 'efectivo', referencia: cash.folio }),
    ]);
    expect(await invoiceXml(cashInvoice)).toMatchObject({ FormaPago: '01', MetodoPago: 'PUE' });
    // A deposit in cash, the balance by card: both carried in order, FormaPago of the card (04).
    const twice = await quoteOf({
      cliente,
      items: [line(1, 1000)],
      plan_pagos: { tipo: 'anticipo', porcentaje: 50 },
    });
    await call('POST', `/cotizaciones/${twice.id}`, {
      action: 'pay',
      monto: 580,
      payment_method: 'efectivo',
      fecha: '2026-01-05',
    });
    await call('POST', `/cotizaciones/${twice.id}`, { action: 'pay', monto: 580, payment_method: 'tarjeta' });
    const twiceInvoice = await invoiceOfQuote(twice.id);
    expect(twiceInvoice.pagos.map((p: Json) => [p.monto, p.metodo])).toEqual([
      [580, 'efectivo'],
      [580, 'tarjeta'],
    ]);
    expect(twiceInvoice.pagos[0].fecha).toBe('2026-01-05');
    expect(await invoiceXml(twiceInvoice)).toMatchObject({ FormaPago: '04', MetodoPago: 'PUE' });
    // Only the deposit paid: PPD, FormaPago 99, the deposit carried with its method.
    const deposit = await quoteOf({
      cliente,
      items: [line(1, 1000)],
      plan_pagos: { tipo: 'anticipo', porcentaje: 50 },
    });
    await call('POST', `/cotizaciones/${deposit.id}`, {
      action: 'pay',
      monto: 580,
      payment_method: 'cheque',
    });
    const depositInvoice = await invoiceOfQuote(deposit.id);
    expect(depositInvoice).toMatchObject({ estado: 'open', metodo_pago: 'PPD', pagado: 580 });
    expect(depositInvoice.pagos[0]).toMatchObject({ monto: 580, metodo: 'cheque' });
    expect(await invoiceXml(depositInvoice)).toMatchObject({ FormaPago: '99', MetodoPago: 'PPD' });
  });

  it('dates the CFDI, its stamp and the invoice in the local time of the place of issue', async () => {
    const inv = await draft();
    // 04:08 UTC on the 26th is 22:08 on the 25th in Mexico City.
    t.setNow(new Date('2026-11-26T04:08:39Z'));
    try {
      const done = (await act(inv.id, { action: 'finalize' })).body.data;
      expect(done.emitida).toBe('2026-11-25');
      const c = await invoiceXml(done);
      expect(c.Fecha).toBe('2026-11-25T22:08:39');
      expect(c['cfdi:Complemento']['tfd:TimbreFiscalDigital'].FechaTimbrado).toBe('2026-11-25T22:08:39');
      const page = await (await t.app.request(`/i/${done.link_publico.split('/i/')[1]}`)).text();
      expect(page).toContain('25 de noviembre de 2026');
      expect(page).not.toContain('26 de noviembre de 2026');
    } finally {
      t.setNow(undefined);
    }
  });

  it('counts its due date, its payments and its overdue day on the same local calendar', async () => {
    // 04:08 UTC on the 26th is 22:08 on the 25th in Mexico City, where the invoice is issued.
    t.setNow(new Date('2026-11-26T04:08:39Z'));
    try {
      const cash = await draft({ dias_credito: 0 });
      expect(cash).toMatchObject({ vence: '2026-11-25', metodo_pago: 'PUE' });
      expect(await draft()).toMatchObject({ vence: '2026-12-25', metodo_pago: 'PPD' });
      const done = (await act(cash.id, { action: 'finalize' })).body.data;
      expect(done).toMatchObject({ emitida: '2026-11-25', vence: '2026-11-25' });
      const paid = await act(cash.id, { action: 'pay', monto: 100 });
      expect(paid.body.data.pagos[0].fecha).toBe('2026-11-25');
      // Due on the 25th: not overdue while it is the 25th in Mexico City (past midnight in UTC)…
      await fireOverdueInvoices(t.deps, new Date('2026-11-26T05:59:00Z'), cash.id);
      expect(await eventsOf(cash.id)).not.toContain('invoice.overdue');
      // …overdue once the 26th begins there.
      await fireOverdueInvoices(t.deps, new Date('2026-11-26T06:01:00Z'), cash.id);
      expect(await eventsOf(cash.id)).toContain('invoice.overdue');
      // The helper makes it due on Mexico City's yesterday, the 24th, not on UTC's (the 25th).
      const other = (await act((await draft()).id, { action: 'finalize' })).body.data;
      const helped = await call('POST', `/test_helpers/facturas/${other.id}`, { action: 'overdue' });
      expect(helped.body.data.vence).toBe('2026-11-24');
      expect(await eventsOf(other.id)).toContain('invoice.overdue');
    } finally {
      t.setNow(undefined);
    }
  });

  it('carries the seal, certificate number and certificate Anexo 20 requires, as sandbox values', async () => {
    const c = await invoiceXml(await issued({ cliente, items: [line(1, 100)] }));
    expect(c.NoCertificado).toBe('30001000000500003416');
    for (const value of [c.Sello, c.Certificado]) {
      expect(value).toMatch(/^[A-Za-z0-9+/]+=*$/);
      expect(Buffer.from(value, 'base64').toString('utf8')).toMatch(/^SANDBOX/);
    }
    expect(c['cfdi:Complemento']['tfd:TimbreFiscalDigital'].SelloCFD).toBe(c.Sello);
  });

  it("is due, from a quote, on the approval date plus the client's payment terms (contado: the approval date)", async () => {
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const approvedAgo = async (id: string, days: number) =>
      t.db.query('UPDATE quotes SET approved_at = $2 WHERE id = $1', [
        id,
        new Date(Date.now() - days * 86_400_000).toISOString(),
      ]);
    const net60 = await quoteOf({
      cliente: { empresa: `Plazo Sesenta ${randomUUID()}` },
      items: [line(1, 5000)],
      terminos: 'net60',
    });
    await approvedAgo(net60.id, 10);
    expect(await invoiceOfQuote(net60.id)).toMatchObject({ vence: day(50), estado: 'open' });
    const contado = await quoteOf({
      cliente: { empresa: `De Contado ${randomUUID()}` },
      items: [line(1, 5000)],
      terminos: 'contado',
    });
    await approvedAgo(contado.id, 3);
    expect(await invoiceOfQuote(contado.id)).toMatchObject({ vence: day(-3), estado: 'open' });
  });

  it('refuses quantities with more decimals than a CFDI takes, naming the line, and never writes exponents', async () => {
    const before = await count('invoices');
    for (const cantidad of [0.1234567, 1e-7]) {
      const { res } = await call('POST', '/facturas', {
        cliente,
        items: [line(1, 10), { descripcion: 'Granel', cantidad, precio_unitario: 1000, tax_rate: 0.16 }],
      });
      const error = await expectError(res, 400, 'invalid_request');
      expect(error.error).toContain('items[1].cantidad');
    }
    expect(await count('invoices')).toBe(before);
    // A quote's line is refused the same way, when it is written.
    const quoteLine = { descripcion: 'Granel', cantidad: 0.1234567, precio_unitario: 1000, tax_rate: 0.16 };
    const created = await call('POST', '/cotizaciones', { cliente, items: [quoteLine] });
    expect((await expectError(created.res, 400, 'invalid_request')).error).toContain('items[0].cantidad');
    // One made before that rule: its invoice is refused, the quote unchanged.
    const quote = await quoteOf({ cliente, items: [{ ...quoteLine, cantidad: 0.5 }] });
    await t.db.query('UPDATE quote_items SET cantidad = 0.1234567 WHERE quote_id = $1', [quote.id]);
    const refused = await call('POST', `/cotizaciones/${quote.id}`, { action: 'invoice' });
    expect((await expectError(refused.res, 400, 'invalid_request')).error).toContain('items[0].cantidad');
    expect((await call('GET', `/cotizaciones/${quote.id}`)).body.data.status).toBe('approved');
    expect(await count('invoices')).toBe(before);
    // Six decimals are taken, and written as plain decimals.
    const fine = await issued({
      cliente,
      items: [{ descripcion: 'Fino', cantidad: 0.000001, precio_unitario: 1_000_000, tax_rate: 0.16 }],
    });
    expect(list((await invoiceXml(fine))['cfdi:Conceptos']['cfdi:Concepto'])[0].Cantidad).toBe('0.000001');
  });
});
