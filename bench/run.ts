// `npm run bench`: the widget's size and first render, and the service's throughput and latency
// next to bare Hono ceilings measured in the same run, on PGlite and on PostgreSQL. Prints one
// table and writes bench/results.json.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { launchChromium } from '../test/support/browser.js';
import { cli, freePort, ROOT } from '../test/support/processes.js';
import { BUDGETS, enforceBudgets } from './budgets.js';
import { COLLECTIONS_P99_MS, invoicePairs, OPEN_INVOICES, seedReceivables } from './invoices.js';
import { assertNoneRepeated, bodiesUnread, distinctPerConnection, randomIp } from './support.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 4);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const results: Record<string, unknown> = {
  date: new Date().toISOString(),
  duration_s: DURATION,
  warmup_s: WARMUP,
};
const rows: string[][] = [];

function start(command: string[], env: Record<string, string>, ready: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, command, {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stderr!.on('data', (d) => {
      output += d;
      if (output.includes(ready)) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`${command.join(' ')} exited ${code}: ${output}`)));
  });
}
const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}
async function load(
  url: string,
  connections: number,
  options: Partial<autocannon.Options> = {},
  /** How many distinct requests the load's connections were given, when none may repeat. */
  distinct?: number,
): Promise<Load> {
  // Untimed seconds first, so that every route, ceilings included, is measured warm (JIT, caches,
  // connection pool). One second is enough for a bare route; a creation runs through enough
  // code (Hono, validation, pricing, the driver) that V8 was still compiling it seconds later.
  await autocannon({ url, connections, duration: WARMUP, ...bodiesUnread(options) });
  const result = await autocannon({ url, connections, duration: DURATION, ...bodiesUnread(options) });
  assertNoneRepeated(url, result.requests.total, distinct);
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  };
}

/**
 * Two loads measured in turn, twice each (A B A B), each reported as the mean of its two runs.
 * This machine's speed drifts by tens of percent within a minute; a ceiling taken well before its
 * route would carry that drift into their ratio.
 */
async function alternately(a: () => Promise<Load>, b: () => Promise<Load>): Promise<[Load, Load]> {
  const [a1, b1, a2, b2] = [await a(), await b(), await a(), await b()];
  const mean = (x: Load, y: Load): Load => ({
    rps: Math.round((x.rps + y.rps) / 2),
    p50: (x.p50 + y.p50) / 2,
    p99: Math.max(x.p99, y.p99),
    non2xx: x.non2xx + y.non2xx,
  });
  return [mean(a1, a2), mean(b1, b2)];
}

/** What Chromium sends as Accept-Encoding with every fetch. */
const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';

/** Requests built for each connection of a load, each from its own client address. */
const REQUESTS_PER_CONNECTION = 1000;
/** The widget's submissions built for each connection: never one twice, warm-up or load. */
const submissionsPerConnection = (connections: number) =>
  distinctPerConnection(connections, Math.max(DURATION, WARMUP));

async function widget() {
  const bundle = readFileSync(join(ROOT, 'packages/elements/dist/svc-elements.js'));
  const size = {
    raw: bundle.length,
    gzip: gzipSync(bundle, { level: 9 }).length,
    brotli: brotliCompressSync(bundle).length,
  };
  results.widget_bundle = size;
  rows.push([
    'widget bundle (svc-elements.js)',
    `${size.raw} B raw, ${size.gzip} B gzip, ${size.brotli} B brotli`,
    `budget ${BUDGETS.bundleBrotliBytes} B brotli (${BUDGETS.bundleBrotliBytes / 1024} KB)`,
    '',
  ]);
}

