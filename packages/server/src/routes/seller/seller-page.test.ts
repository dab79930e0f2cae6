import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../testing/harness.js';

let t: TestContext;
let sk: string;
beforeAll(async () => {
  t = await createTestContext({ sellerPage: true });
  sk = t.seed.keys.sk_test_write;
});
afterAll(() => t.close());

type Json = Record<string, any>;
const api = async (method: string, path: string, body?: unknown) =>
  ((await (await t.call(method, `/api/v1${path}`, { key: sk, body })).json()) as { data: Json }).data;
const page = async () => (await t.app.request('/demo/seller')).text();
const post = (path: string) =>
  t.app.request(path, { method: 'POST', headers: { 'sec-fetch-site': 'same-origin' } });
const item = { descripcion: 'Servicio', cantidad: 1, precio_unitario: 100 };

describe('seller page in Spanish', () => {
  it('shows statuses and actions in words, not as API codes, each button named with its document', async () => {
    const draft = await api('POST', '/cotizaciones', { items: [item], cliente: { empresa: 'Borrador SA' } });
    const sent = await api('POST', '/cotizaciones', {
      items: [item],
      cliente: { empresa: 'Vista SA' },
      send: true,
    });
    await t.call('GET', `/q/${sent.link_publico.split('/q/')[1]}`); // viewed
    const invoice = await api('POST', '/facturas', { items: [item], cliente: { empresa: 'Factura SA' } });
    const open = await api('POST', `/facturas/${invoice.id}`, { action: 'finalize' });
    const text = await page();
    const row = (id: string) => new RegExp(`<tr data-id="${id}">.*?</tr>`, 's').exec(text)![0];
    expect(row(draft.id)).toContain('<td class="status-cell" data-status="draft">Borrador</td>');
    expect(row(draft.id)).toContain(`aria-label="Enviar ${draft.folio}">Enviar</button>`);
    expect(row(sent.id)).toContain('data-status="viewed">Vista por el cliente</td>');
    for (const label of ['Aprobar', 'Rechazar', 'Reenviar'])
      expect(row(sent.id)).toContain(`aria-label="${label} ${sent.folio}">${label}</button>`);
    expect(row(invoice.id)).toContain('data-status="open">Pendiente de pago');
    for (const label of ['Enviar', 'Marcar incobrable', 'Anular', 'Registrar pago'])
      expect(row(invoice.id)).toContain(`aria-label="${label} ${open.numero}">${label}</button>`);
    for (const code of [
      'draft',
      'viewed',
      'approve',
      'reject',
      'resend',
      'mark_uncollectible',
      'void',
      'pay',
      'open',
    ])
      expect(text).not.toMatch(new RegExp(`>${code}<`));
    // The notice after an action and the quote's own page say it in words too.
    const done = await (await post(`/demo/seller/${draft.id}/send`)).text();
    expect(done).toContain(`${draft.folio}: Enviar → Enviada`);
    const detail = await (await t.app.request(`/demo/seller/q/${sent.id}`)).text();
    expect(detail).toContain(`<h1>${sent.folio} · Vista SA · Vista por el cliente</h1>`);
  });

  it('lets the keyboard reach and scroll the event list, which is named by its heading', async () => {
    const text = await page();
    expect(text).toContain(
      '<h2 id="eventos">Eventos</h2><ul class="events" tabindex="0" aria-labelledby="eventos">',
    );
  });
});
