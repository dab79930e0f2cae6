import { computeTotals } from '@svc/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { pdfText } from '../testing/pdf-text.js';
import { PAGE_FORM_LIMITS } from './public-quote.js';

let t: TestContext;
let sk: string;
beforeAll(async () => {
  t = await createTestContext({ env: { TRUST_PROXY: '1' } });
  sk = t.seed.keys.sk_test_write;
});
afterAll(() => t.close());

type Json = Record<string, any>;
const api = async (method: string, path: string, body?: unknown) =>
  ((await (await t.call(method, `/api/v1${path}`, { key: sk, body })).json()) as Json).data as Json;
const sku = (code: string) => t.seed.products.find((p) => p.sku === code)!.id;

/** A sent quote of two catalog lines and a free-text one, with the 10 % coupon. */
async function quote(
  options: { send?: boolean; lang?: string; notas?: string; plan?: Json } = {},
): Promise<Json> {
  const res = await t.call('POST', '/api/v1/cotizaciones', {
    key: sk,
    headers: options.lang ? { 'accept-language': options.lang } : {},
    body: {
      items: [
        {
          descripcion: 'Laptop 14"',
          cantidad: 2,
          precio_unitario: 24500,
          producto_id: sku('LAP-14'),
          costo_unitario: 19999,
        },
        { descripcion: 'Monitor 27" 4K', cantidad: 3, precio_unitario: 7800, producto_id: sku('MON-27') },
        { descripcion: 'Instalación', cantidad: 1, precio_unitario: 1234.5, tax_rate: 0 },
      ],
      cliente: { empresa: 'Cliente Público', email: 'publico@x.example' },
      cupon: 'BIENVENIDA10',
      notas: options.notas ?? 'margen interno secreto',
      send: options.send ?? true,
      ...(options.plan ? { plan_pagos: options.plan } : {}),
    },
  });
  const created = ((await res.json()) as Json).data as Json;
  return { ...created, detail: await api('GET', `/cotizaciones/${created.id}`) };
}
const detail = (id: string) => api('GET', `/cotizaciones/${id}`);
const events = async (id: string, type: string) =>
  ((await (await t.call('GET', `/api/v1/events?object_id=${id}&type=${type}`, { key: sk })).json()) as Json)
    .data as Json[];

/** Opens the page as a browser would: its HTML, the CSRF cookie it sets and the forms' value. */
async function open(token: string, query = '') {
  const res = await t.call('GET', `/q/${token}${query}`);
  const html = await res.text();
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  return { res, html, cookie, csrf };
}

/** Sends one of the page's forms, urlencoded, with the session's cookie and CSRF value. */
async function send(
  token: string,
  form: string,
  fields: Record<string, string | string[]>,
  session?: { cookie: string; csrf: string },
  headers: Record<string, string> = {},
) {
  const s = session ?? (await open(token));
  const body = new URLSearchParams({ csrf: s.csrf });
  for (const [name, value] of Object.entries(fields)) {
    for (const one of [value].flat()) body.append(name, one);
  }
  return t.call('POST', `/q/${token}/${form}`, {
    body: body.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: s.cookie, ...headers },
  });
}
const signer = { nombre: 'Ana Pérez', email: 'ana@cliente.example' };
/**
 * A refusal that names `field` alone: its message beside it (`<field>-error`), and no other field
 * of any form marked invalid or described by an error.
 */
function expectOnlyField(html: string, field: string, message: string) {
  const shown = new RegExp(`<p class="field-error" id="${field}-error">([^<]*)</p>`).exec(html)?.[1];
  expect(shown, field).toContain(message);
  const invalid = [...html.matchAll(/(?:id|name)="(\w+)"[^>]*aria-invalid="true"/g)].map((m) => m[1]);
  expect(new Set(invalid), field).toEqual(new Set([field]));
  const described = [...html.matchAll(/aria-describedby="(\w+)-error"/g)].map((m) => m[1]);
  expect(new Set(described), field).toEqual(new Set([field]));
}
const lineIds = (q: Json) => (q.detail.items as Json[]).map((item) => item.id as string);

describe('prices entered tax included', () => {
  it('shows each line at its tax-included amount and says so, on the page and the PDF', async () => {
    const res = await t.call('POST', '/api/v1/cotizaciones', {
      key: sk,
      body: {
        items: [{ descripcion: 'Servicio con IVA', cantidad: 3, precio_unitario: 11.6 }],
        cliente: { empresa: 'Cliente IVA' },
        iva_incluido: true,
        send: true,
      },
    });
    const created = ((await res.json()) as Json).data as Json;
    const token = String(created.link_publico).split('/q/')[1]!;
    expect(await detail(created.id)).toMatchObject({ subtotal: 30, impuestos: 4.8, total: 34.8 });
    const page = await (await t.call('GET', `/q/${token}?lang=en`)).text();
    expect(page).toMatch(/<td class="n p">MX\$11\.60<\/td><td class="n">MX\$34\.80<\/td>/);
    expect(page).toContain('Prices include tax; the subtotal is before tax.');
    const pdf = await pdfText(await t.call('GET', `/q/${token}/pdf?lang=en`));
    expect(pdf).toContain('$34.80');
    expect(pdf).toContain('Prices include tax');
  });
});

