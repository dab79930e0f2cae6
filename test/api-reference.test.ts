import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.js';
import { type ServerProcess, startServerProcess } from './support/processes.js';

/**
 * /docs/api is Scalar's interactive reference, served by our own server: in Chromium, with every
 * request to another host refused (offline), it renders our operations with request examples.
 */
describe('the interactive API reference', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-docs-'));
  let server: ServerProcess;
  let browser: Browser;
  beforeAll(async () => {
    server = await startServerProcess({ DATA_DIR: dataDir });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('renders offline from /api/v1/openapi.json, under its CSP, with examples', async () => {
    const page = await browser.newPage();
    const elsewhere: string[] = [];
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      if (new URL(request.url()).origin === server.url || request.url().startsWith('data:'))
        return request.continue();
      elsewhere.push(request.url());
      return request.abort();
    });
    const response = await page.goto(`${server.url}/docs/api`, { waitUntil: 'networkidle0' });
    expect(response!.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.waitForFunction(() => document.body.innerText.includes('Create a draft invoice'), {
      timeout: 30_000,
    });
    const text = await page.evaluate(() => document.body.innerText);
    for (const summary of ['Create a quote', 'List invoices', 'Propose an account configuration']) {
      expect(text).toContain(summary);
    }
    expect(violations).toEqual([]);
    // Nothing it needs comes from elsewhere: what it tried (if anything) was refused and it still rendered.
    expect(elsewhere.filter((url) => /\.(js|css)(\?|$)/.test(url))).toEqual([]);
    await page.close();
  });

  it('keeps the plain table as a no-JavaScript fallback, and the examples are in the document', async () => {
    const plain = await (await fetch(`${server.url}/docs/api/plain`)).text();
    expect(plain).toContain('POST /facturas');
    const doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    const create = doc.paths['/cotizaciones'].post;
    expect(create.requestBody.content['application/json'].example.items[0]).toMatchObject({
      cantidad: 2,
      precio_unitario: 1000,
    });
    expect(create.responses['200'].content['application/json'].example.data.folio).toBe('COT-000001');
    expect(create.responses['409'].content['application/json'].example.code).toBe('invalid_state');
    for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(methods)) {
        if (method === 'servers') continue;
        if (op.requestBody)
          expect(op.requestBody.content['application/json'].example, `${method} ${path}`).toBeDefined();
      }
    }
  });
});
