import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../testing/assertions.js';
import { createTestContext, type TestContext } from '../../testing/harness.js';

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
