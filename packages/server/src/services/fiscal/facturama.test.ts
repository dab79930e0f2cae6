import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../testing/assertions.js';
import { createTestContext, type TestContext } from '../../testing/harness.js';
import { buildCfdi } from './cfdi.js';
import { facturamaCfdi } from './facturama.js';
import type { StampRequest } from './provider.js';

/**
 * A local stand-in for Facturama's API Web: it checks Basic authentication and the CFDI's JSON
 * as their documentation describes it, stamps, serves the XML as base64, and can be told to
 * refuse (400 with `Message` and `ModelState`) or to fail (500).
 */
class FacturamaStandIn {
  server!: Server;
  url = '';
  mode: 'ok' | 'refuse' | 'fail' = 'ok';
  received: Record<string, any>[] = [];
  readonly uuid = '6f1c4a7e-2b3d-4e5f-8a9b-0c1d2e3f4a5b';

  async start() {
    this.server = createServer(async (req, res) => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.headers.authorization !== `Basic ${Buffer.from('svc:secreto').toString('base64')}`) {
        return reply(401, { Message: 'Authorization has been denied for this request.' });
      }
      if (req.method === 'POST' && req.url === '/3/cfdis') {
        const body = JSON.parse(await text(req));
        this.received.push(body);
        if (this.mode === 'fail') return reply(500, { Message: 'An error has occurred.' });
        if (this.mode === 'refuse') {
          return reply(400, {
            Message: 'La solicitud no es válida.',
            ModelState: {
              'Receiver.Rfc': [
                'El RFC del receptor no está en la lista de RFC inscritos no cancelados del SAT.',
              ],
            },
          });
        }
        return reply(201, {
          Id: 'fcm_123',
          Folio: body.Folio,
          Complement: { TaxStamp: { Uuid: this.uuid } },
        });
      }
      if (req.method === 'GET' && req.url === '/cfdi/xml/issued/fcm_123') {
        const xml = `<?xml version="1.0"?><cfdi:Comprobante Version="4.0"><tfd:TimbreFiscalDigital UUID="${this.uuid.toUpperCase()}"/></cfdi:Comprobante>`;
        return reply(200, {
          ContentEncoding: 'base64',
          ContentType: 'xml',
          Content: Buffer.from(xml).toString('base64'),
        });
      }
      reply(404, { Message: 'No HTTP resource was found.' });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
}

const text = async (req: IncomingMessage) => {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
};

let standIn: FacturamaStandIn;
let t: TestContext;
let live: string;
beforeAll(async () => {
  standIn = new FacturamaStandIn();
  await standIn.start();
  t = await createTestContext({
    env: {
      FISCAL_PROVIDER: 'facturama',
      FISCAL_URL: standIn.url,
      FISCAL_USER: 'svc',
      FISCAL_PASSWORD: 'secreto',
    },
  });
  live = t.seed.keys.sk_live_write;
});
afterAll(async () => {
  await t.close();
  standIn.server.close();
});

const liveDraft = async () => {
  const res = await t.call('POST', '/api/v1/facturas', {
    key: live,
    body: {
      cliente: {
        empresa: 'Ferretería La Tuerca',
        fiscal: {
          country: 'MX',
          tax_id: 'FLT010101AB1',
          regimen_fiscal: '601',
          uso_cfdi: 'G03',
          cp_fiscal: '44100',
        },
      },
      items: [{ descripcion: 'Servicio', cantidad: 2, precio_unitario: 1000 }],
    },
  });
  return ((await res.json()) as { data: { id: string } }).data.id;
};
const finalize = (id: string) =>
  t.call('POST', `/api/v1/facturas/${id}`, { key: live, body: { action: 'finalize' } });

describe('live stamping through Facturama (a local stand-in of its API)', () => {
  it('sends the CFDI in their JSON form and stores the folio fiscal and XML they return', async () => {
    standIn.mode = 'ok';
    const id = await liveDraft();
    const res = await finalize(id);
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Record<string, any> };
    expect(data).toMatchObject({
      estado: 'open',
      estado_fiscal: 'stamped',
      folio_fiscal: standIn.uuid.toUpperCase(),
    });
    const sent = standIn.received.at(-1)!;
    expect(sent).toMatchObject({
      Serie: 'F',
      Folio: data.numero.slice(2),
      CfdiType: 'I',
      Currency: 'MXN',
      PaymentMethod: 'PPD',
      Receiver: { Rfc: 'FLT010101AB1', CfdiUse: 'G03', FiscalRegime: '601', TaxZipCode: '44100' },
    });
    expect(sent.Items[0]).toMatchObject({
      ProductCode: '01010101',
      UnitCode: 'H87',
      Quantity: 2,
      Subtotal: 2000,
      Total: 2320,
    });
    expect(sent.Items[0].Taxes[0]).toMatchObject({
      Name: 'IVA',
      Rate: 0.16,
      Base: 2000,
      Total: 320,
      IsRetention: false,
    });
    const xml = await (await t.app.request(`${new URL(data.link_publico).pathname}/cfdi.xml`)).text();
    expect(xml).toContain(standIn.uuid.toUpperCase());
  });

  it("turns the provider's refusal into 400 fiscal_rejected with its reasons, the invoice still a draft", async () => {
    standIn.mode = 'refuse';
    const id = await liveDraft();
    const body = await expectError(await finalize(id), 400, 'invalid_request');
    expect(body.reason).toBe('fiscal_rejected');
    expect(String(body.motivo)).toContain('RFC del receptor');
    const detail = (await (await t.call('GET', `/api/v1/facturas/${id}`, { key: live })).json()) as {
      data: Record<string, any>;
    };
    expect(detail.data).toMatchObject({ estado: 'draft', estado_fiscal: 'rejected', numero: null });
  });

  it('answers 503 fiscal_unavailable on a provider error or when it cannot be reached, changing nothing', async () => {
    standIn.mode = 'fail';
    const id = await liveDraft();
    const res = await finalize(id);
    await expectError(res, 503, 'fiscal_unavailable');
    expect(res.headers.get('retry-after')).toBeTruthy();
    standIn.mode = 'ok';
    const closed = await createTestContext({
      env: {
        FISCAL_PROVIDER: 'facturama',
        FISCAL_URL: 'http://127.0.0.1:9',
        FISCAL_USER: 'svc',
        FISCAL_PASSWORD: 'secreto',
      },
    });
    try {
      const draft = await closed.call('POST', '/api/v1/facturas', {
        key: closed.seed.keys.sk_live_write,
        body: { cliente: { empresa: 'X' }, items: [{ descripcion: 'x', cantidad: 1, precio_unitario: 1 }] },
      });
      const { data } = (await draft.json()) as { data: { id: string } };
      await expectError(
        await closed.call('POST', `/api/v1/facturas/${data.id}`, {
          key: closed.seed.keys.sk_live_write,
          body: { action: 'finalize' },
        }),
        503,
        'fiscal_unavailable',
      );
    } finally {
      await closed.close();
    }
    const detail = (await (await t.call('GET', `/api/v1/facturas/${id}`, { key: live })).json()) as {
      data: Record<string, any>;
    };
    expect(detail.data).toMatchObject({ estado: 'draft', estado_fiscal: 'pending', numero: null });
  });
});

