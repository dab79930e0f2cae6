// A focused A/B: the widget's submission (new client, coupon, Idempotency-Key) on two server
// checkouts, alternately, each round next to the bare 4-statement transaction, on PostgreSQL.
// Usage: TEST_PG_URL=… tsx bench/ab-submission.ts OTHER_CHECKOUT (e.g. `git archive` of main,
// with demo/ and packages/server, node_modules linked). AB_ROUNDS, AB_SECONDS tune it.
// AB_BASE_PG_URL serves the other checkout (which may be this one: `.`) on another PostgreSQL, for
// example one configured otherwise; each side is then measured next to a ceiling on its own.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort, ROOT } from '../test/support/processes.js';
import { bodiesUnread, type Seed, start, widgetSubmissions } from './support.js';

const baseRoot = process.argv[2]!;
const nextUrl = process.env.TEST_PG_URL!;
const baseUrl = process.env.AB_BASE_PG_URL ?? nextUrl;
const rounds = Number(process.env.AB_ROUNDS ?? 3);
const seconds = Number(process.env.AB_SECONDS ?? 3);

async function server(root: string, url: string, db: string) {
  const admin = new pg.Client(url);
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${db}`);
  await admin.query(`CREATE DATABASE ${db}`);
  await admin.end();
  const env = {
    DATABASE_URL: url.replace(/\/postgres$/, `/${db}`),
    DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-ab-')),
    TRUST_PROXY: '1',
    SVC_KEY_RATE_LIMIT: '100000000',
  };
  const seeded = await start(root, ['packages/server/bin/svc-server.mjs', 'seed', '--json'], env, '');
  const seed = JSON.parse(seeded.out.slice(seeded.out.indexOf('{'))) as Seed;
  const port = await freePort();
  const { child } = await start(
    root,
    ['packages/server/bin/svc-server.mjs', 'serve'],
    { ...env, PORT: String(port) },
    'listening on',
  );
  return { child, seed, url: `http://127.0.0.1:${port}/api/v1/cotizaciones`, env };
}

async function load(target: string, connections: number, options: Partial<autocannon.Options> = {}) {
  await autocannon({ url: target, connections, duration: 2, ...bodiesUnread(options) });
  const r = await autocannon({ url: target, connections, duration: seconds, ...bodiesUnread(options) });
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
}

async function ceilingOn(databaseUrl: string) {
  const port = await freePort();
  const { child } = await start(
    ROOT,
    ['--import', 'tsx', 'bench/baseline.ts', String(port)],
    { DATABASE_URL: databaseUrl },
    'baseline listening',
  );
  return { child, url: `http://127.0.0.1:${port}/bare-tx` };
}

const base = await server(baseRoot, baseUrl, 'ab_base');
const next = await server(ROOT, nextUrl, 'ab_next');
const nextCeiling = await ceilingOn(next.env.DATABASE_URL);
// One ceiling when both sides share a database; one each when they do not.
const baseCeiling = baseUrl === nextUrl ? nextCeiling : await ceilingOn(base.env.DATABASE_URL);
const bareLoad = (target: string, connections: number) => load(target, connections, { method: 'POST' });
try {
  for (const connections of [10, 50]) {
    for (let round = 0; round < rounds; round++) {
      const ceiling = await bareLoad(nextCeiling.url, connections);
      const before_ceiling =
        baseCeiling === nextCeiling ? ceiling : await bareLoad(baseCeiling.url, connections);
      const before = await load(base.url, connections, widgetSubmissions(base.seed, connections, seconds));
      const after = await load(next.url, connections, widgetSubmissions(next.seed, connections, seconds));
      console.log(
        JSON.stringify({
          connections,
          round,
          ceiling,
          ...(before_ceiling === ceiling ? {} : { before_ceiling }),
          before,
          after,
          before_pct: Math.round((100 * before.rps) / before_ceiling.rps),
          after_pct: Math.round((100 * after.rps) / ceiling.rps),
        }),
      );
    }
  }
} finally {
  for (const c of new Set([base.child, next.child, nextCeiling.child, baseCeiling.child])) c.kill('SIGTERM');
}
