import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from './support/postgres.js';
import { cli, type ServerProcess, startServerProcess } from './support/processes.js';

/** Restarts the test cluster the way an operator would (as the postgres user when root). */
async function restartPostgres(): Promise<void> {
  const dir = process.env.TEST_PG_DIR;
  const bin = process.env.PG_BIN;
  if (!dir || !bin) throw new Error('TEST_PG_DIR and PG_BIN come from scripts/test.sh');
  const args = ['-D', `${dir}/data`, '-m', 'fast', '-w', 'restart', '-l', `${dir}/log`];
  // Asynchronously: the load must keep running while the database goes down and comes back.
  const run = promisify(execFile);
  if (process.getuid?.() === 0) await run('runuser', ['-u', 'postgres', '--', `${bin}/pg_ctl`, ...args]);
  else await run(`${bin}/pg_ctl`, args);
}

describe('PostgreSQL restarted under load', () => {
  let database: Awaited<ReturnType<typeof createPgDatabase>>;
  let server: ServerProcess;
  let key: string;

  beforeAll(async () => {
    database = await createPgDatabase('svc_restart');
    // The load is as fast as the server answers: lift the per-key limit, which is not under test here.
    const env = { DATABASE_URL: database.url, SVC_KEY_RATE_LIMIT: '1000000' };
    key = JSON.parse((await cli(['seed', '--json'], env)).stdout).keys.sk_test_write;
    server = await startServerProcess(env);
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('answers clean 503s while the database is away and recovers without restarting the server', async () => {
    const statuses: number[] = [];
    const bodies: { code?: string }[] = [];
    // Requests that got no answer at all: the connection was reset or closed under them.
    const resets: string[] = [];
    let running = true;
    // Four clients at once, so requests are in flight whenever the database goes away.
    const client = async () => {
      while (running) {
        let res: Response;
        try {
          res = await fetch(`${server.url}/api/v1/cotizaciones`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              items: [{ descripcion: 'x', cantidad: 1, precio_unitario: 1 }],
              cliente: { empresa: 'Restart' },
            }),
          });
        } catch (error) {
          resets.push(String((error as Error).cause ?? error));
          continue;
        }
        statuses.push(res.status);
        const text = await res.text();
        bodies.push(JSON.parse(text.startsWith('{') ? text : '{"code":"not_json"}') as { code?: string });
      }
    };
    const load = Promise.all([client(), client(), client(), client()]);
    await new Promise((r) => setTimeout(r, 300));
    await restartPostgres();
    await new Promise((r) => setTimeout(r, 1500));
    running = false;
    await load;
    // Every request got an answer: none was reset or cut off.
    expect({ resets: resets.length, first: resets.slice(0, 3) }).toEqual({ resets: 0, first: [] });
    // Only successes and clean 503s; a 500 would show its log line here.
    const unhandled = server
      .output()
      .split('\n')
      .filter((line) => line.includes('unhandled'))
      .join('\n')
      .slice(0, 600);
    const failures = statuses.flatMap((status, i) =>
      status === 200 || status === 503 ? [] : [{ status, code: bodies[i]?.code }],
    );
    expect({ failures: failures.length, first: failures.slice(0, 3), unhandled }).toEqual({
      failures: 0,
      first: [],
      unhandled: '',
    });
    expect(bodies.filter((b) => b.code && b.code !== 'service_unavailable')).toEqual([]);
    expect({
      exited: server.child.exitCode,
      output: server.child.exitCode === null ? '' : server.output(),
    }).toEqual({ exited: null, output: '' });
    // Back to normal on the same server process.
    let ok = false;
    for (let i = 0; i < 50 && !ok; i++) {
      const res = await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
      ok = res.status === 200;
      if (!ok) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ok).toBe(true);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    // The outage was seen, and answered as such.
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
  });
});
