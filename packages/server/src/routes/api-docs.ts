import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Hono } from 'hono';
import { html, raw } from 'hono/html';
import { llmsText, openApiDocument } from '../openapi/document.js';
import { ERROR_DOCS, type ErrorDoc, NEVER_ANSWERED } from '../openapi/error-catalog.js';
import { OPERATIONS } from '../openapi/operations.js';
import type { AppDeps, AppEnv } from '../types.js';

let bundle: Uint8Array<ArrayBuffer> | undefined;
/** Scalar's standalone bundle from its npm package, read once. */
function scalarBundle(): Uint8Array<ArrayBuffer> {
  bundle ??= new Uint8Array(
    readFileSync(createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js')),
  );
  return bundle;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[c]};`);
/** A catalog text as HTML: escaped, with its `code spans`. */
const prose = (text: string) => raw(escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>'));
const entry = ([code, doc]: [string, ErrorDoc]) =>
  html`<section id="${code}"><h3><a href="#${code}"><code>${code}</code></a> · ${doc.status}</h3><p>${prose(doc.text)}</p></section>`;

/**
 * `/docs/errors`: every error code the service answers, each under its own anchor, where the
 * `doc_url` of every error body points (`PUBLIC_URL/docs/errors#<code>`); then the codes of the
 * spec this service never answers. No script, a strict CSP.
 */
function errorsPage() {
  const codes = Object.entries(ERROR_DOCS).sort(([, a], [, b]) => a.status - b.status);
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Errors · API reference</title><link rel="stylesheet" href="/demo/demo.css"></head><body><main>
<h1>Errors</h1>
<p>Every error answer has the flat body <code>{ error, code, request_id, doc_url }</code>, some with more fields. Branch on <code>code</code>, never on the message; quote <code>request_id</code> when asking for support. <a href="/docs/api">API reference</a> · <a href="/api/v1/openapi.json">openapi.json</a></p>
<h2>Codes</h2>
${codes.map(entry)}
<h2>Codes of the specification this service never answers</h2>
${Object.entries(NEVER_ANSWERED).map(entry)}
</main></body></html>`;
}

/** The API description: `/api/v1/openapi.json`, `/llms.txt`, and a reference page at `/docs/api`. */
export function apiDocsRoutes(deps: AppDeps) {
  return (
    new Hono<AppEnv>()
      .get('/api/v1/openapi.json', (c) =>
        c.json(openApiDocument(), 200, {
          'Cache-Control': 'public, max-age=300',
          'Access-Control-Allow-Origin': '*',
        }),
      )
      .get('/llms.txt', (c) =>
        c.text(llmsText(deps.config.publicUrl), 200, { 'Cache-Control': 'public, max-age=300' }),
      )
      // The interactive reference: Scalar's standalone bundle, served by us (no CDN, works offline),
      // reading our OpenAPI document. It needs inline styles (it injects them), nothing else.
      .get('/docs/api', (c) =>
        c.html(
          html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · svc-quote</title></head><body>
<noscript><p>This reference needs JavaScript. Read the <a href="/docs/api/plain">plain reference</a> or the <a href="/api/v1/openapi.json">OpenAPI document</a>.</p></noscript>
<script id="api-reference" data-url="/api/v1/openapi.json" data-configuration='{"withDefaultFonts":false,"hideClientButton":true,"showToolbar":"never","showDeveloperTools":"never","agent":{"disabled":true},"defaultOpenAllTags":true,"hideDarkModeToggle":false,"servers":[{"url":"${deps.config.publicUrl}/api/v1"}]}'></script>
<script src="/docs/api/scalar.js"></script>
</body></html>`,
          200,
          {
            'Content-Security-Policy':
              "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'",
          },
        ),
      )
      .get('/docs/api/scalar.js', (c) =>
        c.body(scalarBundle(), 200, {
          'Content-Type': 'text/javascript; charset=utf-8',
          'Cache-Control': 'public, max-age=86400',
        }),
      )
      .get('/docs/errors', (c) =>
        c.html(errorsPage(), 200, {
          'Cache-Control': 'public, max-age=300',
          'Content-Security-Policy':
            "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        }),
      )
      .get('/docs/api/plain', (c) => {
        const tags = [...new Set(OPERATIONS.map((op) => op.tag))];
        return c.html(
          html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title><link rel="stylesheet" href="/demo/demo.css"></head><body><main>
<h1>API reference</h1><p>Base URL <code>${deps.config.publicUrl}/api/v1</code> · <a href="/api/v1/openapi.json">openapi.json</a> · <a href="/llms.txt">llms.txt</a> · <a href="/docs/errors">errors</a></p>
${tags.map(
  (tag) =>
    html`<h2>${tag}</h2><table class="quotes"><tbody>${OPERATIONS.filter((op) => op.tag === tag).map(
      (op) =>
        html`<tr><td><code>${op.method.toUpperCase()} ${op.path}</code></td><td>${op.summary}</td><td>${op.scope}${op.publishable ? ' · publishable' : ''}${op.testOnly ? ' · test keys' : ''}</td></tr>`,
    )}</tbody></table>`,
)}
</main></body></html>`,
        );
      })
  );
}
