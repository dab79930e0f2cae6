import { Hono } from 'hono';
import { html } from 'hono/html';
import { llmsText, openApiDocument } from '../openapi/document.js';
import { OPERATIONS } from '../openapi/operations.js';
import type { AppDeps, AppEnv } from '../types.js';

/** The API description: `/api/v1/openapi.json`, `/llms.txt`, and a reference page at `/docs/api`. */
export function apiDocsRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get('/api/v1/openapi.json', (c) =>
      c.json(openApiDocument(), 200, {
        'Cache-Control': 'public, max-age=300',
        'Access-Control-Allow-Origin': '*',
      }),
    )
    .get('/llms.txt', (c) =>
      c.text(llmsText(deps.config.publicUrl), 200, { 'Cache-Control': 'public, max-age=300' }),
    )
    .get('/docs/api', (c) => {
      const tags = [...new Set(OPERATIONS.map((op) => op.tag))];
      return c.html(
        html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title><link rel="stylesheet" href="/demo/demo.css"></head><body><main>
<h1>API reference</h1><p>Base URL <code>${deps.config.publicUrl}/api/v1</code> · <a href="/api/v1/openapi.json">openapi.json</a> · <a href="/llms.txt">llms.txt</a></p>
${tags.map(
  (tag) =>
    html`<h2>${tag}</h2><table class="quotes"><tbody>${OPERATIONS.filter((op) => op.tag === tag).map(
      (op) =>
        html`<tr><td><code>${op.method.toUpperCase()} ${op.path}</code></td><td>${op.summary}</td><td>${op.scope}${op.publishable ? ' · publishable' : ''}${op.testOnly ? ' · test keys' : ''}</td></tr>`,
    )}</tbody></table>`,
)}
</main></body></html>`,
      );
    });
}
