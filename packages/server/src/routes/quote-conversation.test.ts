import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commentOnPage } from '../services/client-decisions.js';
import { expectError } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';

let t: TestContext;
let sk: string;
beforeAll(async () => {
  t = await createTestContext({ sellerPage: true });
  sk = t.seed.keys.sk_test_write;
});
afterAll(() => t.close());

type Json = Record<string, any>;
const action = (id: string, body: Json, key = sk) =>
  t.call('POST', `/api/v1/cotizaciones/${id}`, { key, body });
const detail = async (id: string) =>
  ((await (await t.call('GET', `/api/v1/cotizaciones/${id}`, { key: sk })).json()) as Json).data as Json;
const comments = async (id: string) =>
  (
    (await (
      await t.call('GET', `/api/v1/events?object_id=${id}&type=quote.comment_added`, { key: sk })
    ).json()) as Json
  ).data as Json[];

async function sentQuote(): Promise<Json> {
  const res = await t.call('POST', '/api/v1/cotizaciones', {
    key: sk,
    body: {
      items: [
        { descripcion: 'Laptop', cantidad: 2, precio_unitario: 20000 },
        { descripcion: 'Mouse', cantidad: 2, precio_unitario: 500 },
      ],
      cliente: { empresa: 'Conversaciones SA', email: 'c@conv.example' },
      send: true,
    },
  });
  const { id } = ((await res.json()) as Json).data;
  return detail(id);
}

/** A client's message, written on the page (the same service the page's form calls). */
async function clientSays(quote: Json, mensaje: string) {
  const token = String(quote.link_publico).split('/q/')[1]!;
  await commentOnPage(t.deps, token, { mensaje, item_id: null, propuesta: null });
}

describe('the quote conversation through the API', () => {
  it('adds the seller’s message (autor vendedor) about the quote or a line, in order with the client’s', async () => {
    const q = await sentQuote();
    await clientSays(q, '¿Tienen en color negro?');
    const res = await action(q.id, {
      action: 'comment',
      mensaje: 'Sí, sin costo extra',
      item_id: q.items[0].id,
    });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as Json;
    expect(data.status).toBe(q.status);
    expect(data.conversacion).toEqual([
      expect.objectContaining({
        autor: 'cliente',
        mensaje: '¿Tienen en color negro?',
        item_id: null,
        tipo: 'mensaje',
      }),
      expect.objectContaining({
        autor: 'vendedor',
        mensaje: 'Sí, sin costo extra',
        item_id: q.items[0].id,
        tipo: 'mensaje',
        propuesta: null,
      }),
    ]);
    for (const message of data.conversacion) expect(Date.parse(message.created_at)).not.toBeNaN();
    expect((await detail(q.id)).conversacion).toEqual(data.conversacion);
    const [seller] = await comments(q.id);
    expect(seller).toMatchObject({
      actor: expect.stringMatching(/^api:/),
      data: { autor: 'vendedor', mensaje: 'Sí, sin costo extra', item_id: q.items[0].id, tipo: 'mensaje' },
    });
    expect(seller!.data).not.toHaveProperty('link_publico');
  });

  it('refuses a comment without a message, too long, about another quote’s line, or fields of other actions; writes nothing', async () => {
    const q = await sentQuote();
    const other = await sentQuote();
    const refused: Json[] = [
      { action: 'comment' },
      { action: 'comment', mensaje: '' },
      { action: 'comment', mensaje: '   ' },
      { action: 'comment', mensaje: 'x'.repeat(2001) },
      { action: 'comment', mensaje: 'hola', item_id: other.items[0].id },
      { action: 'comment', mensaje: 'hola', item_id: 'linea-1' },
      { action: 'comment', mensaje: 'hola', monto: 10 },
      { action: 'send', mensaje: 'hola' },
    ];
    for (const body of refused) await expectError(await action(q.id, body), 400, 'invalid_request');
    await expectError(
      await action(q.id, { action: 'comment', mensaje: 'hola' }, t.seed.keys.sk_test_read),
      403,
      'insufficient_scope',
    );
    expect((await detail(q.id)).conversacion).toEqual([]);
    expect((await detail(other.id)).conversacion).toEqual([]);
    expect(await comments(q.id)).toHaveLength(0);
  });

  it('takes item_id null as about the whole quote, and a line id in upper case as that line', async () => {
    const q = await sentQuote();
    expect((await action(q.id, { action: 'comment', mensaje: 'General', item_id: null })).status).toBe(200);
    const line = String(q.items[0].id);
    expect(
      (await action(q.id, { action: 'comment', mensaje: 'Línea', item_id: line.toUpperCase() })).status,
    ).toBe(200);
    expect((await detail(q.id)).conversacion).toEqual([
      expect.objectContaining({ mensaje: 'General', item_id: null }),
      expect.objectContaining({ mensaje: 'Línea', item_id: line }),
    ]);
    const missing = await expectError(await action(q.id, { action: 'comment' }), 400, 'invalid_request');
    expect(missing.error).toBe('mensaje: is required');
  });

  it('takes a message of exactly 2000 characters', async () => {
    const q = await sentQuote();
    const res = await action(q.id, { action: 'comment', mensaje: 'é'.repeat(2000) });
    expect(res.status).toBe(200);
  });

  it('keeps the conversation when the seller answers a counteroffer with resend and new lines', async () => {
    const q = await sentQuote();
    const token = String(q.link_publico).split('/q/')[1]!;
    await commentOnPage(t.deps, token, {
      mensaje: '¿18,000 por laptop?',
      item_id: q.items[0].id,
      propuesta: { precio_unitario: 18000 },
    });
    // The counteroffer alone changes nothing.
    expect((await detail(q.id)).total).toBe(q.total);
    const res = await action(q.id, {
      action: 'resend',
      items: [
        { descripcion: 'Laptop', cantidad: 2, precio_unitario: 18000 },
        { descripcion: 'Mouse', cantidad: 2, precio_unitario: 500 },
      ],
    });
    expect(res.status).toBe(200);
    const after = (await res.json()) as Json;
    expect(after.data.total).toBeLessThan(q.total);
    expect(after.data.conversacion).toEqual([
      expect.objectContaining({
        tipo: 'contraoferta',
        item_id: q.items[0].id,
        propuesta: { precio_unitario: 18000 },
      }),
    ]);
    // The page says the message was about a line of the version before, not a bare dash.
    const page = await (await t.call('GET', `/q/${token}?lang=en`)).text();
    expect(page).toContain('About: a line of an earlier version');
  });
});