async function backend(kind: 'pglite' | 'postgres') {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const port = await freePort();
  const basePort = await freePort();
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: String(port),
    TRUST_PROXY: '1',
    SVC_KEY_RATE_LIMIT: '100000000',
  };
  if (kind === 'postgres')
    env.DATABASE_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? '';
  if (kind === 'postgres' && !env.DATABASE_URL)
    throw new Error('PostgreSQL benchmark needs BENCH_DATABASE_URL');
  const seed = JSON.parse((await cli(['seed', '--json'], env)).stdout) as {
    keys: { pk_test: string; sk_test_write: string };
    products: { id: string; sku: string }[];
  };
  // The book GET /cobranza reads, written before the server starts (PGlite has one process).
  await seedReceivables(kind === 'postgres' ? { databaseUrl: env.DATABASE_URL } : { dataDir });
  const server = await start(['packages/server/bin/svc-server.mjs', 'serve'], env, 'listening on');
  const baseline = await start(
    ['--import', 'tsx', 'bench/baseline.ts', String(basePort)],
    env,
    'baseline listening',
  );
  const api = `http://127.0.0.1:${port}/api/v1`;
  const bare = `http://127.0.0.1:${basePort}`;
  const widgetHeaders = { authorization: `Bearer ${seed.keys.pk_test}`, origin: 'http://127.0.0.1:8787' };
  // A browser's fetch (the widget's configuration request is one) always sends Accept-Encoding.
  const configHeaders = { ...widgetHeaders, 'accept-encoding': BROWSER_ACCEPT_ENCODING };
  const laptop = seed.products.find((p) => p.sku === 'LAP-14')!;
  const basket = {
    items: [{ descripcion: 'Laptop', cantidad: 2, precio_unitario: 24500, producto_id: laptop.id }],
  };
  // Each request comes from another client address, as page views do: the per-IP allowances of
  // publishable keys are per visitor, not for the whole internet. Every connection gets its own
  // requests, built before the clock starts: a `setupRequest` that rebuilt each one cost the
  // load generator, on the same two cores as the server, 60 µs more per request than the bare
  // route's and took that from the server. A connection that has sent them all starts over.
  const perClient = (
    body: string | (() => string),
    extraHeaders: () => Record<string, string> = () => ({}),
    perConnection = REQUESTS_PER_CONNECTION,
  ): Partial<autocannon.Options> => ({
    method: 'POST',
    setupClient: (client) =>
      client.setRequests(
        Array.from({ length: perConnection }, () => ({
          method: 'POST' as const,
          body: typeof body === 'string' ? body : body(),
          headers: {
            ...widgetHeaders,
            'content-type': 'application/json',
            'x-forwarded-for': randomIp(),
            ...extraHeaders(),
          },
        })),
      ),
  });
  // What the widget sends when a visitor submits: a client of its own, and an Idempotency-Key.
  const widgetSubmission = () => {
    const visitor = randomUUID();
    return JSON.stringify({
      ...basket,
      cupon: 'BIENVENIDA10',
      cliente: { empresa: `Visitante ${visitor}`, email: `${visitor}@bench.example` },
    });
  };
  const out: Record<string, unknown> = {};
  try {
    for (const connections of [10, 50]) {
      // The configuration as the widget asks for it, alternately with its ceiling like the routes below.
      const [ceilingRead, config] = await alternately(
        () => load(`${bare}/bare`, connections),
        () => load(`${api}/elements/config`, connections, { headers: configHeaders }),
      );
      // The bytes it sends (compressed when the request accepts it), as the bare route of its size sends them.
      const configBytes = Number(
        (await fetch(`${api}/elements/config`, { headers: configHeaders })).headers.get('content-length'),
      );
      const ceilingSized = await load(`${bare}/bare-sized/${configBytes}`, connections);
      const previewBody = JSON.stringify({ ...basket, cupon: 'BIENVENIDA10' });
      // Each read route next to its fair ceiling, its one read statement in a bare route.
      const [ceilingProducts, preview] = await alternately(
        () => load(`${bare}/bare-products`, connections, perClient(previewBody)),
        () => load(`${api}/elements/preview`, connections, perClient(previewBody)),
      );
      const [ceilingWrite, create] = await alternately(
        () => load(`${bare}/bare-tx`, connections, { method: 'POST' }),
        () =>
          load(
            `${api}/cotizaciones`,
            connections,
            perClient(
              JSON.stringify({
                ...basket,
                cupon: 'BIENVENIDA10',
                cliente: { empresa: 'Bench SA', email: 'bench@x.example' },
              }),
            ),
          ),
      );
      // The widget's own submission (design.md section 16) alternates with its ceiling too.
      const [ceilingSubmission, submission] = await alternately(
        () => load(`${bare}/bare-tx`, connections, { method: 'POST' }),
        () =>
          load(
            `${api}/cotizaciones`,
            connections,
            perClient(
              widgetSubmission,
              () => ({ 'idempotency-key': randomUUID() }),
              submissionsPerConnection(connections),
            ),
            connections * submissionsPerConnection(connections),
          ),
      );
      // Not a §16 ceiling, a measure of what bounds the submission: the same bare transaction with
      // every request updating one shared row, whose lock lasts from the UPDATE to COMMIT as the
      // folio counter's does (docs/performance.md, what bounds it). One load, next to the pair.
      const ceilingSharedRow = await load(`${bare}/bare-tx-shared`, connections, { method: 'POST' });
      const [ceilingPage, list] = await alternately(
        () => load(`${bare}/bare-quotes-page?limit=20`, connections),
        () =>
          load(`${api}/cotizaciones?limit=20`, connections, {
            headers: { authorization: `Bearer ${seed.keys.sk_test_write}` },
          }),
      );
      // An invoice created and finalized (sandbox stamping) is two requests: halve the rate. It
      // alternates with its ceiling, as creation does.
      const [ceilingInvoiceTx, invoicePairLoad] = await alternately(
        () => load(`${bare}/bare-tx`, connections, { method: 'POST' }),
        () =>
          load(`http://127.0.0.1:${port}`, connections, invoicePairs(seed.keys.sk_test_write, randomUUID)),
      );
      const invoices = { ...invoicePairLoad, rps: Math.round(invoicePairLoad.rps / 2) };
      const collections = await load(`${api}/cobranza?limit=20`, connections, {
        headers: { authorization: `Bearer ${seed.keys.sk_test_write}` },
      });
      const ceilingNames = new Map<Load, string>([
        [ceilingRead, 'bare JSON'],
        [ceilingWrite, 'bare 4-statement tx'],
        [ceilingSubmission, 'bare 4-statement tx'],
        [ceilingInvoiceTx, 'bare 4-statement tx'],
        [ceilingProducts, 'bare read of the same products'],
        [ceilingPage, 'bare read of the same page'],
      ]);
      const entries = {
        'GET /elements/config': [config, ceilingRead],
        'POST /elements/preview': [preview, ceilingProducts],
        'POST /cotizaciones (pk, coupon)': [create, ceilingWrite],
        'POST /cotizaciones (pk, coupon, new client each, Idempotency-Key: the widget)': [
          submission,
          ceilingSubmission,
        ],
        'GET /cotizaciones (page of 20)': [list, ceilingPage],
        'POST /facturas + finalize (an invoice, sandbox stamping)': [invoices, ceilingInvoiceTx],
      } as const;
      out[`c${connections}`] = {
        ceiling_read: ceilingRead,
        ceiling_write: ceilingWrite,
        ceiling_submission: ceilingSubmission,
        ceiling_products: ceilingProducts,
        ceiling_page: ceilingPage,
        ceiling_same_size: { bytes: configBytes, ...ceilingSized },
        ceiling_shared_row: ceilingSharedRow,
      };
      for (const [name, [measured, ceiling]] of Object.entries(entries)) {
        (out[`c${connections}`] as Record<string, unknown>)[name] = measured;
        const ratio = measured.rps / ceiling.rps;
        rows.push([
          `${kind}, ${connections} conn: ${name}`,
          `${measured.rps} req/s, p50 ${measured.p50} ms, p99 ${measured.p99} ms${measured.non2xx ? `, ${measured.non2xx} non-2xx` : ''}`,
          `ceiling ${ceiling.rps} req/s (${ceilingNames.get(ceiling)})`,
          `${(ratio * 100).toFixed(0)} %`,
        ]);
      }
      (out[`c${connections}`] as Record<string, unknown>)['GET /cobranza'] = collections;
      rows.push([
        `${kind}, ${connections} conn: GET /cobranza (${OPEN_INVOICES.toLocaleString('en')} open invoices)`,
        `${collections.rps} req/s, p50 ${collections.p50} ms, p99 ${collections.p99} ms${collections.non2xx ? `, ${collections.non2xx} non-2xx` : ''}`,
        `target p99 ≤ ${COLLECTIONS_P99_MS} ms`,
        collections.p99 <= COLLECTIONS_P99_MS ? 'met' : 'MISSED',
      ]);
      rows.push([
        `${kind}, ${connections} conn: the widget's submission next to the bare tx with one shared row`,
        `${submission.rps} req/s`,
        `${ceilingSharedRow.rps} req/s (bare 4-statement tx, every request updating one row)`,
        `${((submission.rps / ceilingSharedRow.rps) * 100).toFixed(0)} %`,
      ]);
      rows.push([
        `${kind}, ${connections} conn: GET /elements/config next to a bare route of the same size`,
        `${config.rps} req/s`,
        `${ceilingSized.rps} req/s (bare JSON of ${configBytes} B)`,
        `${((config.rps / ceilingSized.rps) * 100).toFixed(0)} %`,
      ]);
    }
    // Time to the first drafted item, through HTTP, median of 20.
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const res = await fetch(`${api}/elements/ai-draft`, {
        method: 'POST',
        headers: { ...widgetHeaders, 'content-type': 'application/json', 'x-forwarded-for': randomIp() },
        body: JSON.stringify({ prompt: 'Necesito 3 laptops y 10 horas de instalación' }),
      });
      const reader = res.body!.getReader();
      let text = '';
      while (!text.includes('event: item')) text += new TextDecoder().decode((await reader.read()).value);
      times.push(performance.now() - t0);
      await reader.cancel();
    }
    times.sort((a, b) => a - b);
    out.first_drafted_item_ms = { p50: times[10], p95: times[18] };
    rows.push([
      `${kind}: first drafted item (HTTP, SSE)`,
      `p50 ${times[10]!.toFixed(1)} ms, p95 ${times[18]!.toFixed(1)} ms`,
      `budget ${BUDGETS.firstDraftedItemMs} ms (p50)`,
      '',
    ]);
    if (kind === 'pglite')
      results.first_render = await firstRender(`http://127.0.0.1:${port}`, seed.keys.pk_test);
  } finally {
    await stop(server);
    await stop(baseline);
    rmSync(dataDir, { recursive: true, force: true });
  }
  results[kind] = out;
}

