// Where the widget's submission spends its time: one server seeded like the bench, the bench's
// widget submissions (new client, coupon, Idempotency-Key, another client address each), and the
// CPU each process spent per submission (from /proc), with the machine's idle share.
// Usage: TEST_PG_URL=… tsx bench/profile-submission.ts
//   PROFILE_DB=pglite      PGlite instead of PostgreSQL (TEST_PG_URL is still used for the stats)
//   PROFILE_CONNECTIONS=10 PROFILE_SECONDS=5
//   PROFILE_ROUNDS=1       loads one after another on the same server, each reported
//   PROFILE_STATEMENTS=1   PostgreSQL: the top statements of pg_stat_statements during the load
//                          (the cluster must preload it: shared_preload_libraries)
//   PROFILE_EXPLAIN=1      PostgreSQL: auto_explain (analyze, triggers) of 0.2 % of statements to
//                          the cluster's log
//   PROFILE_LOG=1          PostgreSQL: every statement's bind and execute times to the cluster's log
//                          (log_min_duration_statement = 0)
//   PROFILE_SQL="…"        SQL run on the seeded database before the server starts, for what-ifs
//                          (e.g. dropping a constraint), on either database
//   PROFILE_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof"   flags for the server's node
//   PROFILE_SERVER_OUT=/tmp/server.out   the server's output to a file (e.g. with --trace-gc)
//   PROFILE_TARGET=bare    the bench's ceiling instead (bench/baseline.ts, POST /bare-tx, on the
//                          same seeded database), measured the same way: the CPU budget beside it
//   PROFILE_TARGET=bare-shared  the same with one shared row updated by every transaction, its
//                          lock held to COMMIT as the folio counter's is: a ceiling with a serial point
//   PROFILE_TARGET=invoices  the bench's invoice pairs instead (POST /facturas + finalize, sandbox
//                          stamping; "submission" is then one request, half an invoice)
import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort, ROOT } from '../test/support/processes.js';
import { invoicePairs } from './invoices.js';
import { cpuOf, postgresCpu } from './process-cpu.js';
import { bodiesUnread, type Seed, start, widgetSubmissions } from './support.js';

const adminUrl = process.env.TEST_PG_URL!;
const onPglite = process.env.PROFILE_DB === 'pglite';
const connections = Number(process.env.PROFILE_CONNECTIONS ?? 10);
const seconds = Number(process.env.PROFILE_SECONDS ?? 5);
const rounds = Number(process.env.PROFILE_ROUNDS ?? 1);
const nodeFlags = (process.env.PROFILE_NODE_FLAGS ?? '').split(' ').filter(Boolean);

/** The machine's idle and total jiffies (first line of /proc/stat). */
function machine() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  return { idle: fields[3]! + fields[4]!, all: fields.reduce((a, b) => a + b, 0) };
}

const admin = new pg.Client(adminUrl);
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS profile_submission');
await admin.query('CREATE DATABASE profile_submission');
const databaseUrl = adminUrl.replace(/\/postgres$/, '/profile_submission');
const env: Record<string, string> = {
  ...(onPglite ? {} : { DATABASE_URL: databaseUrl }),
  DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-profile-')),
  TRUST_PROXY: '1',
  SVC_KEY_RATE_LIMIT: '100000000',
};
const seeded = await start(ROOT, ['packages/server/bin/svc-server.mjs', 'seed', '--json'], env, '');
const seed = JSON.parse(seeded.out.slice(seeded.out.indexOf('{'))) as Seed;
if (process.env.PROFILE_EXPLAIN && !onPglite) {
  for (const setting of [
    "session_preload_libraries = 'auto_explain'",
    'auto_explain.log_min_duration = 0',
    'auto_explain.log_analyze = on',
    'auto_explain.log_triggers = on',
    'auto_explain.sample_rate = 0.002',
  ]) {
    await admin.query(`ALTER DATABASE profile_submission SET ${setting}`);
  }
}
if (process.env.PROFILE_SQL && onPglite) {
  const whatIf = await PGlite.create(join(env.DATA_DIR!, 'pglite'));
  await whatIf.exec(process.env.PROFILE_SQL);
  await whatIf.close();
} else if (process.env.PROFILE_SQL) {
  const whatIf = new pg.Client(databaseUrl);
  await whatIf.connect();
  await whatIf.query(process.env.PROFILE_SQL);
  await whatIf.end();
}
if (process.env.PROFILE_LOG && !onPglite) {
  await admin.query('ALTER DATABASE profile_submission SET log_min_duration_statement = 0');
}
const port = await freePort();
/** The ceilings of bench/baseline.ts this tool can load instead: their route and their name. */
const CEILINGS: Record<string, { route: string; name: string }> = {
  bare: { route: 'bare-tx', name: 'bare 4-statement tx' },
  'bare-shared': { route: 'bare-tx-shared', name: 'bare 4-statement tx, one shared row' },
};
const ceiling = CEILINGS[process.env.PROFILE_TARGET ?? ''];
const bare = ceiling !== undefined;
const { child: server } = bare
  ? await start(
      ROOT,
      [...nodeFlags, '--import', 'tsx', 'bench/baseline.ts', String(port)],
      env,
      'baseline listening',
    )
  : await start(
      ROOT,
      [...nodeFlags, 'packages/server/bin/svc-server.mjs', 'serve'],
      { ...env, PORT: String(port) },
      'listening on',
    );