describe('approvals through the API', () => {
  it('take the whole quote: quote.approved carries parcial: false', async () => {
    const q = await sentQuote();
    expect((await action(q.id, { action: 'approve' })).status).toBe(200);
    const res = await t.call('GET', `/api/v1/events?object_id=${q.id}&type=quote.approved`, { key: sk });
    const [approved] = ((await res.json()) as Json).data as Json[];
    expect(approved!.data).toMatchObject({ parcial: false, status: 'approved' });
    expect((await detail(q.id)).items.every((item: Json) => item.declinada === false)).toBe(true);
  });

  it('reject without a reason: quote.rejected carries motivo_rechazo null, as the page gives it', async () => {
    const q = await sentQuote();
    expect((await action(q.id, { action: 'reject' })).status).toBe(200);
    const res = await t.call('GET', `/api/v1/events?object_id=${q.id}&type=quote.rejected`, { key: sk });
    const [rejected] = ((await res.json()) as Json).data as Json[];
    expect(rejected!.data).toMatchObject({ motivo_rechazo: null, status: 'rejected' });
  });
});

describe('the seller page', () => {
  it('shows a quote’s conversation escaped and lets the seller answer', async () => {
    const q = await sentQuote();
    await clientSays(q, '<img src=x onerror=alert(1)> ¿precio final?');
    const page = await t.call('GET', `/demo/seller/q/${q.id}`);
    expect(page.status).toBe(200);
    expect(await (await t.call('GET', '/demo/seller')).text()).toContain(`/demo/seller/q/${q.id}`);
    const html = await page.text();
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; ¿precio final?');
    expect(html).not.toContain('<img src=x');
    const answer = await t.call('POST', `/demo/seller/q/${q.id}/comment`, {
      body: new URLSearchParams({ mensaje: 'Precio final: 40,000', item_id: '' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
    });
    expect(answer.status).toBe(303);
    expect((await detail(q.id)).conversacion.at(-1)).toMatchObject({
      autor: 'vendedor',
      mensaje: 'Precio final: 40,000',
    });
    const forged = await t.call('POST', `/demo/seller/q/${q.id}/comment`, {
      body: new URLSearchParams({ mensaje: 'forjado' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
    });
    expect(forged.status).toBe(403);
    expect((await detail(q.id)).conversacion).toHaveLength(2);
  });
});