describe('public quote page', () => {
  it('shows lines, totals, validity and terms in the quote language, and nothing internal', async () => {
    const q = await quote({ lang: 'de' });
    const { res, html } = await open(q.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(html).toContain('<html lang="de">');
    expect(html).toContain('Angebot');
    expect(html).toContain(q.folio);
    expect(html).toContain('Laptop 14&quot;');
    expect(html).toContain('Gültig bis');
    expect(html).toMatch(/49\.000,00/);
    expect(html).toContain('name="viewport"');
    expect(html).not.toMatch(/<script|style="/);
    for (const secret of ['19999', '19.999', 'margen interno', 'costo']) expect(html).not.toContain(secret);
  });

  it('speaks each of the five languages, and ?lang= switches it and stays in every form and link', async () => {
    const words: Record<string, string> = {
      es: 'Cotización',
      en: 'Quote',
      pt: 'Orçamento',
      fr: 'Devis',
      de: 'Angebot',
    };
    for (const [lang, word] of Object.entries(words)) {
      const { html } = await open((await quote({ lang })).token);
      expect(html).toContain(`lang="${lang}"`);
      expect(html).toContain(word);
    }
    const q = await quote({ lang: 'es' });
    const { html, cookie, csrf } = await open(q.token, '?lang=fr');
    expect(html).toContain('<html lang="fr">');
    expect(html).toContain('Conversation');
    expect(html).toMatch(/<a href="\?lang=fr"[^>]*aria-current="page"/);
    for (const form of ['approve', 'reject', 'comment'])
      expect(html).toContain(`/q/${q.token}/${form}?lang=fr`);
    expect(html).toContain(`/q/${q.token}/pdf?lang=fr`);
    const res = await send(q.token, 'comment?lang=fr', { mensaje: 'Bonjour' }, { cookie, csrf });
    expect(res.headers.get('location')).toBe(`/q/${q.token}?lang=fr&hecho=comment`);
    expect((await open(q.token, '?lang=fr&hecho=comment')).html).toContain('Votre message a été envoyé');
  });

  it("wears the merchant's brand colour through a stylesheet of its own, readable whatever the colour", async () => {
    const { html } = await open((await quote()).token);
    expect(html).toContain('href="/q/assets/brand.css?c=1f7a4d"');
    const css = await (await t.call('GET', '/q/assets/brand.css?c=1f7a4d')).text();
    expect(css).toBe(':root{--brand:#1f7a4d;--on-brand:#fff;--brand-ink:#1f7a4d}');
    // A light brand gets dark text on it and a darker ink for text on white.
    const light = await (await t.call('GET', '/q/assets/brand.css?c=ffd400')).text();
    expect(light).toContain('--on-brand:#111');
    expect(light).not.toContain('--brand-ink:#ffd400');
    // Anything but a colour falls back to the default, never into the stylesheet.
    const odd = await (await t.call('GET', '/q/assets/brand.css?c=red;}body{display:none')).text();
    expect(odd).toBe(':root{--brand:#1f7a4d;--on-brand:#fff;--brand-ink:#1f7a4d}');
  });

  it('marks a sent quote viewed on first opening only, with actor client', async () => {
    const q = await quote();
    // A HEAD (a link checker, a preview) reads no page: the quote stays sent.
    expect((await t.call('HEAD', `/q/${q.token}`)).status).toBe(200);
    expect((await detail(q.id)).status).toBe('sent');
    await open(q.token);
    await open(q.token);
    expect((await detail(q.id)).status).toBe('viewed');
    const viewed = await events(q.id, 'quote.viewed');
    expect(viewed).toHaveLength(1);
    expect(viewed[0]!.actor).toBe('client');
    // Resent, it is viewed again when opened, but quote.viewed fired on the first opening only.
    const resent = await t.call('POST', `/api/v1/cotizaciones/${q.id}`, {
      key: t.seed.keys.sk_test_write,
      body: { action: 'resend' },
    });
    expect(((await resent.json()) as { data: { status: string } }).data.status).toBe('sent');
    await open(q.token);
    expect((await detail(q.id)).status).toBe('viewed');
    expect(await events(q.id, 'quote.viewed')).toHaveLength(1);
    // The test helper's opening follows the same rule.
    await t.call('POST', `/api/v1/cotizaciones/${q.id}`, {
      key: t.seed.keys.sk_test_write,
      body: { action: 'resend' },
    });
    const opened = await t.call('POST', `/api/v1/test_helpers/cotizaciones/${q.id}`, {
      key: t.seed.keys.sk_test_write,
      body: { action: 'open' },
    });
    expect(((await opened.json()) as { data: { status: string } }).data.status).toBe('viewed');
    expect(await events(q.id, 'quote.viewed')).toHaveLength(1);
  });

  it('does not show drafts or unknown tokens, nor take their forms', async () => {
    const draft = await quote({ send: false });
    const shown = await open(draft.token);
    expect(shown.res.status).toBe(404);
    // Its link (the one the widget gives the visitor) says the quote is on its way, not "not found",
    // and shows nothing of it but its folio.
    expect(shown.html).toContain(`La cotización ${draft.folio} se está preparando`);
    expect(shown.html).not.toContain('Laptop');
    expect((await open(draft.token, '?lang=de')).html).toContain(
      `Das Angebot ${draft.folio} wird vorbereitet`,
    );
    expect((await open('x'.repeat(40))).html).toContain('Cotización no encontrada');
    const page = await open((await quote()).token);
    expect((await send(draft.token, 'approve', { lineas: lineIds(draft), ...signer }, page)).status).toBe(
      404,
    );
    expect((await detail(draft.id)).status).toBe('draft');
    expect((await open('x'.repeat(40))).res.status).toBe(404);
    expect((await open('<script>')).res.status).toBe(404);
    // Other addresses under /q/ get the page's 404 too, not the API's JSON.
    for (const path of ['/q/', `/q/${draft.token}/`, `/q/${draft.token}/nothing`]) {
      const res = await t.call('GET', path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain('Cotización no encontrada');
    }
  });
});

describe('approving on the page', () => {
  it('approves every line with the signer, time and address recorded (aceptacion), once', async () => {
    const q = await quote();
    const res = await send(q.token, 'approve', { lineas: lineIds(q), ...signer }, undefined, {
      'x-forwarded-for': '203.0.113.7',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/q/${q.token}?lang=es&hecho=approve`);
    const after = await detail(q.id);
    expect(after.status).toBe('approved');
    expect(after.total).toBe(q.detail.total);
    expect(after.aceptacion).toMatchObject({ ...signer, ip: '203.0.113.7' });
    expect(Date.now() - Date.parse(after.aceptacion.fecha)).toBeLessThan(60_000);
    const [approved] = await events(q.id, 'quote.approved');
    expect(approved).toMatchObject({ actor: 'client', data: { parcial: false, status: 'approved' } });
    // A second decision is refused and changes nothing.
    const again = await send(q.token, 'reject', {});
    expect(again.status).toBe(409);
    expect((await detail(q.id)).status).toBe('approved');
    const { html } = await open(q.token);
    expect(html).not.toContain(`/q/${q.token}/approve`);
    expect((await open(q.token, '?hecho=approve')).html).toContain('role="status">Aprobaste esta cotización');
    // A crafted link cannot make an open quote announce a decision.
    const other = await quote();
    expect((await open(other.token, '?hecho=approve')).html).not.toContain('role="status"');
    expect(html).toContain('Aceptada electrónicamente por Ana Pérez (ana@cliente.example)');
  });

  it('approves the whole quote from a form that offers no choice of lines (no eleccion, no lineas)', async () => {
    const q = await quote();
    expect((await open(q.token)).html).toContain('<input type="hidden" name="eleccion" value="lineas">');
    const res = await send(q.token, 'approve', { ...signer });
    expect(res.status).toBe(303);
    const after = await detail(q.id);
    expect(after).toMatchObject({ status: 'approved', total: q.detail.total });
    expect(after.items.every((item: Json) => !item.declinada)).toBe(true);
    const [approved] = await events(q.id, 'quote.approved');
    expect(approved!.data).toMatchObject({ parcial: false });
  });

  it('approves only the chosen lines: the rest stay as declined lines and the totals cover the approved ones', async () => {
    const q = await quote();
    const [laptop, monitor, install] = q.detail.items as Json[];
    const res = await send(q.token, 'approve', { lineas: [laptop!.id, install!.id], ...signer });
    expect(res.status).toBe(303);
    const after = await detail(q.id);
    // The same function that priced the quote, over the approved lines only, with its coupon.
    const expected = computeTotals({
      currency: 'MXN',
      iva_incluido: false,
      default_tax_rate: 0.16,
      discount: { tipo: 'porcentaje', valor: 10 },
      lines: [laptop!, install!].map((item) => ({
        cantidad: item.cantidad,
        precio_unitario: item.precio_unitario,
        tax_rate: item.tax_rate,
      })),
    });
    expect(after).toMatchObject({
      status: 'approved',
      subtotal: expected.subtotal,
      descuento: expected.descuento,
      impuestos: expected.impuestos,
      total: expected.total,
    });
    expect(after.total).toBeLessThan(q.detail.total);
    expect(after.items.map((item: Json) => [item.id, item.declinada])).toEqual([
      [laptop!.id, false],
      [monitor!.id, true],
      [install!.id, false],
    ]);
    const [approved] = await events(q.id, 'quote.approved');
    expect(approved!.data).toMatchObject({ parcial: true, total: expected.total });
    const { html } = await open(q.token);
    expect(html).toMatch(/Monitor 27&quot; 4K<span class="tag">No aprobada<\/span>/);
    expect(html).toContain('Aprobaste parte de esta cotización');
    // After the form the decision is said once, as it is: partly approved.
    const after303 = (await open(q.token, '?hecho=approve')).html;
    expect(after303.match(/Aprobaste/g)).toHaveLength(1);
    expect(after303).toContain('role="status">Aprobaste parte de esta cotización');
    // What gets invoiced is what was approved.
    const invoiced = await api('POST', `/cotizaciones/${q.id}`, { action: 'invoice' });
    const invoice = await api('GET', `/facturas/${invoiced.factura.id}`);
    expect(invoice.total).toBe(expected.total);
    expect(invoice.items.map((item: Json) => item.descripcion)).toEqual(['Laptop 14"', 'Instalación']);
  });

  it('refuses an approval without a signer, without lines, or with a line of another quote, and writes nothing', async () => {
    const q = await quote();
    const other = await quote();
    const cases: [Record<string, string | string[]>, string, string][] = [
      [{ lineas: lineIds(q), nombre: '', email: 'ana@cliente.example' }, 'Escribe tu nombre', 'nombre'],
      [
        { lineas: lineIds(q), nombre: 'Ana', email: 'no-es-correo' },
        'Escribe un correo electrónico válido',
        'email',
      ],
      // The page's form offers the lines (eleccion), and none was ticked.
      [{ eleccion: 'lineas', ...signer }, 'Marca al menos una línea', 'lineas'],
      // A line was ticked, but one that is not this quote's: not "tick at least one".
      [
        { lineas: [lineIds(q)[0]!, lineIds(other)[0]!], ...signer },
        'Una de las líneas marcadas no es de esta cotización.',
        'lineas',
      ],
      [{ lineas: 'abc', ...signer }, 'Una de las líneas marcadas no es de esta cotización.', 'lineas'],
    ];
    for (const [fields, message, field] of cases) {
      const res = await send(q.token, 'approve', fields);
      expect(res.status).toBe(400);
      const html = await res.text();
      expect(html).toContain('role="alert"');
      expectOnlyField(html, field, message);
      // What was typed comes back.
      if (fields.email) expect(html).toContain(`value="${fields.email}"`);
    }
    const after = await detail(q.id);
    expect(after.status).toBe('viewed');
    expect(after.aceptacion).toBeNull();
    expect(after.total).toBe(q.detail.total);
    expect(await events(q.id, 'quote.approved')).toHaveLength(0);
    expect((await detail(other.id)).items.every((item: Json) => !item.declinada)).toBe(true);
  });

  it('keeps the lines the client unticked, and all they typed, when the approval is refused', async () => {
    const q = await quote();
    const [first, ...rest] = lineIds(q);
    const res = await send(q.token, 'approve', { lineas: rest, nombre: 'Luis Ñ', email: 'luis@example' });
    expect(res.status).toBe(400);
    const html = await res.text();
    const ticked = (id: string) => new RegExp(`name="lineas" value="${id}"[^>]*\\bchecked\\b`).test(html);
    expect(ticked(first!)).toBe(false);
    for (const id of rest) expect(ticked(id)).toBe(true);
    expect(html).toContain('value="Luis Ñ"');
    expect(html).toContain('value="luis@example"');
    // Nothing ticked stays nothing ticked; another form leaves every line ticked.
    const none = await (await send(q.token, 'approve', { eleccion: 'lineas', ...signer })).text();
    expect(lineIds(q).some((id) => new RegExp(`value="${id}"[^>]*checked`).test(none))).toBe(false);
    const comment = await (await send(q.token, 'comment', { mensaje: '' })).text();
    expect(lineIds(q).every((id) => new RegExp(`value="${id}" checked`).test(comment))).toBe(true);
    expect((await detail(q.id)).status).toBe('viewed');
  });

  it('ties each refusal to its field: aria-invalid, a message beside it, and a summary linking to it', async () => {
    const q = await quote({ lang: 'de' });
    const res = await send(q.token, 'approve', { eleccion: 'lineas', nombre: '', email: 'luis@example' });
    expect(res.status).toBe(400);
    const html = await res.text();
    for (const [field, message] of [
      ['nombre', 'Geben Sie Ihren Namen ein'],
      ['email', 'Geben Sie eine gültige E-Mail-Adresse ein'],
    ]) {
      expect(html).toMatch(
        new RegExp(
          `<p class="field-error" id="${field}-error">${message}[^<]*</p><input[^>]*id="${field}"[^>]*aria-invalid="true" aria-describedby="${field}-error"`,
        ),
      );
      expect(html).toMatch(new RegExp(`role="alert">.*<a href="#${field}">${message}`, 's'));
    }
    // No line ticked: the group of lines says so, and each box is invalid.
    expect(html).toMatch(/<fieldset id="lineas" aria-describedby="lineas-error">/);
    expect(html).toContain('id="lineas-error">Markieren Sie mindestens eine Position');
    expect(html).toMatch(/name="lineas"[^>]*aria-invalid="true"/);
    // A field that is fine is not marked.
    const ok = await (
      await send(q.token, 'approve', { lineas: lineIds(q), nombre: 'Ana', email: 'x' })
    ).text();
    expect(ok).not.toMatch(/id="nombre"[^>]*aria-invalid/);
    expect(ok).toMatch(/id="email"[^>]*aria-invalid="true"/);
    expect(ok).not.toMatch(/name="lineas"[^>]*aria-invalid/);
    // The conversation's fields: the message, the proposed value, the line.
    const cases: [Record<string, string>, string][] = [
      [{ mensaje: ' ' }, 'mensaje'],
      [{ mensaje: 'Preis', tipo_propuesta: 'precio_unitario', valor: '' }, 'valor'],
      [{ mensaje: 'Preis', tipo_propuesta: 'precio_unitario', valor: '5' }, 'item_id'],
    ];
    for (const [fields, field] of cases) {
      const text = await (await send(q.token, 'comment', fields)).text();
      expect(text).toMatch(
        new RegExp(`id="${field}"[^>]*aria-invalid="true" aria-describedby="${field}-error"`),
      );
      expect(text).toContain(`<p class="field-error" id="${field}-error">`);
    }
  });

  it('prints the electronic acceptance and the declined lines on the PDF of the approved quote', async () => {
    const q = await quote();
    await send(q.token, 'approve', { lineas: lineIds(q).slice(0, 2), ...signer }, undefined, {
      'x-forwarded-for': '198.51.100.4',
    });
    const text = await pdfText(await t.call('GET', `/q/${q.token}/pdf`));
    expect(text).toContain('Aceptada electrónicamente por Ana Pérez (ana@cliente.example)');
    expect(text).toContain('198.51.100.4');
    expect(text).toContain('Instalación (No aprobada)');
    const total = new Intl.NumberFormat('es-MX', { style: 'currency', currency: 'MXN' })
      .format((await detail(q.id)).total)
      .replace(/\s/g, ' ');
    expect(text).toContain(total);
  });
});

describe('rejecting, talking and promising on the page', () => {
  it('rejects with an optional reason, kept in the detail and the event', async () => {
    const q = await quote();
    expect((await send(q.token, 'reject', { motivo: 'Encontramos otro proveedor' })).status).toBe(303);
    const after = await detail(q.id);
    expect(after).toMatchObject({ status: 'rejected', motivo_rechazo: 'Encontramos otro proveedor' });
    const [rejected] = await events(q.id, 'quote.rejected');
    expect(rejected).toMatchObject({
      actor: 'client',
      data: { motivo_rechazo: 'Encontramos otro proveedor' },
    });
    const { html } = await open(q.token, '?lang=fr&hecho=reject');
    expect(html.match(/Vous avez refusé ce devis/g)).toHaveLength(1);
    expect(html).toContain('role="status">Vous avez refusé ce devis.');
    const plain = await quote();
    expect((await send(plain.token, 'reject', { motivo: '' })).status).toBe(303);
    expect((await detail(plain.id)).motivo_rechazo).toBeNull();
  });

  it("refuses a reason that is not plain text of up to 2000 characters on the reason's own field, writing nothing", async () => {
    const q = await quote();
    for (const motivo of ['otro\u0001proveedor', 'x'.repeat(2001)]) {
      const res = await send(q.token, 'reject', { motivo });
      expect(res.status).toBe(400);
      const html = await res.text();
      expectOnlyField(html, 'motivo', 'Escribe el motivo en texto simple, de hasta 2000 caracteres.');
      expect(html).toMatch(/<textarea id="motivo"[^>]*aria-invalid="true" aria-describedby="motivo-error">/);
      // Not the conversation's message field, nor its wording.
      expect(html).not.toContain('Escribe un mensaje de 1 a 2000');
    }
    // In the page's language, like every message of the page.
    const en = await (await send(q.token, 'reject?lang=en', { motivo: 'x'.repeat(2001) })).text();
    expectOnlyField(en, 'motivo', 'Write the reason as plain text, up to 2000 characters.');
    const after = await detail(q.id);
    expect(after).toMatchObject({ status: 'viewed', motivo_rechazo: null });
    expect(await events(q.id, 'quote.rejected')).toHaveLength(0);
  });

  it('answers a body that cannot be read as a form, or too large, with the page saying so', async () => {
    const q = await quote({ lang: 'en' });
    const refused = async (body: string, type: string) => {
      const res = await t.call('POST', `/q/${q.token}/comment`, { body, headers: { 'content-type': type } });
      return { status: res.status, type: res.headers.get('content-type'), html: await res.text() };
    };
    for (const type of ['multipart/form-data; boundary=zz', 'multipart/form-data']) {
      const answer = await refused('garbage', type);
      expect(answer).toMatchObject({ status: 400, type: expect.stringMatching(/^text\/html/) });
      expect(answer.html).toContain('We could not record that.');
    }
    const large = await refused(`mensaje=${'x'.repeat(70_000)}`, 'application/x-www-form-urlencoded');
    expect(large).toMatchObject({ status: 413, type: expect.stringMatching(/^text\/html/) });
    expect(large.html).toContain('We could not record that.');
    expect((await detail(q.id)).conversacion).toEqual([]);
  });

  it('refuses a form field holding U+0000 with 400 and writes nothing', async () => {
    const q = await quote();
    const res = await send(q.token, 'comment', { mensaje: 'hola\0' });
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain('\0');
    expect((await detail(q.id)).conversacion).toEqual([]);
  });

  it("reads a counteroffer's amount as the page's locale writes it, the other mark too", async () => {
    const q = await quote();
    const { cookie, csrf } = await open(q.token, '?lang=fr');
    const cases: [string, string, number][] = [
      // French (fr-MX here, the merchant being in Mexico): comma decimals, space or dot groups.
      ['comment?lang=fr', '22000,50', 22000.5],
      ['comment?lang=fr', '22 000,5', 22000.5],
      ['comment?lang=fr', '22.000,5', 22000.5],
      // Spanish in Mexico: dot decimals, comma groups; a lone comma before two digits is decimal.
      ['comment', '22,000.50', 22000.5],
      ['comment', '22000,5', 22000.5],
    ];
    for (const [form, valor] of cases) {
      // Each its own words: the same message sent again within minutes is written once.
      const res = await send(
        q.token,
        form,
        { mensaje: `Oferta de ${valor}`, tipo_propuesta: 'total', valor },
        { cookie, csrf },
      );
      expect(res.status, valor).toBe(303);
    }
    const offers = (await detail(q.id)).conversacion.map((m: Json) => m.propuesta?.total);
    expect(offers).toEqual(cases.map(([, , value]) => value));
    const refused = await send(
      q.token,
      'comment?lang=fr',
      { mensaje: 'x', tipo_propuesta: 'total', valor: '22,000,5' },
      { cookie, csrf },
    );
    expect(refused.status).toBe(400);
  });

  it('adds messages about the quote or a line, and counteroffers that change nothing by themselves', async () => {
    const q = await quote();
    const [laptop] = q.detail.items as Json[];
    expect((await send(q.token, 'comment', { mensaje: '¿Incluye garantía?', item_id: '' })).status).toBe(303);
    const counter = await send(q.token, 'comment', {
      mensaje: 'Podemos pagar 22,000 por laptop',
      item_id: laptop!.id,
      tipo_propuesta: 'precio_unitario',
      valor: '22000',
    });
    expect(counter.status).toBe(303);
    await send(q.token, 'comment', {
      mensaje: 'O todo por 100 mil',
      tipo_propuesta: 'total',
      valor: '100000',
    });
    const after = await detail(q.id);
    expect(after.conversacion).toEqual([
      expect.objectContaining({
        autor: 'cliente',
        mensaje: '¿Incluye garantía?',
        item_id: null,
        tipo: 'mensaje',
        propuesta: null,
      }),
      expect.objectContaining({
        autor: 'cliente',
        item_id: laptop!.id,
        tipo: 'contraoferta',
        propuesta: { precio_unitario: 22000 },
      }),
      expect.objectContaining({ tipo: 'contraoferta', item_id: null, propuesta: { total: 100000 } }),
    ]);
    expect(after.total).toBe(q.detail.total);
    expect(after.items).toEqual(q.detail.items);
    const comments = await events(q.id, 'quote.comment_added');
    expect(comments.map((e) => [e.actor, e.data.autor, e.data.tipo])).toEqual([
      ['client', 'cliente', 'contraoferta'],
      ['client', 'cliente', 'contraoferta'],
      ['client', 'cliente', 'mensaje'],
    ]);
    expect(comments[1]!.data).toMatchObject({ propuesta: { precio_unitario: 22000 }, item_id: laptop!.id });
    // The seller hears of each message through the outbox (kept there in test mode).
    const [notice] = await t.db.query<Json>(
      "SELECT to_email, subject, body, status, skipped_reason FROM email_outbox WHERE quote_id = $1 AND body LIKE '%22,000%'",
      [q.id],
    );
    expect(notice).toMatchObject({
      to_email: 'ventas@estudio-nopal.example',
      subject: `Nuevo mensaje de Cliente Público sobre ${q.folio}`,
      status: 'skipped',
      skipped_reason: 'test_mode',
    });
    // In the seller's words and formats, naming the line: never the API's field names.
    expect(notice!.body).toContain(`Contraoferta (${laptop!.descripcion}): precio unitario $22,000.00`);
    const [total] = await t.db.query<Json>(
      "SELECT body FROM email_outbox WHERE quote_id = $1 AND body LIKE '%Contraoferta: total%'",
      [q.id],
    );
    expect(total!.body).toContain('Contraoferta: total $100,000.00');
  });

  it('refuses bad messages and counteroffers, and a line of another quote, writing nothing', async () => {
    const q = await quote();
    const other = await quote();
    const [line] = lineIds(q);
    const notOnQuote = 'La línea elegida no es de esta cotización.';
    const refused: [Record<string, string>, string, string][] = [
      [{ mensaje: '   ' }, 'Escribe un mensaje de 1 a 2000', 'mensaje'],
      [{ mensaje: 'x'.repeat(2001) }, 'Escribe un mensaje de 1 a 2000', 'mensaje'],
      [{ mensaje: 'a\u0007b' }, 'Escribe un mensaje de 1 a 2000', 'mensaje'],
      [{ mensaje: 'precio', tipo_propuesta: 'precio_unitario', valor: '0' }, 'mayor que cero', 'valor'],
      [{ mensaje: 'precio', tipo_propuesta: 'precio_unitario', valor: 'abc' }, 'mayor que cero', 'valor'],
      // Above zero, but finer than the peso's cents: the promise form's words for decimals.
      [
        { mensaje: 'precio', item_id: line!, tipo_propuesta: 'precio_unitario', valor: '10.555' },
        'Escribe el importe con 2 decimales como máximo.',
        'valor',
      ],
      [
        { mensaje: 'total', tipo_propuesta: 'total', valor: '10.555' },
        'Escribe el importe con 2 decimales como máximo.',
        'valor',
      ],
      [
        { mensaje: 'precio', tipo_propuesta: 'descuento', valor: '5' },
        'No pudimos registrarlo',
        'tipo_propuesta',
      ],
      [{ mensaje: 'precio', tipo_propuesta: 'precio_unitario', valor: '100' }, 'elige la línea', 'item_id'],
      [
        { mensaje: 'total', item_id: line!, tipo_propuesta: 'total', valor: '100' },
        'elige la línea',
        'item_id',
      ],
      // A line that is not this quote's, with no proposal at all: it says so, on the line's field.
      [{ mensaje: 'hola', item_id: lineIds(other)[0]! }, notOnQuote, 'item_id'],
      [{ mensaje: 'hola', item_id: 'abc' }, notOnQuote, 'item_id'],
      [
        { mensaje: 'precio', item_id: 'abc', tipo_propuesta: 'precio_unitario', valor: '100' },
        notOnQuote,
        'item_id',
      ],
    ];
    for (const [fields, message, field] of refused) {
      const res = await send(q.token, 'comment', fields);
      expect(res.status).toBe(400);
      expectOnlyField(await res.text(), field, message);
    }
    expect((await detail(q.id)).conversacion).toEqual([]);
    expect((await detail(other.id)).conversacion).toEqual([]);
    expect(await events(q.id, 'quote.comment_added')).toHaveLength(0);
  });

  it('shows messages as plain text, escaped on the page', async () => {
    const q = await quote();
    await send(q.token, 'comment', { mensaje: '<script>alert(1)</script> & "comillas"\nsegunda línea' });
    const { html } = await open(q.token);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;comillas&quot;\nsegunda línea');
    expect(html).not.toContain('<script>alert');
  });

  it('shows the payment plan with its pay-by dates and records a promise to pay', async () => {
    const q = await quote({ plan: { tipo: 'anticipo', porcentaje: 50 } });
    // Before the approval that fixes them, pay-by dates are counted from it.
    const installments = await quote({ plan: { tipo: 'cuotas', numero: 3 }, lang: 'en' });
    const before = (await open(installments.token)).html;
    expect(before).toContain('on approval');
    expect(before).toContain('30 days after approval');
    expect(before).toContain('60 days after approval');
    await send(q.token, 'approve', { lineas: lineIds(q), ...signer });
    await api('POST', `/cotizaciones/${q.id}`, { action: 'pay', monto: 1000 });
    const approved = await detail(q.id);
    const { html } = await open(q.token);
    expect(html).toContain('50 % de anticipo, después el saldo');
    expect(html).toContain('Anticipo');
    const payBy = new Intl.DateTimeFormat('es-MX', { dateStyle: 'long', timeZone: 'UTC' }).format(
      new Date(`${approved.calendario[1].vence}T00:00:00Z`),
    );
    expect(html).toContain(payBy);
    expect(html).toMatch(/Pagado<\/dt><dd>\$1,000\.00/);
    expect(html).toContain(`/q/${q.token}/promise`);

    const fecha = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    // A double click sends the form twice at once: one promise.
    const session = await open(q.token);
    const twice = await Promise.all(
      [0, 1].map(() => send(q.token, 'promise', { fecha_promesa: fecha, monto: '5000' }, session)),
    );
    expect(twice.map((res) => res.status)).toEqual([303, 303]);
    const after = await detail(q.id);
    expect(after.promesas).toEqual([
      expect.objectContaining({ fecha_promesa: fecha, monto: 5000, estado: 'pending' }),
    ]);
    const [created] = await events(after.promesas[0].id, 'promise.created');
    expect(created!.actor).toBe('client');

    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    // Each refusal names its own field, with its own message.
    const date = ['fecha_promesa', 'Elige una fecha de hoy en adelante.'] as const;
    const refusals: [Record<string, string>, string, string][] = [
      [{ fecha_promesa: yesterday, monto: '10' }, ...date],
      [{ fecha_promesa: fecha, monto: String(after.saldo + 1) }, 'monto', 'no puede ser mayor que el saldo'],
      [{ fecha_promesa: 'mañana', monto: '10' }, ...date],
      [{ fecha_promesa: fecha, monto: '-5' }, 'monto', 'Escribe un importe mayor que cero.'],
      [{ fecha_promesa: fecha, monto: '0' }, 'monto', 'Escribe un importe mayor que cero.'],
      [{ fecha_promesa: fecha, monto: '100.555' }, 'monto', 'con 2 decimales como máximo'],
      // Days that are not on the calendar: no 500 from the database.
      [{ fecha_promesa: `${Number(fecha.slice(0, 4)) + 1}-02-30`, monto: '10' }, ...date],
      [{ fecha_promesa: '0000-01-01', monto: '10' }, ...date],
    ];
    for (const [fields, field, message] of refusals) {
      const res = await send(q.token, 'promise', fields);
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(text).toMatch(new RegExp(`<p class="field-error" id="${field}-error">[^<]*${message}`));
      expect(text).toMatch(
        new RegExp(`id="${field}"[^>]*aria-invalid="true" aria-describedby="${field}-error"`),
      );
    }
    // Typed as text in the page's locale: the amount is offered as the locale writes it.
    expect((await open(q.token)).html).toMatch(/<input type="text" inputmode="decimal"[^>]*id="monto"/);
    expect((await detail(q.id)).promesas).toHaveLength(1);
  });
});

describe('the payment plan section', () => {
  it("says when a single payment is due by the client's terms, and shows nothing to pay once rejected", async () => {
    const created = await api('POST', '/cotizaciones', {
      items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 1000 }],
      cliente: { empresa: 'Neto SA' },
      terminos: 'net30',
      send: true,
    });
    const token = created.link_publico.split('/q/')[1] as string;
    const headings: Record<string, [string, string]> = {
      en: ['A single payment, 30 days after approval', 'Paid in full'],
      de: ['Eine Zahlung, 30 Tage nach Annahme', 'Sofort fällig'],
      es: ['Un solo pago, 30 días después de aprobar', 'Contado'],
      fr: ['Un seul paiement, 30 jours après l’acceptation', 'Comptant'],
      pt: ['Um único pagamento, 30 dias após a aprovação', 'À vista'],
    };
    for (const [lang, [heading, wrong]] of Object.entries(headings)) {
      const { html } = await open(token, `?lang=${lang}`);
      expect(html).toContain(`<p>${heading}</p>`);
      expect(html).not.toContain(wrong);
    }
    // Without terms, the single payment is due on approval.
    const now = await api('POST', '/cotizaciones', {
      items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 1000 }],
      cliente: { empresa: 'Contado SA' },
      terminos: 'contado',
      send: true,
    });
    expect((await open(now.link_publico.split('/q/')[1], '?lang=en')).html).toContain(
      '<p>A single payment, on approval</p>',
    );
    // The PDF says the same, with the amount paid and the balance.
    const pdf = await pdfText(await t.call('GET', `/q/${token}/pdf?lang=en`));
    expect(pdf).toContain('A single payment, 30 days after approval');
    expect(pdf).toContain('Balance · 30 days after approval · MX$1,160.00');
    expect(pdf).toContain('Paid: MX$0.00 · Balance due: MX$1,160.00');
    expect((await send(token, 'reject', {})).status).toBe(303);
    const { html } = await open(token, '?lang=en');
    expect(html).not.toContain('id="plan"');
    expect(html).not.toContain('Balance due');
    expect(await pdfText(await t.call('GET', `/q/${token}/pdf?lang=en`))).not.toContain('Balance due');
  });

  it('prints a deposit plan and the payments received on the PDF, as the page shows them', async () => {
    const created = await api('POST', '/cotizaciones', {
      items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 1000 }],
      cliente: { empresa: 'Anticipo SA' },
      plan_pagos: { tipo: 'anticipo', porcentaje: 50 },
      send: true,
    });
    await api('POST', `/cotizaciones/${created.id}`, { action: 'pay', monto: 580 });
    const token = created.link_publico.split('/q/')[1] as string;
    const pdf = await pdfText(await t.call('GET', `/q/${token}/pdf?lang=en`));
    expect(pdf).toContain('Paid: MX$580.00 · Balance due: MX$580.00');
    expect(pdf).toContain('Deposit');
    expect(pdf).toMatch(/Payments received \S+ \d+, \d{4} · MX\$580\.00/);
  });
});

describe('narrow screens', () => {
  it('lays lines, totals and the plan out in rows that fit 320 px, amounts in one right column', async () => {
    const css = await (await t.call('GET', '/q/assets/quote.css')).text();
    const narrow = css.slice(css.indexOf('@media (max-width:560px)'));
    // Column headers are hidden from sight only on the stacked tables, never removed for all tables.
    expect(css).not.toMatch(/(^|[{}])thead\{display:none\}/);
    expect(narrow).toContain('table.lines thead,table.stack thead{position:absolute');
    // Each row is a grid whose text column may shrink (the quantity wraps) beside the amount.
    expect(narrow).toContain('grid-template-columns:minmax(0,1fr) auto');
    expect(narrow).toContain('tr.line td.q{text-align:left;color:#4d5560;white-space:normal}');
    expect(narrow).toContain('table.totals tr{display:grid');
    // Line amounts and totals end at the same inset as the totals' cells (4px).
    expect(narrow).toContain('padding:10px 4px');
    const q = await quote({ plan: { tipo: 'anticipo', porcentaje: 50 } });
    const { html } = await open(q.token, '?lang=de');
    expect(html).toContain('<table class="lines">');
    expect(html).toMatch(/<table class="stack">.*<td data-label="Zahlbar bis:">/s);
  });
});

describe('French typography', () => {
  it('puts a non-breaking space before colons in French, and none in the other languages', async () => {
    const created = await api('POST', '/cotizaciones', {
      items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 1000 }],
      cliente: { empresa: 'Typo SA' },
      terminos: 'net30',
      send: true,
    });
    const token = created.link_publico.split('/q/')[1] as string;
    await send(token, 'comment', { mensaje: 'Prix', tipo_propuesta: 'total', valor: '900' });
    const fr = (await open(token, '?lang=fr')).html;
    expect(fr).toContain('Valable jusqu’au\u00a0: ');
    expect(fr).toContain('Conditions de paiement\u00a0: ');
    expect(fr).toContain('<strong>Contre-offre\u00a0:</strong>');
    expect(fr).not.toMatch(/(jusqu’au|paiement|offre):/);
    const es = (await open(token, '?lang=es')).html;
    expect(es).toContain('Válida hasta: ');
    expect(es).toContain('<strong>Contraoferta:</strong>');
  });
});

describe('the page forms against abuse', () => {
  it('refuses a form without the CSRF value or with a forged one, writing nothing', async () => {
    const q = await quote();
    const { cookie, csrf } = await open(q.token);
    const forged = [
      { cookie: '', csrf },
      { cookie, csrf: '' },
      { cookie, csrf: `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}` },
    ];
    for (const session of forged) {
      const res = await send(q.token, 'approve', { lineas: lineIds(q), ...signer }, session);
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('La página caducó');
      expect((await send(q.token, 'comment', { mensaje: 'hola' }, session)).status).toBe(403);
    }
    // A valid pair sent by a browser from another site, or a sibling subdomain that planted the
    // cookie, is refused as well; the page's own origin passes.
    for (const site of ['cross-site', 'same-site']) {
      const from = { 'sec-fetch-site': site };
      expect((await send(q.token, 'comment', { mensaje: 'hola' }, { cookie, csrf }, from)).status).toBe(403);
    }
    // A browser that does not send Sec-Fetch-Site says where it comes from with Origin.
    const evil = { origin: 'https://evil.example' };
    expect((await send(q.token, 'comment', { mensaje: 'hola' }, { cookie, csrf }, evil)).status).toBe(403);
    const own = { 'sec-fetch-site': 'same-origin' };
    expect((await send(q.token, 'comment', { mensaje: 'propio' }, { cookie, csrf }, own)).status).toBe(303);
    const ours = { origin: new URL(t.deps.config.publicUrl).origin };
    expect((await send(q.token, 'comment', { mensaje: 'nuestro' }, { cookie, csrf }, ours)).status).toBe(303);
    const after = await detail(q.id);
    expect(after.status).toBe('viewed');
    expect(after.conversacion.map((m: Json) => m.mensaje)).toEqual(['propio', 'nuestro']);
  });

  it('writes a message sent twice (a double click) once, and the same words later or elsewhere again', async () => {
    const q = await quote();
    const session = await open(q.token);
    const ip = { 'x-forwarded-for': '192.0.2.77' };
    const twice = await Promise.all(
      [0, 1].map(() => send(q.token, 'comment', { mensaje: '¿Incluye envío?' }, session, ip)),
    );
    expect(twice.map((res) => res.status)).toEqual([303, 303]);
    const line = lineIds(q)[0]!;
    await send(q.token, 'comment', { mensaje: '¿Incluye envío?', item_id: line }, session, ip);
    const offer = () =>
      send(
        q.token,
        'comment',
        { mensaje: '¿Incluye envío?', tipo_propuesta: 'total', valor: '50000' },
        session,
        ip,
      );
    await offer();
    const conversation = (await detail(q.id)).conversacion as Json[];
    expect(conversation.map((m) => [m.item_id, m.tipo])).toEqual([
      [null, 'mensaje'],
      [line, 'mensaje'],
      [null, 'contraoferta'],
    ]);
    expect(await events(q.id, 'quote.comment_added')).toHaveLength(3);
    const notices = await t.db.query(
      `SELECT 1 FROM email_outbox WHERE quote_id = $1 AND to_email LIKE 'ventas@%'`,
      [q.id],
    );
    expect(notices).toHaveLength(3);
    // Past the window the same words are a new message.
    t.setNow(new Date(Date.now() + 11 * 60_000));
    try {
      await offer();
    } finally {
      t.setNow(undefined);
    }
    expect((await detail(q.id)).conversacion).toHaveLength(4);
  });

  it('limits the forms per token: a flood answers 429 and writes nothing beyond the limit', async () => {
    const q = await quote();
    const session = await open(q.token);
    const ip = { 'x-forwarded-for': '192.0.2.10' };
    for (let i = 0; i < PAGE_FORM_LIMITS.perToken; i++) {
      expect((await send(q.token, 'comment', { mensaje: `mensaje ${i}` }, session, ip)).status).toBe(303);
    }
    const refused = await send(q.token, 'comment', { mensaje: 'uno más' }, session, ip);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.text()).toContain('Demasiados envíos');
    expect((await detail(q.id)).conversacion).toHaveLength(PAGE_FORM_LIMITS.perToken);
  });

  it('limits the forms per address across quotes', async () => {
    const ip = { 'x-forwarded-for': '192.0.2.99' };
    const perQuote = PAGE_FORM_LIMITS.perToken;
    const quotes = [];
    for (let sent = 0; sent < PAGE_FORM_LIMITS.perIp; sent += perQuote) quotes.push(await quote());
    for (const q of quotes) {
      const session = await open(q.token);
      for (let i = 0; i < perQuote; i++) await send(q.token, 'comment', { mensaje: `m${i}` }, session, ip);
    }
    const fresh = await quote();
    const res = await send(fresh.token, 'comment', { mensaje: 'uno más' }, undefined, ip);
    expect(res.status).toBe(429);
    expect((await detail(fresh.id)).conversacion).toEqual([]);
    // Another address is not held back.
    expect(
      (
        await send(fresh.token, 'comment', { mensaje: 'hola' }, undefined, {
          'x-forwarded-for': '192.0.2.100',
        })
      ).status,
    ).toBe(303);
  });
});
