import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { type Context, Hono } from 'hono';
import { acceptedCodings, type ContentCoding } from '../http/accept-encoding.js';
import { etagMatches } from '../http/etag.js';
import type { AppDeps, AppEnv } from '../types.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
const WIDGET = join(ROOT, 'packages/elements/dist/svc-elements.js');

/** The built script-tag bundle, its SRI hash and a short version for immutable URLs. */
interface WidgetBundle {
  body: Buffer;
  sri: string;
  version: string;
  etag: string;
  /** The bundle compressed, each coding once, on the first request that accepts it. */
  encoded: Partial<Record<ContentCoding, Buffer>>;
}

/** The bundle in `coding`, compressed at the highest level once: it is the same bytes for days. */
function encodedWidget(w: WidgetBundle, coding: ContentCoding): Buffer {
  w.encoded[coding] ??=
    coding === 'br'
      ? brotliCompressSync(w.body, {
          params: {
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
            [constants.BROTLI_PARAM_SIZE_HINT]: w.body.length,
          },
        })
      : gzipSync(w.body, { level: constants.Z_BEST_COMPRESSION });
  return w.encoded[coding];
}

function loadWidget(): WidgetBundle | undefined {
  if (!existsSync(WIDGET)) return undefined;
  const body = readFileSync(WIDGET);
  const digest = createHash('sha384').update(body).digest();
  return {
    body,
    sri: `sha384-${digest.toString('base64')}`,
    version: digest.toString('hex').slice(0, 12),
    etag: `"${digest.toString('hex').slice(0, 32)}"`,
    encoded: {},
  };
}

/**
 * The widget script and the demo pages.
 * - `/elements/svc-elements.js`: the script tag's URL; cached a day, revalidated by ETag.
 * - `/elements/<version>/svc-elements.js`: the same bytes at a URL that never changes, cached a
 *   year as immutable; use it with the SRI hash (`/elements/svc-elements.json` tells both).
 * Both are readable cross-origin, as `<script integrity crossorigin>` requires.
 */
export function staticRoutes(_deps: AppDeps, options: { demoKeysFile?: string | undefined } = {}) {
  let widget = loadWidget();
  const bundle = () => {
    // Built after the server started (npm run build in another terminal): pick it up.
    widget ??= loadWidget();
    return widget;
  };
  const serveWidget = (maxAge: string) => (c: Context<AppEnv>) => {
    const w = bundle();
    if (!w) return c.text('The widget is not built yet: run npm run build.', 503);
    // Brotli or gzip when the browser takes them (a third of the bytes), else as built; each
    // representation has its own entity tag, as a cache keeps them apart.
    const coding = acceptedCodings(c.req.header('accept-encoding'))[0] ?? null;
    const etag = coding ? `${w.etag.slice(0, -1)}-${coding}"` : w.etag;
    const headers: Record<string, string> = {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': maxAge,
      ETag: etag,
      Vary: 'Accept-Encoding',
      'Access-Control-Allow-Origin': '*',
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'X-Content-Type-Options': 'nosniff',
    };
    if (etagMatches(c.req.header('if-none-match'), etag)) return c.body(null, 304, headers);
    if (coding) headers['Content-Encoding'] = coding;
    const body = coding ? encodedWidget(w, coding) : w.body;
    return c.body(new Uint8Array(body), 200, headers);
  };
  const demoKeys = () => {
    if (!options.demoKeysFile || !existsSync(options.demoKeysFile)) return undefined;
    return JSON.parse(readFileSync(options.demoKeysFile, 'utf8')) as { keys: { pk_test: string } };
  };
  const page = (file: string) => (c: Context<AppEnv>) => {
    const path = join(ROOT, 'demo', file);
    if (!existsSync(path)) return c.notFound();
    const keys = demoKeys();
    const html = readFileSync(path, 'utf8')
      .replaceAll('{{PUBLISHABLE_KEY}}', keys?.keys.pk_test ?? 'pk_test_run_npm_start_to_seed')
      .replaceAll('{{SRI}}', bundle()?.sri ?? '');
    // The demo runs under a strict Content-Security-Policy, as a careful merchant's page would.
    return c.html(html, 200, {
      'Cache-Control': 'no-store',
      'Content-Security-Policy':
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'",
    });
  };
  // Browsers ask every page's origin for it; the pages are the merchant's, not ours to brand: no
  // icon, and no failed request in each page's console.
  const noIcon = (c: Context<AppEnv>) => c.body(null, 204, { 'Cache-Control': 'public, max-age=86400' });
  return new Hono<AppEnv>()
    .get('/elements/svc-elements.js', serveWidget('public, max-age=86400, stale-while-revalidate=604800'))
    .get('/elements/:version/svc-elements.js', (c) => {
      if (bundle()?.version !== c.req.param('version')) return c.notFound();
      return serveWidget('public, max-age=31536000, immutable')(c);
    })
    .get('/elements/svc-elements.json', (c) => {
      const w = bundle();
      if (!w) return c.json({ error: 'The widget is not built yet.', code: 'not_found' }, 404);
      return c.json({ url: `/elements/${w.version}/svc-elements.js`, integrity: w.sri, version: w.version });
    })
    .get('/favicon.ico', noIcon)
    .get('/', page('index.html'))
    .get('/demo/spa', (c) => c.redirect('/demo/spa/'))
    .get('/demo/spa/', (c) => {
      const path = join(ROOT, 'demo/dist/spa/index.html');
      if (!existsSync(path)) return c.text('The demo SPA is not built yet: run npm run build.', 503);
      return page('dist/spa/index.html')(c);
    })
    .get('/demo/spa/assets/:file{[A-Za-z0-9_.-]+\\.js}', (c) => {
      const path = join(ROOT, 'demo/dist/spa/assets', c.req.param('file'));
      if (!existsSync(path)) return c.notFound();
      return c.body(readFileSync(path, 'utf8'), 200, {
        'Content-Type': 'text/javascript; charset=utf-8',
        'Cache-Control': 'public, max-age=31536000, immutable',
      });
    })
    .get('/demo/:file{[a-z-]+\\.(?:html|css|js)}', (c) => {
      const file = c.req.param('file');
      if (file.endsWith('.html')) return page(file)(c);
      const path = join(ROOT, 'demo', file);
      if (!existsSync(path)) return c.notFound();
      const type = file.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';
      return c.body(readFileSync(path, 'utf8'), 200, { 'Content-Type': type });
    });
}
