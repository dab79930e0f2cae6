import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from './support/postgres.js';
import { cli, type ServerProcess, startServerProcess } from './support/processes.js';

/**
 * More deliveries than one worker keeps in flight to one endpoint (4, the worker's default
 * `perEndpoint`): a burst of twice this many keeps both processes' workers holding deliveries.
 */
const WORKER_BATCH = 10;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Webhook workers in two server processes on one PostgreSQL, one of them killed with SIGKILL in
 * the middle of a burst and with deliveries in flight: nothing acknowledged is lost, every event
 * is delivered, and no delivery attempt is made twice.
 */
describe('webhooks across processes and a kill -9', () => {
  let database: Awaited<ReturnType<typeof createPgDatabase>>;
  let env: Record<string, string>;
  let servers: ServerProcess[] = [];
  let seed: { keys: { sk_test_write: string } };
  let receiver: Server;
  let hookUrl: string;
  const received: { event: string; delivery: string; attempt: string; at: number }[] = [];
  // Until the kill, the receiver holds its answers: each worker then keeps what it claimed in
  // flight, so the killed process dies in the middle of deliveries.
  let holding = true;
  const heldAnswers: (() => void)[] = [];

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
          at: Date.now(),
        });
        const answer = () => res.writeHead(200).end('ok');
        if (holding) heldAnswers.push(answer);
        else answer();
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
  /** Quotes created on both processes in turn; the ids of those acknowledged with 200. */
  const burst = (size: number, name: string) =>
    Array.from({ length: size }, (_, i) =>
      call(servers[i % 2]!, 'POST', '/cotizaciones', {
        items: [{ descripcion: 'x', cantidad: 1, precio_unitario: 10 }],
        cliente: { empresa: `${name}${i}` },
      })
        .then(async (r) => (r.status === 200 ? ((await r.json()) as { data: { id: string } }).data.id : null))
        .catch(() => null),
    );

  it('delivers every committed event once the killed process is back, and loses no acknowledged quote', async () => {
    const created = await call(servers[0]!, 'POST', '/webhooks', {
      url: hookUrl,
      eventos: ['quote.created'],
    });
    expect(created.status).toBe(200);
    const { id: endpointId } = ((await created.json()) as { data: { id: string } }).data;
    const first = await Promise.all(burst(2 * WORKER_BATCH, 'A'));
    expect(first.every((id) => id !== null)).toBe(true);
    // Both workers hold deliveries: more than one worker can hold to this endpoint are held, or no
    // new request came for longer than a worker's 1 s interval while events waited for a slot.
    while (heldAnswers.length <= WORKER_BATCH && Date.now() - (received.at(-1)?.at ?? Date.now()) < 1500) {
      await sleep(50);
    }
    expect(heldAnswers.length).toBeGreaterThan(0);
    const inFlightAtKill = new Set(received.map((r) => r.event));
    const second = burst(2 * WORKER_BATCH, 'B');
    await sleep(50);
    await servers[0]!.stop('SIGKILL');
    holding = false;
    for (const answer of heldAnswers.splice(0)) answer();
    const acknowledged = [...first, ...(await Promise.all(second))].filter((id): id is string => id !== null);
    servers[0] = await startServerProcess(env);

    // Every acknowledged quote is there, whole.
    for (const id of acknowledged) {
      const detail = await call(servers[0]!, 'GET', `/cotizaciones/${id}`);
      expect(detail.status).toBe(200);
      expect(((await detail.json()) as { data: { items: unknown[] } }).data.items).toHaveLength(1);
    }
    // Every committed quote.created event is delivered and logged as such (the leases of the dead
    // process expire and its deliveries are made again).
    const events = (await (
      await call(servers[1]!, 'GET', '/events?type=quote.created&limit=200')
    ).json()) as { data: { id: string }[] };
    const wanted = new Set(events.data.map((e) => `evt_${e.id.replaceAll('-', '')}`));
    expect(wanted.size).toBeGreaterThanOrEqual(acknowledged.length);
    const undelivered = async () => {
      const log = (await (
        await call(servers[1]!, 'GET', `/webhooks/${endpointId}/deliveries?limit=200`)
      ).json()) as { data: { event_id: string; ok: boolean }[] };
      const delivered = new Set(log.data.filter((d) => d.ok).map((d) => d.event_id));
      return [...wanted].filter((id) => !delivered.has(id));
    };
    const deadline = Date.now() + 30_000;
    while ((await undelivered()).length > 0 && Date.now() < deadline) await sleep(200);
    expect(await undelivered()).toEqual([]);
    expect([...wanted].filter((id) => !received.some((r) => r.event === id))).toEqual([]);
    // The killed process had deliveries in flight, and they were made again ...
    const retried = received.filter((r, i) => received.findIndex((o) => o.event === r.event) !== i);
    expect(retried.filter((r) => inFlightAtKill.has(r.event)).length).toBeGreaterThan(0);
    // ... yet no attempt twice: an (event id, attempt number) pair reaches the endpoint once.
    const attempts = received.map((r) => `${r.event} #${r.attempt}`);
    expect(attempts.filter((a, i) => attempts.indexOf(a) !== i)).toEqual([]);
  });
});
