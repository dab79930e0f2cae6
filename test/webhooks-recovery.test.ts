import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from './support/postgres.js';
import { cli, type ServerProcess, startServerProcess } from './support/processes.js';

/**
 * Webhook workers in two server processes on one PostgreSQL, one of them killed with SIGKILL in
 * the middle of a burst: nothing acknowledged is lost, every event is delivered, and no delivery
 * attempt is made twice at once.
 */
describe('webhooks across processes and a kill -9', () => {
  let database: Awaited<ReturnType<typeof createPgDatabase>>;
  let env: Record<string, string>;
  let servers: ServerProcess[] = [];
  let seed: { keys: { sk_test_write: string } };
  let receiver: Server;
  let hookUrl: string;
  const received: { event: string; delivery: string; attempt: string }[] = [];

  beforeAll(async () => {
    database = await createPgDatabase('svc_hooks');
    env = {
      DATABASE_URL: database.url,
      SVC_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: '1',
      SVC_WEBHOOK_LEASE_SECONDS: '3',
    };
    seed = JSON.parse((await cli(['seed', '--json'], env)).stdout);
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push({
          event: String(req.headers['x-service-event-id']),
          delivery: String(req.headers['x-service-delivery-id']),
          attempt: String(req.headers['x-service-attempt']),
        });
        // Slow answers keep deliveries in flight when the process dies.
        setTimeout(() => res.writeHead(200).end('ok'), 150);
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await new Promise<void>((r) => receiver.close(() => r()));
    await database?.drop();
  });

  const call = (server: ServerProcess, method: string, path: string, body?: unknown) =>
    fetch(`${server.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${seed.keys.sk_test_write}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('delivers every committed event once the killed process is back, and loses no acknowledged quote', async () => {
    const created = await call(servers[0]!, 'POST', '/webhooks', {
      url: hookUrl,
      eventos: ['quote.created'],
    });
    expect(created.status).toBe(200);
    const burst = Array.from({ length: 40 }, (_, i) =>
      call(servers[i % 2]!, 'POST', '/cotizaciones', {
        items: [{ descripcion: 'x', cantidad: 1, precio_unitario: 10 }],
        cliente: { empresa: `K${i}` },
      })
        .then(async (r) => (r.status === 200 ? ((await r.json()) as { data: { id: string } }).data.id : null))
        .catch(() => null),
    );
    await new Promise((r) => setTimeout(r, 250));
    await servers[0]!.stop('SIGKILL');
    const acknowledged = (await Promise.all(burst)).filter((id): id is string => id !== null);
    expect(acknowledged.length).toBeGreaterThan(0);
    servers[0] = await startServerProcess(env);

    // Every acknowledged quote is there, whole.
    for (const id of acknowledged) {
      const detail = await call(servers[0]!, 'GET', `/cotizaciones/${id}`);
      expect(detail.status).toBe(200);
      expect(((await detail.json()) as { data: { items: unknown[] } }).data.items).toHaveLength(1);
    }
    // Every committed quote.created event reaches the receiver (leases of the dead process expire).
    const events = (await (
      await call(servers[1]!, 'GET', '/events?type=quote.created&limit=200')
    ).json()) as { data: { id: string }[] };
    const wanted = new Set(events.data.map((e) => `evt_${e.id.replaceAll('-', '')}`));
    expect(wanted.size).toBeGreaterThanOrEqual(acknowledged.length);
    const deadline = Date.now() + 30_000;
    while ([...wanted].some((id) => !received.some((r) => r.event === id)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    expect([...wanted].filter((id) => !received.some((r) => r.event === id))).toEqual([]);
    // Each attempt is its own delivery: no delivery id twice.
    const deliveries = received.map((r) => r.delivery);
    expect(new Set(deliveries).size).toBe(deliveries.length);
  });
});