/** Milliseconds from the configuration's arrival to the rendered form, median of 20 loads. */
async function firstRender(origin: string, key: string) {
  const browser = await launchChromium();
  const times: number[] = [];
  try {
    for (let i = 0; i < 20; i++) {
      const page = await browser.newPage();
      await page.goto(`${origin}/q/assets/quote.css`);
      const ms = await page.evaluate(async (k) => {
        const script = document.createElement('script');
        script.src = '/elements/svc-elements.js';
        document.head.append(script);
        await new Promise((r) => script.addEventListener('load', r));
        const form = document.createElement('svc-quote-form');
        form.setAttribute('publishable-key', k);
        const ready = new Promise((r) => form.addEventListener('svc-ready', r));
        document.body.append(form);
        await ready;
        const rendered = performance.now();
        const config = performance
          .getEntriesByType('resource')
          .find((e) => e.name.includes('/elements/config')) as PerformanceResourceTiming;
        return rendered - config.responseEnd;
      }, key);
      times.push(ms);
      await page.close();
    }
  } finally {
    await browser.close();
  }
  times.sort((a, b) => a - b);
  const median = times[10]!;
  rows.push([
    'widget first render after config (Chromium, median of 20)',
    `${median.toFixed(1)} ms`,
    'budget 50 ms',
    '',
  ]);
  return { median_ms: median };
}

await widget();
await backend('pglite');
if (process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL) await backend('postgres');
else
  rows.push([
    'postgres',
    'skipped: set BENCH_DATABASE_URL (npm run bench starts one when PostgreSQL is installed)',
    '',
    '',
  ]);
writeFileSync(join(ROOT, 'bench/results.json'), `${JSON.stringify(results, null, 2)}\n`);
const table = [
  '| measure | result | next to | ratio |',
  '|---|---|---|---|',
  ...rows.map((r) => `| ${r.join(' | ')} |`),
].join('\n');
console.log(table);
writeFileSync(join(ROOT, 'bench/results.md'), `${table}\n`);
enforceBudgets(results);
