import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from './support/postgres.js';
import { cli, type ServerProcess, startServerProcess } from './support/processes.js';

/**
 * Invoice numbers on two server processes sharing one PostgreSQL: 200 finalizations at once, half
 * on each process, take F-000001 to F-000200 with no number repeated or skipped, and so do the
 * credit notes' NC- numbers.
 */
describe('invoice numbering across two processes', () => {
  let database: Awaited<ReturnType<typeof createPgDatabase>>;
  let servers: ServerProcess[] = [];
  let key: string;

  beforeAll(async () => {
    database = await createPgDatabase('svc_invnum');
    const env = { DATABASE_URL: database.url, SVC_KEY_RATE_LIMIT: '5000' };
    key = JSON.parse((await cli(['seed', '--json'], env)).stdout).keys.sk_test_write;
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await database?.drop();
  });

  const post = async (i: number, path: string, body: unknown) => {
    const res = await fetch(`${servers[i % 2]!.url}/api/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it('numbers 200 concurrent finalizations and credit notes without a gap or a repeat', async () => {
    const drafts = [];
    for (let i = 0; i < 200; i += 20) {
      drafts.push(
        ...(await Promise.all(
          Array.from({ length: 20 }, (_, j) =>
            post(i + j, '/facturas', {
              cliente: { empresa: `Cliente ${i + j}` },
              items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 100 }],
            }),
          ),
        )),
      );
    }
    expect(drafts.every((d) => d.status === 200)).toBe(true);
    const finalized = await Promise.all(
      drafts.map((d, i) => post(i, `/facturas/${d.body.data.id}`, { action: 'finalize' })),
    );
    expect(finalized.map((f) => f.status)).toEqual(Array(200).fill(200));
    const numbers = finalized.map((f) => Number(String(f.body.data.numero).slice(2))).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    const notes = await Promise.all(
      finalized
        .slice(0, 100)
        .map((f, i) =>
          post(i, `/facturas/${f.body.data.id}`, { action: 'credit_note', monto: 10, motivo: 'Ajuste' }),
        ),
    );
    expect(notes.map((n) => n.status)).toEqual(Array(100).fill(200));
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query<{ n: number }>(
      `SELECT substr(numero, 4)::int AS n FROM credit_notes ORDER BY 1`,
    );
    await client.end();
    expect(rows.map((r) => r.n)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });
});
