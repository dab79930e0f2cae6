import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { pdfRuns, pdfText } from '../testing/pdf-text.js';

let t: TestContext;
let sk: string;
beforeAll(async () => {
  t = await createTestContext();
  sk = t.seed.keys.sk_test_write;
});
afterAll(() => t.close());

type Json = Record<string, any>;
const api = async (method: string, path: string, body?: unknown) =>
  ((await (await t.call(method, `/api/v1${path}`, { key: sk, body })).json()) as Json).data;
const cliente = { empresa: 'Óptica Müller & Söhne', email: 'cuentas@optica.example' };

const openInvoice = async () => {
  const draft = await api('POST', '/facturas', {
    cliente,
    items: [
      { descripcion: 'Lentes progresivos', cantidad: 2, precio_unitario: 3500 },
      { descripcion: 'Ajuste y garantía', cantidad: 1, precio_unitario: 450.5 },
    ],
  });
  const open = await api('POST', `/facturas/${draft.id}`, { action: 'finalize' });
  await api('POST', `/facturas/${draft.id}`, {
    action: 'pay',
    monto: 1000,
    metodo: 'efectivo',
    referencia: 'Caja 3',
  });
  return { ...open, token: open.link_publico.split('/i/')[1] as string };
};

describe('public invoice page /i/<token>', () => {
  it("links each stamped credit note's CFDI, a type E related to the invoice", async () => {
    const inv = await openInvoice();
    await api('POST', `/facturas/${inv.id}`, {
      action: 'credit_note',
      monto: 100,
      motivo: 'Descuento por pronto pago',
    });
    const detail = await api('GET', `/facturas/${inv.id}`);
    const [note] = detail.notas_credito as Json[];
    const page = await (await t.app.request(`/i/${inv.token}`)).text();
    expect(page).toContain(`href="/i/${inv.token}/nc/${note!.numero}.xml"`);
    const res = await t.app.request(`/i/${inv.token}/nc/${note!.numero}.xml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain(`${note!.numero}-${note!.folio_fiscal}.xml`);
    const xml = await res.text();
    expect(xml).toContain('TipoDeComprobante="E"');
    expect(xml).toContain(`UUID="${inv.folio_fiscal}"`);
    expect(xml).toContain(`UUID="${note!.folio_fiscal}"`);
    // Another invoice's token, or a number it has no note of, finds nothing.
    const other = await openInvoice();
    expect((await t.app.request(`/i/${other.token}/nc/${note!.numero}.xml`)).status).toBe(404);
    expect((await t.app.request(`/i/${inv.token}/nc/NC-999999.xml`)).status).toBe(404);
  });

  it('shows the state, balance, payments and folio fiscal, localized, under a strict CSP, without notes or costs', async () => {
    const inv = await openInvoice();
    const res = await t.app.request(`/i/${inv.token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await res.text();
    expect(page).toContain(`Factura ${inv.numero}`);
    expect(page).toContain('Pendiente de pago');
    expect(page).toContain(inv.folio_fiscal);
    expect(page).toContain('Caja 3');
    expect(page).toContain('$7,642.58'); // saldo: 8,642.58 total − 1,000 paid
    expect(page).toContain('Óptica Müller &amp; Söhne');
    expect(page).not.toMatch(/<script/i);
    expect(page).toContain(`/i/${inv.token}/pdf`);
    expect(page).toContain(`/i/${inv.token}/cfdi.xml`);
    // Lines in rows that fit a phone; payments stacked with their labels.
    expect(page).toContain('<table class="lines">');
    expect(page).toContain(
      '<td data-label="Forma de pago:">Efectivo</td><td data-label="Referencia:">Caja 3</td>',
    );
    const english = await (await t.app.request(`/i/${inv.token}?lang=en`)).text();
    expect(english).toContain('Awaiting payment');
    expect(english).toContain('Balance due');
  });

  it('says a voided invoice is void, with no balance due, on its page and its PDF', async () => {
    const draft = await api('POST', '/facturas', {
      cliente,
      items: [{ descripcion: 'Lentes', cantidad: 1, precio_unitario: 3500 }],
    });
    const open = await api('POST', `/facturas/${draft.id}`, { action: 'finalize' });
    const voided = await api('POST', `/facturas/${draft.id}`, { action: 'void' });
    expect(voided.estado).toBe('void');
    const token = open.link_publico.split('/i/')[1] as string;
    const page = await (await t.app.request(`/i/${token}?lang=en`)).text();
    expect(page).toMatch(/<p class="status" role="status"><strong>[^<]+<\/strong> Void<\/p>/);
    expect(page).not.toContain('Balance due');
    const pdf = await pdfText(await t.app.request(`/i/${token}/pdf?lang=en`));
    expect(pdf).toContain('Void');
    expect(pdf).not.toContain('Balance due');
  });

  it('puts a non-breaking space before colons in French', async () => {
    const inv = await openInvoice();
    const fr = await (await t.app.request(`/i/${inv.token}?lang=fr`)).text();
    expect(fr).toMatch(/<strong>[^<]+\u00a0:<\/strong> En attente de paiement/);
    expect(fr).toContain('<strong>Reste à payer\u00a0:</strong>');
    const de = await (await t.app.request(`/i/${inv.token}?lang=de`)).text();
    expect(de).toContain('<strong>Offener Betrag:</strong>');
    // The PDF's labels too (read back with white space made plain).
    const frPdf = await pdfText(await t.app.request(`/i/${inv.token}/pdf?lang=fr`));
    expect(frPdf).toMatch(/Statut : /);
    expect(frPdf).not.toMatch(/[a-z]: /);
    expect(await pdfText(await t.app.request(`/i/${inv.token}/pdf?lang=de`))).toMatch(/Status: /);
  });

  it("has the quote page's language switch and the merchant's brand colour", async () => {
    const inv = await openInvoice();
    const page = await (await t.app.request(`/i/${inv.token}?lang=pt`)).text();
    expect(page).toMatch(/<nav class="langs" aria-label="Idioma">/);
    for (const lang of ['es', 'en', 'pt', 'fr', 'de'])
      expect(page).toContain(`<a href="?lang=${lang}" lang="${lang}" hreflang="${lang}"`);
    expect(page).toContain('hreflang="pt" aria-current="page">PT</a>');
    expect(page.match(/aria-current/g)).toHaveLength(1);
    const brand = /<link rel="stylesheet" href="(\/q\/assets\/brand\.css\?c=[0-9a-f]{6})">/.exec(page);
    expect(brand).not.toBeNull();
    const css = await (await t.app.request(brand![1]!)).text();
    expect(css).toContain('--brand:#');
  });

  it('answers 404 for unknown tokens and drafts', async () => {
    const draft = await api('POST', '/facturas', {
      cliente,
      items: [{ descripcion: 'x', cantidad: 1, precio_unitario: 1 }],
    });
    const [row] = await t.db.query<{ token: string }>('SELECT token FROM invoices WHERE id = $1', [draft.id]);
    expect((await t.app.request(`/i/${row!.token}`)).status).toBe(404);
    expect((await t.app.request(`/i/${row!.token}/pdf`)).status).toBe(404);
    expect((await t.app.request('/i/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    expect((await t.app.request('/i/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/cfdi.xml')).status).toBe(404);
    // An invoice without a CFDI (a draft's is never shown; here one not stamped in Mexico is
    // faked by clearing its folio fiscal) answers in the invoice's own language.
    const english = await openInvoice();
    await t.db.query(`UPDATE invoices SET folio_fiscal = NULL, language = 'en' WHERE token = $1`, [
      english.token,
    ]);
    const missing = await t.app.request(`/i/${english.token}/cfdi.xml`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('<html lang="en">');
    // In the language asked for, on each of the invoice's addresses.
    for (const path of ['', '/pdf', '/cfdi.xml']) {
      const page = await t.app.request(`/i/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA${path}?lang=en`);
      expect(await page.text()).toContain('<html lang="en">');
    }
  });

  it('shows lines priced tax included at their tax-included amount, and says so, on the page and the PDF', async () => {
    const draft = await api('POST', '/facturas', {
      cliente,
      iva_incluido: true,
      items: [{ descripcion: 'Lentes con IVA', cantidad: 2, precio_unitario: 116 }],
    });
    const open = await api('POST', `/facturas/${draft.id}`, { action: 'finalize' });
    expect(open).toMatchObject({ subtotal: 200, impuestos: 32, total: 232 });
    const token = open.link_publico.split('/i/')[1] as string;
    const page = await (await t.app.request(`/i/${token}?lang=en`)).text();
    // "2 × $116.00 = $232.00", not "= $200.00" (the line's base before tax).
    expect(page).toMatch(
      /× MX\$116\.00<\/span><\/td><td class="n p">MX\$116\.00<\/td><td class="n">MX\$232\.00<\/td>/,
    );
    expect(page).toContain('Prices include tax; the subtotal is before tax.');
    const pdf = await pdfText(await t.app.request(`/i/${token}/pdf?lang=en`));
    expect(pdf).toContain('$232.00');
    expect(pdf).toContain('Prices include tax');
    // Prices before tax say nothing of it.
    const plain = await openInvoice();
    expect(await (await t.app.request(`/i/${plain.token}?lang=en`)).text()).not.toContain(
      'Prices include tax',
    );
  });

  it('the PDF carries the same figures as the page, in the requested language', async () => {
    const inv = await openInvoice();
    const text = await pdfText(await t.app.request(`/i/${inv.token}/pdf`));
    for (const expected of [
      `Factura ${inv.numero}`,
      'Lentes progresivos',
      '$7,000.00',
      '$450.50',
      '$8,642.58',
      '$7,642.58',
      'Caja 3',
      inv.folio_fiscal,
      'Pendiente de pago',
      'Óptica Müller & Söhne',
    ]) {
      expect(text).toContain(expected);
    }
    const german = await pdfText(await t.app.request(`/i/${inv.token}/pdf?lang=de`));
    expect(german).toContain(`Rechnung ${inv.numero}`);
    expect(german).toContain('Offener Betrag');
  });

  it('keeps each amount of the PDF on one line, the largest totals and line amounts too, in every language', async () => {
    const draft = await api('POST', '/facturas', {
      cliente,
      items: [{ descripcion: 'Maquinaria', cantidad: 3, precio_unitario: 9876543.21 }],
    });
    const open = await api('POST', `/facturas/${draft.id}`, { action: 'finalize' });
    const token = open.link_publico.split('/i/')[1] as string;
    const page = await (await t.app.request(`/i/${token}?lang=fr`)).text();
    const amount = (value: number, lang: string) =>
      new Intl.NumberFormat(`${lang}-MX`, { style: 'currency', currency: 'MXN' })
        .format(value)
        .replace(/\s/g, ' ');
    for (const lang of ['fr', 'de', 'pt', 'es']) {
      const runs = await pdfRuns(await t.app.request(`/i/${token}/pdf?lang=${lang}`));
      // Each amount is one run of text (a wrapped one is two runs, one per line): the total twice,
      // as the total and, nothing paid, as the balance due in bold, the last and widest.
      const times = (value: number) => runs.filter((run) => run === amount(value, lang)).length;
      expect({ lang, total: times(open.total), line: times(3 * 9876543.21) }).toEqual({
        lang,
        total: 2,
        line: 2,
      });
    }
    expect(page).toContain('Reste à payer');
  });

  it('serves the stamped CFDI as XML, only for its own token', async () => {
    const inv = await openInvoice();
    const res = await t.app.request(`/i/${inv.token}/cfdi.xml`);
    expect(res.headers.get('content-type')).toContain('application/xml');
    const xml = await res.text();
    expect(xml).toContain(`UUID="${inv.folio_fiscal}"`);
    const other = await openInvoice();
    expect(await (await t.app.request(`/i/${other.token}/cfdi.xml`)).text()).not.toContain(inv.folio_fiscal);
  });
});

describe('quote PDF /q/<token>/pdf', () => {
  it('prints the quote with the figures of its page, and the page links it', async () => {
    const created = await api('POST', '/cotizaciones', {
      cliente,
      items: [{ descripcion: 'Armazón de titanio', cantidad: 2, precio_unitario: 1000 }],
      cupon: 'BIENVENIDA10',
      send: true,
    });
    const token = created.link_publico.split('/q/')[1];
    const page = await (await t.app.request(`/q/${token}`)).text();
    expect(page).toContain(`/q/${token}/pdf`);
    const text = await pdfText(await t.app.request(`/q/${token}/pdf`));
    for (const expected of [
      `Cotización ${created.folio}`,
      'Armazón de titanio',
      '$2,000.00',
      '$200.00',
      '$288.00',
      '$2,088.00',
      'BIENVENIDA10',
    ]) {
      expect(text).toContain(expected);
    }
    expect((await t.app.request('/q/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/pdf')).status).toBe(404);
  });
});
