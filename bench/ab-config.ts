// A focused A/B of GET /elements/config next to the bare JSON route (bench/baseline.ts `/bare`),
// measured alternately: bare, [base checkout's config, this checkout's config as a browser asks
// for it, this checkout's config without Accept-Encoding, bare] per round, each ratio to the mean
// of the two bare loads around it, so the machine's drift within a minute does not decide it.
// Also measured, as the floor for that output: raw Node (no Hono, no fast path, nothing looked up)
// replaying the bytes and headers of one recorded answer to the browser's request, a fresh request
// id each time (`tsx bench/ab-config.ts --replay URL PORT PK` runs that server).
// Usage: tsx bench/ab-config.ts [OTHER_CHECKOUT] (e.g. `git archive` of main into a directory,
// node_modules linked). AB_DB=pglite|postgres (postgres needs TEST_PG_URL), AB_ROUNDS,
// AB_SECONDS, AB_WARMUP, AB_CONNECTIONS (comma-separated) tune it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, get } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort, ROOT } from '../test/support/processes.js';
import { cpuOf } from './process-cpu.js';
import { bodiesUnread, start } from './support.js';

/** What Chromium sends with a fetch: the widget's configuration request is one. */
const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';

if (process.argv[2] === '--replay') {
  const [url, port, pk] = process.argv.slice(3) as [string, string, string];
  const recorded = await new Promise<{ raw: string[]; body: Buffer }>((resolve, reject) =>
    get(
      url,
      {
        headers: {
          authorization: `Bearer ${pk}`,
          origin: 'http://127.0.0.1:8787',
          'accept-encoding': BROWSER_ACCEPT_ENCODING,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ raw: res.rawHeaders, body: Buffer.concat(chunks) }));
      },
    ).on('error', reject),
  );
  // Node adds Date, Connection and Keep-Alive itself.
  const headers: string[] = [];
  for (let i = 0; i < recorded.raw.length; i += 2)
    if (!/^(date|connection|keep-alive)$/i.test(recorded.raw[i]!))
      headers.push(recorded.raw[i]!, recorded.raw[i + 1]!);
  const idAt = headers.findIndex((h) => /^service-request-id$/i.test(h)) + 1;
  const pool = randomBytes(12 * 4096);
  let at = 0;
  createServer((_req, res) => {
    const filled = headers.slice();
    if (at >= pool.length) at = 0;
    filled[idAt] = `req_${pool.toString('hex', at, at + 12)}`;
    at += 12;
    res.writeHead(200, filled);
    res.end(recorded.body);
  }).listen(Number(port), '127.0.0.1', () =>
    process.stderr.write(`replay listening (${recorded.body.length} B, ${headers.length / 2} headers)\n`),
  );
  await new Promise(() => {});
}

const baseRoot = process.argv[2];
const kind = process.env.AB_DB ?? 'pglite';
const pgUrl = process.env.TEST_PG_URL ?? '';
const rounds = Number(process.env.AB_ROUNDS ?? 3);
const seconds = Number(process.env.AB_SECONDS ?? 3);
const warmup = Number(process.env.AB_WARMUP ?? 1);
const connectionCounts = (process.env.AB_CONNECTIONS ?? '10,50').split(',').map(Number);

