// A focused A/B: the widget's submission (new client, coupon, Idempotency-Key) on two server
// checkouts, alternately, each round next to the bare 4-statement transaction, on PostgreSQL.
// Usage: TEST_PG_URL=… tsx bench/ab-submission.ts OTHER_CHECKOUT (e.g. `git archive` of main,
// with demo/ and packages/server, node_modules linked). AB_ROUNDS, AB_SECONDS tune it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort, ROOT } from '../test/support/processes.js';
import { type Seed, start, widgetSubmissions } from './support.js';

const baseRoot = process.argv[2]!;
const url = process.env.TEST_PG_URL!;
const rounds = Number(process.env.AB_ROUNDS ?? 3);
const seconds = Number(process.env.AB_SECONDS ?? 3);

async function server(root: string, db: string) {
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
  await autocannon({ url: target, connections, duration: 2, ...options });
  const r = await autocannon({ url: target, connections, duration: seconds, ...options });
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
}

const base = await server(baseRoot, 'ab_base');
const next = await server(ROOT, 'ab_next');
const bport = await freePort();
const bare = await start(
  ROOT,
  ['--import', 'tsx', 'bench/baseline.ts', String(bport)],
  { DATABASE_URL: next.env.DATABASE_URL },
  'baseline listening',
);
try {
  for (const connections of [10, 50]) {
    for (let round = 0; round < rounds; round++) {
      const ceiling = await load(`http://127.0.0.1:${bport}/bare-tx`, connections, { method: 'POST' });
      const before = await load(base.url, connections, widgetSubmissions(base.seed));
      const after = await load(next.url, connections, widgetSubmissions(next.seed));
      console.log(
        JSON.stringify({
          connections,
          round,
          ceiling,
          before,
          after,
          before_pct: Math.round((100 * before.rps) / ceiling.rps),
          after_pct: Math.round((100 * after.rps) / ceiling.rps),
        }),
      );
    }
  }
} finally {
  for (const c of [base.child, next.child, bare.child]) c.kill('SIGTERM');
}
