import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../testing/harness.js';

let t: TestContext;
let sk: string;
beforeAll(async () => {
  t = await createTestContext();
  sk = t.seed.keys.sk_test_write;
});
afterAll(() => t.close());

type Json = Record<string, any>;
async function quote(options: { send?: boolean; lang?: string; notas?: string } = {}) {
  const laptop = t.seed.products.find((p) => p.sku === 'LAP-14')!.id;
  const res = await t.call('POST', '/api/v1/cotizaciones', {
    key: sk,
    headers: options.lang ? { 'accept-language': options.lang } : {},
    body: {
      items: [
        {
          descripcion: 'Laptop 14"',
          cantidad: 2,
          precio_unitario: 24500,
          producto_id: laptop,
          costo_unitario: 19999,
        },
      ],
      cliente: { empresa: 'Cliente Público', email: 'publico@x.example' },
      cupon: 'BIENVENIDA10',
      notas: options.notas ?? 'margen interno secreto',
      send: options.send ?? true,
    },
  });
  return ((await res.json()) as Json).data as Json;
}
const page = (token: string) => t.call('GET', `/q/${token}`);
const status = async (id: string) =>
  (((await (await t.call('GET', `/api/v1/cotizaciones/${id}`, { key: sk })).json()) as Json).data as Json)
    .status;

describe('public quote page', () => {
  it('shows lines, totals, validity and terms in the quote language, and nothing internal', async () => {
    const q = await quote({ lang: 'de' });
    const res = await page(q.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain('<html lang="de">');
    expect(html).toContain('Angebot');
    expect(html).toContain(q.folio);
    expect(html).toContain('Laptop 14&quot;');
    expect(html).toContain('Gültig bis');
    expect(html).toMatch(/49\.000,00/);
    expect(html).toContain('name="viewport"');
    for (const secret of ['19999', '19.999', 'margen interno', 'costo']) expect(html).not.toContain(secret);
  });

  it('speaks each of the five languages', async () => {
    const words: Record<string, string> = {
      es: 'Cotización',
      en: 'Quote',
      pt: 'Orçamento',
      fr: 'Devis',
      de: 'Angebot',
    };
    for (const [lang, word] of Object.entries(words)) {
      const html = await (await page((await quote({ lang })).token)).text();
      expect(html).toContain(`lang="${lang}"`);
      expect(html).toContain(word);
    }
  });

  it('marks a sent quote viewed on first opening only, with actor client', async () => {
    const q = await quote();
    await page(q.token);
    await page(q.token);
    expect(await status(q.id)).toBe('viewed');
    const events = (await (
      await t.call('GET', `/api/v1/events?object_id=${q.id}&type=quote.viewed`, { key: sk })
    ).json()) as Json;
    expect(events.data).toHaveLength(1);
    expect(events.data[0].actor).toBe('client');
  });

  it('lets the client approve, once', async () => {
    const q = await quote();
    const res = await t.call('POST', `/q/${q.token}/approve`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/q/${q.token}`);
    expect(await status(q.id)).toBe('approved');
    await t.call('POST', `/q/${q.token}/reject`);
    expect(await status(q.id)).toBe('approved');
    const html = await (await page(q.token)).text();
    expect(html).not.toContain('formaction');
  });

  it('lets the client reject', async () => {
    const q = await quote();
    await t.call('POST', `/q/${q.token}/reject`);
    expect(await status(q.id)).toBe('rejected');
  });

  it('does not show drafts or unknown tokens', async () => {
    const draft = await quote({ send: false });
    expect((await page(draft.token)).status).toBe(404);
    expect((await t.call('POST', `/q/${draft.token}/approve`)).status).toBe(404);
    expect(await status(draft.id)).toBe('draft');
    expect((await page('x'.repeat(40))).status).toBe(404);
    expect((await page('<script>')).status).toBe(404);
  });
});
