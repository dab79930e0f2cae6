// A focused A/B: POST /elements/preview next to its fair ceiling (a bare route parsing the same
// body and running one read statement of the same products, bench/baseline.ts), alternately, at
// 10 and 50 connections, with the requests of bench/run.ts (each from another visitor address,
// TRUST_PROXY=1, the coupon BIENVENIDA10, the LAP-14 basket). With a second checkout as argument
// (e.g. `git archive` of main, with demo/ and packages/server, node_modules linked) it measures
// that one too, in the same rounds. Usage:
//   AB_DB=postgres TEST_PG_URL=… tsx bench/ab-preview.ts [OTHER_CHECKOUT]
//   AB_DB=pglite tsx bench/ab-preview.ts [OTHER_CHECKOUT]
// AB_ROUNDS (3) and AB_SECONDS (3) tune it; AB_CONNECTIONS (10,50) picks the loads.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort, ROOT } from '../test/support/processes.js';
import { bodiesUnread, randomIp, type Seed, start } from './support.js';

const baseRoot = process.argv[2];
const kind = process.env.AB_DB === 'pglite' ? 'pglite' : 'postgres';
const url = process.env.TEST_PG_URL ?? '';
const rounds = Number(process.env.AB_ROUNDS ?? 3);
const seconds = Number(process.env.AB_SECONDS ?? 3);
const connectionCounts = (process.env.AB_CONNECTIONS ?? '10,50').split(',').map(Number);
if (kind === 'postgres' && !url) throw new Error('AB_DB=postgres needs TEST_PG_URL');

async function server(root: string, db: string) {
  const env: Record<string, string> = {
    DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-ab-')),
    TRUST_PROXY: '1',
    SVC_KEY_RATE_LIMIT: '100000000',
  };
  if (kind === 'postgres') {
    const admin = new pg.Client(url);
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${db}`);
    await admin.query(`CREATE DATABASE ${db}`);
    await admin.end();
    env.DATABASE_URL = url.replace(/\/postgres$/, `/${db}`);
  }
  const seeded = await start(root, ['packages/server/bin/svc-server.mjs', 'seed', '--json'], env, '');
  const seed = JSON.parse(seeded.out.slice(seeded.out.indexOf('{'))) as Seed;
  const port = await freePort();
  const { child } = await start(
    root,
    ['packages/server/bin/svc-server.mjs', 'serve'],
    { ...env, PORT: String(port) },
    'listening on',
  );
  return { child, seed, url: `http://127.0.0.1:${port}/api/v1/elements/preview`, env };
}

/** bench/run.ts's preview requests: built before the clock starts, each from another address. */
function previews(seed: Seed): Partial<autocannon.Options> {
  const laptop = seed.products.find((p) => p.sku === 'LAP-14')!;
  const body = JSON.stringify({
    items: [{ descripcion: 'Laptop', cantidad: 2, precio_unitario: 24500, producto_id: laptop.id }],
    cupon: 'BIENVENIDA10',
  });
  return {
    method: 'POST',
    setupClient: (client) =>
      client.setRequests(
        Array.from({ length: 1000 }, () => ({
          method: 'POST' as const,
          body,
          headers: {
            authorization: `Bearer ${seed.keys.pk_test}`,
            origin: 'http://127.0.0.1:8787',
            'content-type': 'application/json',
            'x-forwarded-for': randomIp(),
          },
        })),
      ),
  };
}

async function load(target: string, connections: number, options: Partial<autocannon.Options>) {
  await autocannon({ url: target, connections, duration: 2, ...bodiesUnread(options) });
  const r = await autocannon({ url: target, connections, duration: seconds, ...bodiesUnread(options) });
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
}

const next = await server(ROOT, 'ab_preview_next');
const base = baseRoot ? await server(baseRoot, 'ab_preview_base') : undefined;
const bport = await freePort();
const bare = await start(
  ROOT,
  ['--import', 'tsx', 'bench/baseline.ts', String(bport)],
  kind === 'postgres' ? { DATABASE_URL: next.env.DATABASE_URL! } : { DATA_DIR: next.env.DATA_DIR! },
  'baseline listening',
);
const ceilingUrl = `http://127.0.0.1:${bport}/bare-products`;
try {
  for (const connections of connectionCounts) {
    for (let round = 0; round < rounds; round++) {
      const ceiling = await load(ceilingUrl, connections, previews(next.seed));
      const before = base ? await load(base.url, connections, previews(base.seed)) : undefined;
      const after = await load(next.url, connections, previews(next.seed));
      console.log(
        JSON.stringify({
          kind,
          connections,
          round,
          ceiling,
          ...(before ? { before, before_pct: Math.round((100 * before.rps) / ceiling.rps) } : {}),
          after,
          after_pct: Math.round((100 * after.rps) / ceiling.rps),
        }),
      );
    }
  }
} finally {
  for (const c of [base?.child, next.child, bare.child]) c?.kill('SIGTERM');
}
