import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.js';
import { foreignKeyArgs } from './support/machine.mjs';
import { cli, freePort, ROOT, type ServerProcess, startServerProcess } from './support/processes.js';

/**
 * The widget in a real Chromium against a real server: the demo page with the README's snippet,
 * under the demo's strict Content-Security-Policy.
 */
describe('<svc-quote-form> end to end', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-'));
  let server: ServerProcess;
  let browser: Browser;
  let seed: { org: { id: string }; keys: { pk_test: string; pk_live: string; sk_test_write: string } };
  let foreignKey: string;

  beforeAll(async () => {
    const port = await freePort();
    const env = { DATA_DIR: dataDir, PORT: String(port) };
    const out = (await cli(['seed', '--json'], env)).stdout;
    seed = JSON.parse(out);
    writeFileSync(join(dataDir, 'demo-keys.json'), out);
    // A live key for another site only: this page's origin is not on its list.
    foreignKey = JSON.parse((await cli(foreignKeyArgs(seed.org.id), env)).stdout).key;
    server = await startServerProcess({ ...env, DEMO_KEYS_FILE: join(dataDir, 'demo-keys.json') }, port);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function openDemo(width = 1280): Promise<Page> {
    const page = await browser.newPage();
    await page.setViewport({ width, height: 900 });
    await page.evaluateOnNewDocument(() => {
      const w = window as unknown as { __csp: string[]; __ready: Promise<void> };
      w.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
      w.__ready = new Promise((resolve) =>
        document.addEventListener('svc-ready', () => resolve(), { once: true }),
      );
    });
    await page.goto(`${server.url}/`, { waitUntil: 'domcontentloaded' });
    await page.evaluate(() => (window as unknown as { __ready: Promise<void> }).__ready);
    return page;
  }

  const text = (page: Page) =>
    page.evaluate(() => document.querySelector('svc-quote-form')!.shadowRoot!.textContent ?? '');

  it('renders from the pasted snippet under a strict CSP, branded by the merchant', async () => {
    const page = await openDemo();
    expect(await text(page)).toContain('Estudio Nopal');
    expect(await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp)).toEqual([]);
    const csp = (await page.goto(`${server.url}/`))!.headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    await page.close();
  });

  it('sends the script brotli- or gzip-compressed when accepted, each with its own ETag and 304', async () => {
    const built = readFileSync(join(ROOT, 'packages/elements/dist/svc-elements.js'));
    const url = `${server.url}/elements/svc-elements.js`;
    const tags = new Set<string>();
    for (const [accept, coding, decode] of [
      ['gzip, deflate, br, zstd', 'br', brotliDecompressSync],
      ['gzip', 'gzip', gunzipSync],
      ['identity', null, (b: Buffer) => b],
    ] as const) {
      // fetch would decode the body itself: read the bytes as sent.
      const res = await rawGet(url, { 'accept-encoding': accept });
      expect(res.headers['content-encoding'] ?? null).toBe(coding);
      expect(res.headers.vary).toBe('Accept-Encoding');
      expect(decode(res.body).equals(built)).toBe(true);
      if (coding) expect(res.body.length).toBeLessThan(built.length / 2);
      tags.add(res.headers.etag as string);
      const again = await rawGet(url, {
        'accept-encoding': accept,
        'if-none-match': res.headers.etag as string,
      });
      expect(again.status).toBe(304);
      expect((await rawGet(url, { 'accept-encoding': accept, 'if-none-match': '*' })).status).toBe(304);
    }
    expect(tags.size).toBe(3);
  });

  it('picks products with the keyboard through the combobox', async () => {
    const page = await openDemo();
    const input = await page.evaluateHandle(
      () =>
        document
          .querySelector('svc-quote-form')!
          .shadowRoot!.querySelector('svc-product-picker')!
          .shadowRoot!.querySelector('input')!,
    );
    await (input as unknown as { focus(): Promise<void> }).focus();
    await page.keyboard.type('monitor');
    const expanded = await page.evaluate(() =>
      document
        .querySelector('svc-quote-form')!
        .shadowRoot!.querySelector('svc-product-picker')!
        .shadowRoot!.querySelector('input')!
        .getAttribute('aria-expanded'),
    );
    expect(expanded).toBe('true');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await page.waitForFunction(
      () => document.querySelector('svc-quote-form')!.shadowRoot!.querySelectorAll('.line').length === 1,
    );
    expect(await text(page)).toContain('Monitor 27" 4K');
    await page.keyboard.type('zzzz');
    await page.keyboard.press('Escape');
    const closed = await page.evaluate(() =>
      document
        .querySelector('svc-quote-form')!
        .shadowRoot!.querySelector('svc-product-picker')!
        .shadowRoot!.querySelector('input')!
        .getAttribute('aria-expanded'),
    );
    expect(closed).toBe('false');
    await page.close();
  });

  it('drafts from plain words, applies a coupon, validates, submits once despite a dropped connection, and the client approves', async () => {
    const page = await openDemo();
    const events: string[] = [];
    await page.exposeFunction('__event', (name: string) => events.push(name));
    await page.evaluate(() => {
      for (const name of ['svc-change', 'svc-draft-item', 'svc-quote-created', 'svc-error']) {
        document.addEventListener(name, () =>
          (window as unknown as { __event(n: string): void }).__event(name),
        );
      }
    });
    // Draft from the text box.
    await page.evaluate(() => {
      const root = document.querySelector('svc-quote-form')!.shadowRoot!;
      (root.querySelector('#svc-draft') as HTMLTextAreaElement).value =
        'Necesito 3 laptops y 10 horas de instalación';
      (root.querySelector('[part="draft"] button') as HTMLButtonElement).click();
    });
    await page.waitForFunction(
      () => document.querySelector('svc-quote-form')!.shadowRoot!.querySelectorAll('.line').length === 2,
    );
    expect(events.filter((e) => e === 'svc-draft-item')).toHaveLength(2);
    // Coupon.
    await page.evaluate(() => {
      const root = document.querySelector('svc-quote-form')!.shadowRoot!;
      (root.querySelector('#svc-coupon') as HTMLInputElement).value = 'BIENVENIDA10';
      (root.querySelector('[part="coupon"] button') as HTMLButtonElement).click();
    });
    await page.waitForFunction(() =>
      /BIENVENIDA10/.test(
        document.querySelector('svc-quote-form')!.shadowRoot!.querySelector('#svc-coupon-status')!
          .textContent ?? '',
      ),
    );
    // 3 × 24,500 + 10 × 650 = 80,000; −8,000; tax 11,520; total 83,520.
    await page.waitForFunction(() =>
      (
        document.querySelector('svc-quote-form')!.shadowRoot!.querySelector('[part="totals"]')!.textContent ??
        ''
      ).includes('83,520.00'),
    );
    // Validation: nothing is sent without the required client fields.
    let posts = 0;
    const keys: string[] = [];
    let dropFirst = true;
    await page.setRequestInterception(true);
    const intercept = (request: import('puppeteer-core').HTTPRequest) => {
      if (request.method() === 'POST' && request.url().endsWith('/api/v1/cotizaciones')) {
        posts++;
        keys.push(request.headers()['idempotency-key'] ?? '');
        if (dropFirst) {
          dropFirst = false;
          void request.abort('connectionreset');
          return;
        }
      }
      void request.continue();
    };
    page.on('request', intercept);
    await page.evaluate(() =>
      (
        document
          .querySelector('svc-quote-form')!
          .shadowRoot!.querySelector('[part="submit"]') as HTMLButtonElement
      ).click(),
    );
    await page.waitForFunction(
      () =>
        document.querySelector('svc-quote-form')!.shadowRoot!.querySelectorAll('[aria-invalid="true"]')
          .length >= 2,
    );
    expect(posts).toBe(0);
    // Fill and submit: the first attempt's connection drops; the retry carries the same key.
    await page.evaluate(() => {
      const root = document.querySelector('svc-quote-form')!.shadowRoot!;
      (root.querySelector('[name="empresa"]') as HTMLInputElement).value = 'Papelería Luna';
      (root.querySelector('[name="email"]') as HTMLInputElement).value = 'compras@luna.example';
      (root.querySelector('[part="submit"]') as HTMLButtonElement).click();
      (root.querySelector('[part="submit"]') as HTMLButtonElement).click();
    });
    await page.waitForFunction(
      () => !!document.querySelector('svc-quote-form')!.shadowRoot!.querySelector('[part~="success"]'),
      { timeout: 15_000 },
    );
    expect(posts).toBe(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(events).toContain('svc-quote-created');
    const link = await page.evaluate(
      () =>
        (
          document
            .querySelector('svc-quote-form')!
            .shadowRoot!.querySelector('[part~="success"] a') as HTMLAnchorElement
        ).href,
    );
    expect(await text(page)).toMatch(/COT-\d{6}/);
    page.off('request', intercept);
    await page.setRequestInterception(false);
    // Exactly one quote exists, priced by the server.
    const list = await (
      await fetch(`${server.url}/api/v1/cotizaciones`, {
        headers: { authorization: `Bearer ${seed.keys.sk_test_write}` },
      })
    ).json();
    expect(list.data.filter((q: { cliente: string }) => q.cliente === 'Papelería Luna')).toHaveLength(1);
    const quote = list.data.find((q: { cliente: string }) => q.cliente === 'Papelería Luna');
    expect(quote.total).toBe(83520);
    // The seller sees it on the seller page and sends it from there; the client approves on the link.
    await page.goto(`${server.url}/demo/seller`);
    expect(await page.content()).toContain(quote.folio);
    await Promise.all([
      page.waitForNavigation(),
      page.click(`tr[data-id="${quote.id}"] form[action$="/send"] button`),
    ]);
    expect(
      await page.$eval(`tr[data-id="${quote.id}"] .status-cell`, (el) => el.getAttribute('data-status')),
    ).toBe('sent');
    await page.goto(link);
    await page.type('#nombre', 'Lucía Luna');
    await page.type('#email', 'lucia@papeleria-luna.example');
    await Promise.all([page.waitForNavigation(), page.click('form[action*="/approve"] button.primary')]);
    await page.waitForFunction(() => document.querySelector('.status') !== null);
    const detail = await (
      await fetch(`${server.url}/api/v1/cotizaciones/${quote.id}`, {
        headers: { authorization: `Bearer ${seed.keys.sk_test_write}` },
      })
    ).json();
    expect(detail.data.status).toBe('approved');
    expect(detail.data.aceptacion).toMatchObject({
      nombre: 'Lucía Luna',
      email: 'lucia@papeleria-luna.example',
    });
    await page.close();
  });

  it('explains a wrong key and an origin that is not allowed, with a retry', async () => {
    const page = await openDemo();
    for (const [key, expected] of [
      ['pk_test_00000000000000000000000000000000', 'clave del cotizador no es válida'],
      [foreignKey, 'no está autorizado'],
    ] as const) {
      const found = await page.evaluate(
        async (k, e) => {
          const form = document.createElement('svc-quote-form');
          form.setAttribute('publishable-key', k);
          form.setAttribute('locale', 'es');
          document.body.append(form);
          await Promise.race([
            new Promise((resolve) => form.addEventListener('svc-error', resolve, { once: true })),
            new Promise((resolve) => setTimeout(resolve, 5000)),
          ]);
          await (form as unknown as { updateComplete: Promise<unknown> }).updateComplete;
          const root = form.shadowRoot!;
          const ok = (root.textContent ?? '').includes(e) && !!root.querySelector('[part~="error"] button');
          form.remove();
          return ok;
        },
        key,
        expected,
      );
      expect({ key: key.slice(0, 8), found }).toEqual({ key: key.slice(0, 8), found: true });
    }
    await page.close();
  });

  it('passes an axe-core accessibility check with no violations, ready and with lines', async () => {
    const page = await openDemo();
    // The demo's CSP refuses inline scripts: load axe through the DevTools protocol instead.
    await page.evaluate(readFileSync(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8'));
    const run = () =>
      page.evaluate(async () => {
        const axe = (
          window as unknown as {
            axe: { run(c: unknown, o: unknown): Promise<{ violations: { id: string; nodes: unknown[] }[] }> };
          }
        ).axe;
        const result = await axe.run({ include: [['svc-quote-form']] }, { resultTypes: ['violations'] });
        return result.violations.map(
          (v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => (n as { html: string }).html))}`,
        );
      });
    expect(await run()).toEqual([]);
    await page.evaluate(() =>
      (document.querySelector('svc-quote-form') as unknown as { draft(t: string): Promise<number> }).draft(
        '2 monitores',
      ),
    );
    expect(await run()).toEqual([]);
    await page.close();
  });

  it('keeps the demo page itself readable in both themes: links and footer at 4.5:1 (axe color-contrast)', async () => {
    const page = await openDemo();
    await page.evaluate(readFileSync(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8'));
    for (const theme of ['light', 'dark']) {
      // The page's own theme switcher (demo-controls.js), as a visitor uses it.
      await page.select('#theme', theme);
      const violations = await page.evaluate(async () => {
        const axe = (
          window as unknown as {
            axe: {
              run(
                c: unknown,
                o: unknown,
              ): Promise<{ violations: { id: string; nodes: { target: string[]; html: string }[] }[] }>;
            };
          }
        ).axe;
        const result = await axe.run(document, { runOnly: ['color-contrast'], resultTypes: ['violations'] });
        return result.violations.flatMap((v) => v.nodes.map((n) => `${n.target.join(' ')}: ${n.html}`));
      });
      expect({ theme, violations }).toEqual({ theme, violations: [] });
      await page.screenshot({
        path: `${process.env.SVC_SHOTS_DIR ?? '/tmp/svc-shots'}-demo-page-${theme}.png`,
      });
    }
    await page.close();
  });

  it('turns the demo page dark with the system when the theme is auto, as the widget does', async () => {
    const page = await openDemo();
    const looks = () =>
      page.evaluate(() => ({
        page: document.body.classList.contains('dark'),
        widget: getComputedStyle(
          document.querySelector('svc-quote-form')!.shadowRoot!.querySelector('[part~="base"]')!,
        ).backgroundColor,
      }));
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await page.select('#theme', 'auto');
    // The widget's dark surface (#161a1f) and the page's dark class, together.
    expect(await looks()).toEqual({ page: true, widget: 'rgb(22, 26, 31)' });
    // The system turns light: both follow, with no new choice in the switcher.
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
    await page.waitForFunction(() => !document.body.classList.contains('dark'), { timeout: 5000 });
    expect(await looks()).toEqual({ page: false, widget: 'rgb(255, 255, 255)' });
    await page.select('#theme', 'dark');
    expect((await looks()).page).toBe(true);
    await page.close();
  });

  it('works from the SPA that imports @svc/elements, which sees its events', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/demo/spa/`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('#events li[data-event="svc-ready"]');
    const prefilled = await page.evaluate(
      () =>
        (
          document
            .querySelector('svc-quote-form')!
            .shadowRoot!.querySelector('[name="empresa"]') as HTMLInputElement
        ).value,
    );
    expect(prefilled).toBe('Acme Corp');
    await page.evaluate(() =>
      (document.querySelector('svc-quote-form') as unknown as { draft(t: string): Promise<number> }).draft(
        'two keyboards',
      ),
    );
    await page.waitForSelector('#events li[data-event="svc-draft-item"]');
    expect(
      await page.evaluate(() => document.querySelector('svc-quote-form')!.shadowRoot!.textContent),
    ).toContain('Teclado inalámbrico');
    await page.close();
  });

  it('lets the seller act on quotes from the seller page without the secret key reaching the browser', async () => {
    const created = await (
      await fetch(`${server.url}/api/v1/cotizaciones`, {
        method: 'POST',
        headers: { authorization: `Bearer ${seed.keys.sk_test_write}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          items: [{ descripcion: 'Logo', cantidad: 1, precio_unitario: 9500 }],
          cliente: { empresa: 'Vendedor Test' },
        }),
      })
    ).json();
    const page = await browser.newPage();
    await page.goto(`${server.url}/demo/seller`);
    const source = await page.content();
    expect(source).not.toContain('sk_test_');
    expect(source).toContain(created.data.folio);
    await Promise.all([
      page.waitForNavigation(),
      page.click(`tr[data-id="${created.data.id}"] form[action$="/send"] button`),
    ]);
    expect(
      await page.$eval(`tr[data-id="${created.data.id}"] .status-cell`, (el) =>
        el.getAttribute('data-status'),
      ),
    ).toBe('sent');
    await page.close();
  });

  it('renders in light and dark at phone and desktop widths (screenshots in /tmp/svc-shots)', async () => {
    for (const width of [360, 1280]) {
      for (const theme of ['light', 'dark']) {
        const page = await openDemo(width);
        await page.evaluate((t) => {
          document.querySelector('svc-quote-form')!.setAttribute('theme', t);
          document.body.classList.toggle('dark', t === 'dark');
        }, theme);
        await page.evaluate(() =>
          (
            document.querySelector('svc-quote-form') as unknown as { draft(t: string): Promise<number> }
          ).draft('3 laptops y 2 monitores'),
        );
        const form = await page.$('svc-quote-form');
        await form!.screenshot({
          path: `${process.env.SVC_SHOTS_DIR ?? '/tmp/svc-shots'}-${theme}-${width}.png`,
        });
        const box = await form!.boundingBox();
        expect(box!.width).toBeLessThanOrEqual(width);
        await page.close();
      }
    }
  });
});

/** A GET whose body comes back as the server sent it, encoded or not. */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    }).on('error', reject);
  });
}
