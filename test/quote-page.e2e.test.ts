import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.js';
import { cli, freePort, ROOT, type ServerProcess, startServerProcess } from './support/processes.js';

type Json = Record<string, any>;

/**
 * The client's side of a quote (design.md section 14) in a real Chromium against a real server:
 * the public quote page with JavaScript off, used with the keyboard, checked by axe-core at a phone's
 * and a desktop's width, and attacked by a form on another site.
 */
describe('the public quote page in Chromium', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-quote-page-'));
  // Screenshots to look at (kept after the run): SCREENSHOT_DIR or a folder under the system's tmp.
  const shots = process.env.SCREENSHOT_DIR ?? join(tmpdir(), 'svc-quote-page-shots');
  let server: ServerProcess;
  let browser: Browser;
  let attacker: Server;
  let attackerUrl: string;
  let sk: string;

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    const port = await freePort();
    const env = { DATA_DIR: dataDir, PORT: String(port) };
    const out = (await cli(['seed', '--json'], env)).stdout;
    sk = JSON.parse(out).keys.sk_test_write;
    writeFileSync(join(dataDir, 'demo-keys.json'), out);
    server = await startServerProcess({ ...env, DEMO_KEYS_FILE: join(dataDir, 'demo-keys.json') }, port);
    browser = await launchChromium();
    // Another site (localhost is not the same site as 127.0.0.1) whose page posts to the quote.
    attacker = createServer((req, res) => {
      const target = new URL(req.url!, 'http://x').searchParams.get('target')!;
      res.setHeader('content-type', 'text/html');
      res.end(
        `<form method="post" action="${target}"><input name="mensaje" value="forjado"><input name="csrf" value="x"></form><script>document.forms[0].submit()</script>`,
      );
    });
    const attackerPort = await freePort();
    await new Promise<void>((resolve) => attacker.listen(attackerPort, 'localhost', resolve));
    attackerUrl = `http://localhost:${attackerPort}`;
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    attacker?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${sk}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await res.json()) as Json;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer.data as Json;
  };

  async function sentQuote(): Promise<Json> {
    const created = await api('POST', '/cotizaciones', {
      items: [
        { descripcion: 'Laptop 14" Core i7', cantidad: 4, precio_unitario: 24500 },
        { descripcion: 'Monitor 27" 4K', cantidad: 4, precio_unitario: 7800 },
        { descripcion: 'Instalación en sitio (horas)', cantidad: 6, precio_unitario: 650 },
      ],
      cliente: { empresa: 'Tacos El Güero', email: 'compras@guero.example' },
      cupon: 'BIENVENIDA10',
      plan_pagos: { tipo: 'anticipo', porcentaje: 50 },
      send: true,
    });
    return api('GET', `/cotizaciones/${created.id}`);
  }

  /** A page with JavaScript off, as the quote page needs none; CSP violations are recorded. */
  async function openQuote(q: Json, width: number, query = ''): Promise<Page> {
    const page = await browser.newPage();
    await page.setJavaScriptEnabled(false);
    await page.setViewport({ width, height: 900 });
    await page.goto(`${q.link_publico}${query}`, { waitUntil: 'load' });
    return page;
  }

  async function axeViolations(page: Page): Promise<string[]> {
    // Through the DevTools protocol: the page's CSP allows no script of its own.
    await page.setJavaScriptEnabled(true);
    await page.evaluate(readFileSync(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8'));
    return page.evaluate(async () => {
      const axe = (
        window as unknown as {
          axe: { run(c: unknown, o: unknown): Promise<{ violations: { id: string; nodes: unknown[] }[] }> };
        }
      ).axe;
      const result = await axe.run(document, { resultTypes: ['violations'] });
      return result.violations.map(
        (v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => (n as { html: string }).html))}`,
      );
    });
  }

  it('has no axe-core violations at 360 and 1280 px, open and after a partial approval, styled in the brand colour under its CSP', async () => {
    const q = await sentQuote();
    for (const width of [360, 1280]) {
      const page = await openQuote(q, width);
      expect(await axeViolations(page)).toEqual([]);
      // Both stylesheets loaded under the strict CSP: the merchant's green is on the buttons.
      const colour = await page.$eval('button.primary', (el) => getComputedStyle(el).backgroundColor);
      expect(colour).toBe('rgb(31, 122, 77)');
      await page.screenshot({ path: join(shots, `quote-page-${width}.png`), fullPage: true });
      await page.close();
    }
    const partial = await sentQuote();
    const page = await openQuote(partial, 360);
    await page.click(`input[name="lineas"][value="${partial.items[1].id}"]`);
    await page.type('#nombre', 'Ana Pérez');
    await page.type('#email', 'ana@guero.example');
    await Promise.all([
      page.waitForNavigation(),
      page.click('form[action*="/approve"] button[type="submit"]'),
    ]);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(shots, 'quote-page-approved-360.png'), fullPage: true });
    await page.close();
  });

  it('takes a client through it with the keyboard alone: ask about a line, counter its price, approve the others, promise a date, get the PDF; the seller sees it all', async () => {
    const q = await sentQuote();
    const [laptop, monitor, install] = q.items as Json[];
    const page = await openQuote(q, 1280, '?lang=en');
    expect(await page.$eval('html', (el) => el.lang)).toBe('en');

    // A question about the monitors: focus by Tab, choose the line by keyboard, type, submit with Enter.
    const tabTo = async (selector: string) => {
      for (let i = 0; i < 60; i++) {
        if (await page.$eval(selector, (el) => el === document.activeElement)) return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`Tab never reached ${selector}`);
    };
    await tabTo('#item_id');
    await page.select('#item_id', monitor!.id);
    await tabTo('#mensaje');
    await page.keyboard.type('Do the monitors come with HDMI cables?');
    await tabTo('form[action*="/comment"] button[type="submit"]');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    expect(page.url()).toContain('lang=en');
    expect(await page.$eval('[role="status"]', (el) => el.textContent)).toContain('sent to the seller');

    // A counteroffer on the laptops' price.
    await tabTo('#item_id');
    await page.select('#item_id', laptop!.id);
    await tabTo('#mensaje');
    await page.keyboard.type('Could you do 22,000 each?');
    await page.select('#tipo_propuesta', 'precio_unitario');
    await tabTo('#valor');
    await page.keyboard.type('22000');
    await tabTo('form[action*="/comment"] button[type="submit"]');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    const conversation = await page.$eval('ol.messages', (el) => el.textContent ?? '');
    expect(conversation).toContain('Do the monitors come with HDMI cables?');
    expect(conversation).toContain('Counteroffer');

    // Approve the monitors and the installation, not the laptops under negotiation.
    await tabTo(`input[name="lineas"][value="${laptop!.id}"]`);
    await page.keyboard.press('Space');
    await tabTo('#nombre');
    await page.keyboard.type('Ana Pérez');
    await tabTo('#email');
    await page.keyboard.type('ana@guero.example');
    await tabTo('form[action*="/approve"] button[type="submit"]');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    const lines = await page.$$eval('tr.line', (rows) => rows.map((r) => r.className));
    expect(lines).toEqual(['line declined', 'line', 'line']);
    expect(await page.$eval('main', (el) => el.textContent)).toContain('You approved part of this quote');

    // Promise to pay the deposit next week.
    const date = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    await page.$eval('#fecha_promesa', (el, value) => ((el as HTMLInputElement).value = value), date);
    await tabTo('form[action*="/promise"] button[type="submit"]');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    expect(await page.$eval('[role="status"]', (el) => el.textContent)).toContain(
      'promise to pay was recorded',
    );
    await page.screenshot({ path: join(shots, 'quote-page-after-1280.png'), fullPage: true });

    // The PDF link downloads the approved quote with its acceptance.
    const pdfHref = await page.$eval('a[href*="/pdf"]', (el) => (el as HTMLAnchorElement).href);
    const pdf = await fetch(pdfHref);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect((await pdf.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    await page.close();

    // The seller sees all of it, through the API and on the seller page.
    const seen = await api('GET', `/cotizaciones/${q.id}`);
    expect(seen.status).toBe('approved');
    expect(seen.items.map((item: Json) => item.declinada)).toEqual([true, false, false]);
    expect(seen.aceptacion).toMatchObject({
      nombre: 'Ana Pérez',
      email: 'ana@guero.example',
      ip: '127.0.0.1',
    });
    expect(seen.conversacion.map((m: Json) => [m.autor, m.item_id, m.tipo])).toEqual([
      ['cliente', monitor!.id, 'mensaje'],
      ['cliente', laptop!.id, 'contraoferta'],
    ]);
    expect(seen.conversacion[1].propuesta).toEqual({ precio_unitario: 22000 });
    expect(seen.promesas).toEqual([expect.objectContaining({ fecha_promesa: date, estado: 'pending' })]);
    expect(seen.total).toBeLessThan(q.total);
    expect(install).toBeDefined();
    const sellerPage = await (await fetch(`${server.url}/demo/seller/q/${q.id}`)).text();
    expect(sellerPage).toContain('Do the monitors come with HDMI cables?');
    expect(sellerPage).toContain('contraoferta');
    expect(sellerPage).toContain('aceptada por Ana Pérez');
  });

  it("refuses a form posted from another site, which cannot know the page's CSRF value, and writes nothing", async () => {
    const q = await sentQuote();
    const page = await openQuote(q, 1280);
    await page.setJavaScriptEnabled(true);
    const response = await page.goto(
      `${attackerUrl}/?target=${encodeURIComponent(`${q.link_publico}/comment`)}`,
      { waitUntil: 'load' },
    );
    await page.waitForFunction(() => location.href.includes('/comment'), { timeout: 10_000 });
    const html = await page.content();
    expect(response).toBeTruthy();
    expect(html).toContain('La página caducó');
    expect((await api('GET', `/cotizaciones/${q.id}`)).conversacion).toEqual([]);
    await page.close();
  });
});