if (process.env.PROFILE_SERVER_OUT) {
  const { createWriteStream } = await import('node:fs');
  const out = createWriteStream(process.env.PROFILE_SERVER_OUT);
  server.stdout!.pipe(out);
  server.stderr!.pipe(out);
}
const invoices = process.env.PROFILE_TARGET === 'invoices';
const target = bare
  ? `http://127.0.0.1:${port}/${ceiling.route}`
  : invoices
    ? `http://127.0.0.1:${port}`
    : `http://127.0.0.1:${port}/api/v1/cotizaciones`;
const submissions = (): Partial<autocannon.Options> =>
  bare
    ? { method: 'POST' }
    : invoices
      ? invoicePairs(seed.keys.sk_test_write, randomUUID)
      : widgetSubmissions(seed, connections, seconds);

const stats = new pg.Client(onPglite ? adminUrl : databaseUrl);
await stats.connect();
try {
  await autocannon({ url: target, connections, duration: 2, ...bodiesUnread(submissions()) }); // warm-up
  if (process.env.PROFILE_STATEMENTS && !onPglite) {
    await stats.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await stats.query('SELECT pg_stat_statements_reset()');
  }
  // Several loads on the same server, one after another: does a submission cost more as the
  // tables grow?
  for (let round = 0; round < rounds; round++) {
    const before = {
      server: cpuOf(server.pid!),
      postgres: postgresCpu(),
      self: process.cpuUsage(),
      machine: machine(),
    };
    const running = autocannon({
      url: target,
      connections,
      duration: seconds,
      ...bodiesUnread(submissions()),
    });
    // Its own CPU from the start of the load, not from building each connection's requests.
    (running as unknown as EventEmitter).once('start', () => {
      before.self = process.cpuUsage();
    });
    const result = await running;
    const self = process.cpuUsage(before.self);
    const after = { server: cpuOf(server.pid!), postgres: postgresCpu(), machine: machine() };
    const n = result.requests.total;
    console.log(
      JSON.stringify({
        database: onPglite ? 'pglite' : 'postgres',
        target: ceiling?.name ?? (invoices ? 'invoice pairs (requests)' : 'widget submission'),
        connections,
        ...(rounds > 1 ? { round: round + 1 } : {}),
        rps: Math.round(result.requests.average),
        p50: result.latency.p50,
        p99: result.latency.p99,
        non2xx: result.non2xx,
        server_us_per_submission: Math.round((after.server - before.server) / n),
        postgres_us_per_submission: Math.round((after.postgres - before.postgres) / n),
        load_generator_us_per_submission: Math.round((self.user + self.system) / n),
        machine_idle_pct: Math.round(
          (100 * (after.machine.idle - before.machine.idle)) / (after.machine.all - before.machine.all),
        ),
      }),
    );
  }
  if (process.env.PROFILE_STATEMENTS && !onPglite) {
    const { rows } = await stats.query(
      `SELECT calls, rows, round(mean_exec_time::numeric, 3) AS mean_ms, round(total_exec_time::numeric, 1) AS total_ms,
         left(regexp_replace(query, '\\s+', ' ', 'g'), 80) AS query
       FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 10`,
    );
    console.table(rows);
  }
} finally {
  await stats.end();
  await admin.end();
  server.kill('SIGTERM');
}