describe('the Facturama document and the sandbox XML declare the same CFDI', () => {
  type Json = Record<string, any>;
  const item = (importe: number, tax_rate: number, extra: Json = {}) => ({
    descripcion: 'Línea',
    cantidad: 1,
    importe,
    descuento: 0,
    impuesto: Math.round(importe * tax_rate * 100) / 100,
    tax_rate,
    clave_sat: null,
    clave_unidad_sat: null,
    sku: null,
    unidad: null,
    ...extra,
  });
  const request = (items: Json[], extra: Json = {}): StampRequest => {
    const subtotal = items.reduce((sum, i) => sum + i.importe, 0);
    const impuestos = items.reduce((sum, i) => sum + i.impuesto, 0);
    return {
      kind: 'I',
      numero: 'F-000009',
      invoice: {
        numero: 'F-000009',
        moneda: 'MXN',
        subtotal,
        descuento: 0,
        impuestos,
        total: Math.round((subtotal + impuestos) * 100) / 100,
        metodo_pago: 'PPD',
        folio_fiscal: 'AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE',
        cliente_nombre: 'Cliente',
      },
      items,
      org: { nombre: 'Estudio', fiscal: null },
      client: undefined,
      tipoCambio: null,
      now: new Date('2026-11-26T04:08:39Z'),
      ...extra,
    } as unknown as StampRequest;
  };
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' });
  const xmlOf = (r: StampRequest) =>
    parser.parse(buildCfdi(r, { uuid: 'U', fechaTimbrado: 'F', rfcProvCertif: 'R', sandbox: true }))[
      'cfdi:Comprobante'
    ] as Json;
  const list = (value: Json | Json[]) => ([] as Json[]).concat(value);

  it('sends a line with nothing left to tax as no object of tax, as the sandbox CFDI declares it', () => {
    const invoice = request([item(100, 0.16), item(0, 0.16), item(50, 0.16, { descuento: 50, impuesto: 0 })]);
    const sent = facturamaCfdi(invoice);
    const concepts = list(xmlOf(invoice)['cfdi:Conceptos']['cfdi:Concepto']);
    expect(sent.Items.map((i: Json) => i.TaxObject)).toEqual(['02', '01', '01']);
    expect(concepts.map((c) => c.ObjetoImp)).toEqual(['02', '01', '01']);
    expect(sent.Items.map((i: Json) => i.Taxes?.length ?? 0)).toEqual([1, 0, 0]);
  });

  it('splits a credit note over the invoice rates, at catalog rates, in both', () => {
    for (const [items, monto] of [
      [[item(10.03, 0.16, { impuesto: 1.6 })], 5],
      [[item(1000, 0.16), item(500, 0.08), item(300, 0)], 333.33],
    ] as const) {
      const note = request([...items], { kind: 'E', numero: 'NC-000009', monto });
      const sent = facturamaCfdi(note);
      const xml = xmlOf(note);
      const traslados = list(xml['cfdi:Conceptos']['cfdi:Concepto']).map(
        (c) => c['cfdi:Impuestos']['cfdi:Traslados']['cfdi:Traslado'],
      );
      expect(sent.Items.map((i: Json) => i.TaxObject)).toEqual(traslados.map(() => '02'));
      expect(
        sent.Items.map((i: Json) => ({
          Rate: i.Taxes[0].Rate,
          Base: i.Taxes[0].Base,
          Total: i.Taxes[0].Total,
        })),
      ).toEqual(
        traslados.map((tr) => ({
          Rate: Number(tr.TasaOCuota),
          Base: Number(tr.Base),
          Total: Number(tr.Importe),
        })),
      );
      for (const tr of traslados) expect(['0.000000', '0.080000', '0.160000']).toContain(tr.TasaOCuota);
      const total = sent.Items.reduce((sum: number, i: Json) => sum + Math.round(i.Total * 100), 0);
      expect(total).toBe(Math.round(monto * 100));
      expect(Number(xml.Total)).toBe(monto);
    }
    expect(
      facturamaCfdi(request([item(10.03, 0.16, { impuesto: 1.6 })], { kind: 'E', numero: 'NC-1', monto: 5 }))
        .Items,
    ).toEqual([
      expect.objectContaining({
        Subtotal: 4.31,
        Total: 5,
        Taxes: [expect.objectContaining({ Rate: 0.16, Base: 4.31, Total: 0.69 })],
      }),
    ]);
  });

  it('names a client abroad the generic foreign receiver, with its country and tax id, in both', () => {
    const abroad = request([item(1500, 0)], {
      client: {
        fiscal: { country: 'US', tax_id: '12-3456789', legal_name: 'Acme Corp' },
        rfc: null,
        country_code: 'US',
      },
    });
    expect(facturamaCfdi(abroad).Receiver).toEqual({
      Rfc: 'XEXX010101000',
      Name: 'ACME CORP',
      CfdiUse: 'S01',
      FiscalRegime: '616',
      TaxZipCode: '06000',
      TaxResidence: 'USA',
      TaxRegistrationNumber: '123456789',
    });
    expect(xmlOf(abroad)['cfdi:Receptor']).toMatchObject({
      Rfc: 'XEXX010101000',
      ResidenciaFiscal: 'USA',
      NumRegIdTrib: '123456789',
      DomicilioFiscalReceptor: '06000',
    });
  });

  it('takes FormaPago from the payment that settles a PUE invoice, and writes quantities without exponents', () => {
    const paid = (settledWith?: string) =>
      request([item(1000, 0.16, { cantidad: 1e-7 })], {
        invoice: { ...request([]).invoice, subtotal: 1000, impuestos: 160, total: 1160, metodo_pago: 'PUE' },
        settledWith,
      });
    for (const [method, code] of [
      ['efectivo', '01'],
      ['cheque', '02'],
      ['transferencia', '03'],
      ['tarjeta', '04'],
      ['otro', '99'],
    ]) {
      expect(facturamaCfdi(paid(method)).PaymentForm).toBe(code);
      expect(xmlOf(paid(method)).FormaPago).toBe(code);
    }
    const cantidad = list(xmlOf(paid('efectivo'))['cfdi:Conceptos']['cfdi:Concepto'])[0]!.Cantidad;
    expect(String(cantidad)).toMatch(/^\d+(\.\d{1,6})?$/);
    expect(JSON.stringify(facturamaCfdi(paid('efectivo')).Items[0]?.Quantity)).not.toMatch(/e/i);
  });
});