async function database(name: string): Promise<Record<string, string>> {
  const env: Record<string, string> = { DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-ab-config-')) };
  if (kind !== 'postgres') return env;
  const admin = new pg.Client(pgUrl);
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  env.DATABASE_URL = pgUrl.replace(/\/postgres$/, `/${name}`);
  return env;
}

async function server(root: string, name: string) {
  const env: Record<string, string> = {
    ...(await database(name)),
    TRUST_PROXY: '1',
    SVC_KEY_RATE_LIMIT: '100000000',
  };
  const seeded = await start(root, ['packages/server/bin/svc-server.mjs', 'seed', '--json'], env, '');
  const seed = JSON.parse(seeded.out.slice(seeded.out.indexOf('{'))) as { keys: { pk_test: string } };
  const port = await freePort();
  const { child } = await start(
    root,
    ['packages/server/bin/svc-server.mjs', 'serve'],
    { ...env, PORT: String(port) },
    'listening on',
  );
  return {
    child,
    env,
    url: `http://127.0.0.1:${port}/api/v1/elements/config`,
    key: seed.keys.pk_test,
    headers: { authorization: `Bearer ${seed.keys.pk_test}`, origin: 'http://127.0.0.1:8787' },
  };
}

interface Load {
  rps: number;
  p99: number;
  non2xx: number;
  /** Server CPU per request, µs. */
  cpu_us: number;
  /** The load generator's CPU per request (this process), µs: it shares the two cores. */
  client_us: number;
}
async function load(
  url: string,
  connections: number,
  pid: number,
  headers: Record<string, string> = {},
): Promise<Load> {
  await autocannon({ url, connections, duration: warmup, headers, ...bodiesUnread({}) });
  const cpu = cpuOf(pid);
  const client = process.cpuUsage();
  const r = await autocannon({ url, connections, duration: seconds, headers, ...bodiesUnread({}) });
  const cpuUs = Math.round((cpuOf(pid) - cpu) / r.requests.total);
  const used = process.cpuUsage(client);
  const clientUs = Math.round((used.user + used.system) / r.requests.total);
  return {
    rps: Math.round(r.requests.average),
    p99: r.latency.p99,
    non2xx: r.non2xx,
    cpu_us: cpuUs,
    client_us: clientUs,
  };
}

const next = await server(ROOT, 'ab_config_next');
const base = baseRoot ? await server(baseRoot, 'ab_config_base') : undefined;
const bport = await freePort();
// On PostgreSQL the baseline reads its fair ceilings from a seeded database: the server's own.
const bare = await start(
  ROOT,
  ['--import', 'tsx', 'bench/baseline.ts', String(bport)],
  kind === 'postgres' ? { DATABASE_URL: next.env.DATABASE_URL! } : await database('unused'),
  'baseline listening',
);
const bareUrl = `http://127.0.0.1:${bport}/bare`;
const rport = await freePort();
const replay = await start(
  ROOT,
  ['--import', 'tsx', 'bench/ab-config.ts', '--replay', next.url, String(rport), next.key],
  {},
  'replay listening',
);
const replayUrl = `http://127.0.0.1:${rport}/`;
const browser = { 'accept-encoding': BROWSER_ACCEPT_ENCODING };
const pct = (x: Load, ceiling: number) => Math.round((100 * x.rps) / ceiling);
try {
  for (const connections of connectionCounts) {
    let before = await load(bareUrl, connections, bare.child.pid!);
    for (let round = 0; round < rounds; round++) {
      const baseBrowser =
        base && (await load(base.url, connections, base.child.pid!, { ...base.headers, ...browser }));
      const nextBrowser = await load(next.url, connections, next.child.pid!, { ...next.headers, ...browser });
      const nextPlain = await load(next.url, connections, next.child.pid!, next.headers);
      const floor = await load(replayUrl, connections, replay.child.pid!, { ...next.headers, ...browser });
      const after = await load(bareUrl, connections, bare.child.pid!);
      const ceiling = (before.rps + after.rps) / 2;
      console.log(
        JSON.stringify({
          kind,
          connections,
          round,
          load: loadavg()[0]!.toFixed(1),
          bare: [before.rps, after.rps],
          bare_cpu_us: [before.cpu_us, after.cpu_us],
          bare_client_us: [before.client_us, after.client_us],
          base_browser: baseBrowser && { ...baseBrowser, pct: pct(baseBrowser, ceiling) },
          next_browser: { ...nextBrowser, pct: pct(nextBrowser, ceiling) },
          next_plain: { ...nextPlain, pct: pct(nextPlain, ceiling) },
          replay_floor: { ...floor, pct: pct(floor, ceiling) },
        }),
      );
      before = after;
    }
  }
} finally {
  for (const c of [next.child, base?.child, bare.child, replay.child]) c?.kill('SIGTERM');
}
