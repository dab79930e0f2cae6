import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { insertEvent } from '../repositories/events.js';
import { createApiKey, revokeApiKey } from '../services/api-keys.js';
import { expectError } from '../testing/assertions.js';
import { QUOTE_EVENT_FIELDS } from '../testing/event-fields.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { DeliveryWorker } from './delivery-worker.js';
import { RETRY_DELAYS_S } from './schedule.js';
import { verifyWebhook } from './signing.js';
import { checkWebhookUrl } from './url-guard.js';

type Json = Record<string, any>;
interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A real HTTP receiver on 127.0.0.1 that answers with the next scripted status. */
async function receiver() {
  const received: Received[] = [];
  const statuses: number[] = [];
  let waiting: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      for (const wake of waiting) wake();
      waiting = [];
      const status = statuses.shift() ?? 200;
      res
        .writeHead(status, status >= 300 && status < 400 ? { location: 'https://example.com/' } : {})
        .end(`status ${status}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  /** Settles when the next request has arrived. */
  const arrival = () => new Promise<void>((r) => waiting.push(r));
  return { url, received, statuses, arrival, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/**
 * A receiver that never answers until released: each request stays open (as a hung endpoint's
 * would) until the worker gives up on it or {@link release} answers it.
 */
async function hangingReceiver() {
  const open = new Set<import('node:http').ServerResponse>();
  let requests = 0;
  let released = false;
  let status = 200;
  let waiting: { count: number; wake: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    requests++;
    req.resume();
    if (released) {
      res.writeHead(status).end('late');
      return;
    }
    open.add(res);
    res.on('close', () => open.delete(res));
    for (const w of waiting.filter((w) => open.size >= w.count)) w.wake();
    waiting = waiting.filter((w) => open.size < w.count);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`,
    /** Requests received so far. */
    requests: () => requests,
    /** Requests still open: not answered, and not given up by the worker. */
    open: () => open.size,
    /** Settles once `count` requests are open at the same time. */
    opened: (count: number) =>
      new Promise<void>((wake) => (open.size >= count ? wake() : waiting.push({ count, wake }))),
    /** Answers the open requests with `status`, and every later one at once. */
    release(answer = 200) {
      status = answer;
      released = true;
      for (const res of open) res.writeHead(status).end('late');
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** What identifies one delivery attempt as the receiver saw it. */
const deliveryOf = (r: Received) => ({
  event: r.headers['x-service-event-id'],
  attempt: r.headers['x-service-attempt'],
  delivery: r.headers['x-service-delivery-id'],
});

let t: TestContext;
let worker: DeliveryWorker;
let sk: string;
let hook: Awaited<ReturnType<typeof receiver>>;
// A minute ahead of the database clock: jobs queued "now" by the database are due for the worker.
let clock = new Date(Date.now() + 60_000);
/** A delivery worker of this test's database and clock, as each server process runs one. */
const newWorker = (options: { timeoutMs?: number; concurrency?: number; perEndpoint?: number }) =>
  new DeliveryWorker({
    db: t.db,
    logger: t.deps.logger,
    now: () => clock,
    publicUrl: 'http://svc.test',
    allowLoopback: true,
    ...options,
  });

beforeAll(async () => {
  t = await createTestContext({ env: { SVC_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: '1' } });
  t.setNow(clock);
  sk = t.seed.keys.sk_test_write;
  hook = await receiver();
  worker = newWorker({ timeoutMs: 2000 });
});
afterAll(async () => {
  await hook.close();
  await t.close();
});

const advance = (seconds: number) => {
  clock = new Date(clock.getTime() + seconds * 1000);
  t.setNow(clock);
};
const createHook = async (body: Json, key = sk) => t.call('POST', '/api/v1/webhooks', { key, body });
/** An endpoint for quote.created with six deliveries due to it, and nothing received yet. */
async function sixDeliveriesDue(): Promise<Json> {
  const { data: endpoint } = (await (
    await createHook({ url: hook.url, eventos: ['quote.created'] })
  ).json()) as Json;
  hook.received.length = 0;
  for (let i = 0; i < 6; i++) await makeQuote();
  return endpoint;
}
const makeQuote = () =>
  t.call('POST', '/api/v1/cotizaciones', {
    key: sk,
    body: {
      items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 100 }],
      cliente: { empresa: 'Hook SA' },
    },
  });

describe('webhook endpoints', () => {
  it('creates an endpoint, shows its secret once, and lists it without it', async () => {
    const res = await createHook({ url: hook.url, eventos: ['quote.created'] });
    const { data } = (await res.json()) as Json;
    expect(data.secret).toMatch(/^whsec_/);
    expect(data).toMatchObject({ url: hook.url, eventos: ['quote.created'], status: 'active' });
    const list = (await (await t.call('GET', '/api/v1/webhooks', { key: sk })).json()) as Json;
    expect(list.data.map((e: Json) => e.id)).toContain(data.id);
    expect(JSON.stringify(list)).not.toContain('whsec_');
    await t.call('DELETE', `/api/v1/webhooks/${data.id}`, { key: sk });
  });

  it('pages the list with limit, offset and cursor, as every list, all of a key in one page by default', async () => {
    const { key } = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'secret',
      mode: 'test',
      scope: 'write',
    });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(((await (await createHook({ url: hook.url }, key)).json()) as Json).data.id);
    const list = async (query: string) =>
      (await (await t.call('GET', `/api/v1/webhooks${query}`, { key })).json()) as Json;
    const all = await list('');
    expect(all.data.map((e: Json) => e.id)).toEqual(ids);
    expect(all.meta).toEqual({ limit: 100, offset: 0, total: 3, next_cursor: null });
    const first = await list('?limit=2');
    expect(first.data.map((e: Json) => e.id)).toEqual(ids.slice(0, 2));
    expect(first.meta).toMatchObject({ limit: 2, offset: 0, total: 3 });
    const next = await list(`?limit=2&cursor=${first.meta.next_cursor}`);
    expect(next.data.map((e: Json) => e.id)).toEqual(ids.slice(2));
    expect(next.meta).toMatchObject({ offset: 2, total: 3, next_cursor: null });
    expect((await list('?offset=5')).meta).toMatchObject({ total: 3, offset: 5 });
    for (const bad of ['?limit=0', '?limit=201', '?offset=-1', '?estado=x'])
      await expectError(await t.call('GET', `/api/v1/webhooks${bad}`, { key }), 400, 'invalid_request');
    for (const id of ids) await t.call('DELETE', `/api/v1/webhooks/${id}`, { key });
  });

  it('keeps the URL as sent, takes ping among its events, and answers 404 for a retry of no delivery', async () => {
    const res = await createHook({ url: 'https://Hooks.Example.com', eventos: ['ping', 'quote.created'] });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as Json;
    expect(data).toMatchObject({ url: 'https://Hooks.Example.com', eventos: ['ping', 'quote.created'] });
    await expectError(
      await t.call(
        'POST',
        `/api/v1/webhooks/${data.id}/deliveries/00000000-0000-0000-0000-000000000000/retry`,
        {
          key: sk,
        },
      ),
      404,
      'not_found',
    );
    await t.call('DELETE', `/api/v1/webhooks/${data.id}`, { key: sk });
  });

  it('refuses URLs that are not https to a public host with 400 invalid_url', async () => {
    const before = (await t.db.query('SELECT 1 FROM webhook_endpoints')).length;
    for (const url of [
      'http://hooks.example.com/x',
      'https://localhost/x',
      'https://127.0.0.1/x',
      'https://10.0.0.5/x',
      'https://192.168.1.10/x',
      'https://169.254.169.254/latest',
      'https://[::1]/x',
      'https://[fd00::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://printer.local/x',
      'https://db.internal/x',
      'https://user:pass@hooks.example.com/x',
      'https://example.com:0/x',
      'not a url',
    ]) {
      const error = await expectError(await createHook({ url }), 400, 'invalid_url');
      expect(error.error).toContain('url');
    }
    expect((await t.db.query('SELECT 1 FROM webhook_endpoints')).length).toBe(before);
  });

  it('refuses a host name that resolves to an internal address, accepts one that cannot be resolved now', async () => {
    const toLoopback = async () => [{ address: '127.0.0.1', family: 4 }];
    expect(await checkWebhookUrl('https://rebind.example.com/x', toLoopback)).toMatchObject({ ok: false });
    const unresolvable = async () => {
      throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect(await checkWebhookUrl('https://not-yet.example.com/x', unresolvable)).toMatchObject({ ok: true });
    expect(
      await checkWebhookUrl('https://hooks.example.com/x', async () => [
        { address: '93.184.216.34', family: 4 },
      ]),
    ).toMatchObject({ ok: true });
    expect(
      (await checkWebhookUrl('https://localhost/x', async () => [{ address: '127.0.0.1', family: 4 }])).ok,
    ).toBe(false);
  });

  it('hides endpoints from other keys, and revoking the creating key deactivates them', async () => {
    const { key } = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'secret',
      mode: 'test',
      scope: 'write',
    });
    const { data } = (await (await createHook({ url: hook.url }, key)).json()) as Json;
    const mine = (await (await t.call('GET', '/api/v1/webhooks', { key: sk })).json()) as Json;
    expect(mine.data.map((e: Json) => e.id)).not.toContain(data.id);
    await expectError(await t.call('DELETE', `/api/v1/webhooks/${data.id}`, { key: sk }), 404, 'not_found');
    const keyId = (
      await t.db.query<{ key_id: string }>('SELECT key_id FROM webhook_endpoints WHERE id = $1', [data.id])
    )[0]!.key_id;
    await revokeApiKey(t.db, keyId);
    const [row] = await t.db.query<{ status: string }>('SELECT status FROM webhook_endpoints WHERE id = $1', [
      data.id,
    ]);
    expect(row?.status).toBe('disabled');
  });

  it('stops at the allowance of 100 per organization with 403 integration_limit_reached', async () => {
    const org = t.seed.free_org.id;
    const key = t.seed.free_org.keys.sk_test_write;
    await t.db.query(
      `INSERT INTO webhook_endpoints (org_id, mode, key_id, url, secret, api_version)
       SELECT $1, 'test', k.id, 'https://hooks.example.com/' || g, 'whsec_x', '2026-10-01'
       FROM generate_series(1, 100) g, (SELECT id FROM api_keys WHERE org_id = $1 LIMIT 1) k`,
      [org],
    );
    await expectError(
      await createHook({ url: 'https://hooks.example.com/new' }, key),
      403,
      'integration_limit_reached',
    );
  });
});

describe('deliveries', () => {
  beforeEach(async () => {
    await t.db.query('DELETE FROM webhook_endpoints WHERE org_id = $1', [t.seed.org.id]);
  });

  it('gives a deleted draft’s events the same link_publico on every attempt', async () => {
    const { data: endpoint } = (await (
      await createHook({ url: hook.url, eventos: ['quote.created', 'quote.deleted'] })
    ).json()) as Json;
    hook.received.length = 0;
    hook.statuses.push(500);
    const quote = ((await (await makeQuote()).json()) as Json).data;
    await worker.tick();
    await t.call('DELETE', `/api/v1/cotizaciones/${quote.id}`, { key: sk });
    advance(60);
    await worker.tick();
    const bodies = hook.received.map((r) => JSON.parse(r.body) as Json);
    expect(bodies.map((b) => b.event).sort()).toEqual(['quote.created', 'quote.created', 'quote.deleted']);
    const link = `http://svc.test/q/${quote.token}`;
    for (const body of bodies) expect(body.data.link_publico).toBe(link);
    const created = hook.received.filter((r) => JSON.parse(r.body).event === 'quote.created');
    expect(created[1]!.body).toBe(created[0]!.body);
    await t.call('DELETE', `/api/v1/webhooks/${endpoint.id}`, { key: sk });
  });

  it('delivers signed events that verify, with the documented headers and link_publico', async () => {
    const { data: endpoint } = (await (
      await createHook({ url: hook.url, eventos: ['quote.created'] })
    ).json()) as Json;
    hook.received.length = 0;
    await makeQuote();
    await worker.tick();
    expect(hook.received).toHaveLength(1);
    const { headers, body } = hook.received[0]!;
    const payload = JSON.parse(body);
    expect(payload).toMatchObject({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      event: 'quote.created',
      created_at: expect.stringMatching(/Z$/),
    });
    expect(payload.data.link_publico).toMatch(/^http:\/\/svc\.test\/q\//);
    expect(headers['x-service-event-id']).toBe(payload.id);
    expect(headers['idempotency-key']).toBe(payload.id);
    expect(headers['x-service-attempt']).toBe('1');
    expect(headers['x-service-delivery-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(
      verifyWebhook(endpoint.secret, headers as Record<string, string>, body, {
        now: Math.floor(clock.getTime() / 1000),
      }),
    ).toBe(true);
    expect(
      verifyWebhook(endpoint.secret, headers as Record<string, string>, `${body} `, {
        now: Math.floor(clock.getTime() / 1000),
      }),
    ).toBe(false);
    expect(
      verifyWebhook('whsec_wrong', headers as Record<string, string>, body, {
        now: Math.floor(clock.getTime() / 1000),
      }),
    ).toBe(false);
    expect(
      verifyWebhook(endpoint.secret, headers as Record<string, string>, body, {
        now: Math.floor(clock.getTime() / 1000) + 301,
      }),
    ).toBe(false);
    // The event history keeps no credential.
    const events = (await (
      await t.call('GET', '/api/v1/events?type=quote.created&limit=1', { key: sk })
    ).json()) as Json;
    expect(JSON.stringify(events)).not.toContain('link_publico');
    await t.call('DELETE', `/api/v1/webhooks/${endpoint.id}`, { key: sk });
  });

  it('retries on the schedule, counts a 3xx as a failure, and resends the identical payload', async () => {
    const { data: endpoint } = (await (
      await createHook({ url: hook.url, eventos: ['quote.created'] })
    ).json()) as Json;
    hook.received.length = 0;
    hook.statuses.push(302, 500);
    await makeQuote();
    await worker.tick();
    expect(hook.received).toHaveLength(1);
    // Not due before ~10 s (−20 %), due after 10 s (+20 %).
    advance(RETRY_DELAYS_S[0]! * 0.79);
    await worker.tick();
    expect(hook.received).toHaveLength(1);
    advance(RETRY_DELAYS_S[0]! * 0.42);
    await worker.tick();
    expect(hook.received).toHaveLength(2);
    advance(RETRY_DELAYS_S[1]! * 1.21);
    await worker.tick();
    expect(hook.received).toHaveLength(3);
    expect(hook.received.map((r) => r.headers['x-service-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(hook.received.map((r) => r.body)).size).toBe(1);
    const log = (await (
      await t.call('GET', `/api/v1/webhooks/${endpoint.id}/deliveries`, { key: sk })
    ).json()) as Json;
    expect(log.data.map((d: Json) => d.status_code)).toEqual([200, 500, 302]);
    // Each attempt received is one entry of the log, named by its delivery id.
    expect(hook.received.map(deliveryOf).reverse()).toEqual(
      log.data.map((d: Json) => ({ event: d.event_id, attempt: String(d.attempt), delivery: d.delivery_id })),
    );
    expect(log.data[2].response_excerpt).toContain('302');
    await t.call('DELETE', `/api/v1/webhooks/${endpoint.id}`, { key: sk });
  });

  it('counts the wait before a retry from when a timed-out attempt ended, not from its start', async () => {
    const slow = await hangingReceiver();
    try {
      const impatient = newWorker({ timeoutMs: 300 });
      const { data: endpoint } = (await (
        await createHook({ url: slow.url, eventos: ['quote.created'] })
      ).json()) as Json;
      await makeQuote();
      const idle = impatient.tick();
      await slow.opened(1);
      // The attempt takes 30 s of the worker's clock before it times out.
      advance(30);
      await idle;
      // Not retried at once: the retry is not due yet.
      expect(slow.requests()).toBe(1);
      const ended = clock.getTime();
      const [job] = await t.db.query<{ state: string; next_at: Date }>(
        'SELECT state, next_at FROM webhook_jobs WHERE endpoint_id = $1',
        [endpoint.id],
      );
      expect(job!.state).toBe('pending');
      // ~10 s (±20 %) after the end of the failed attempt.
      const wait = new Date(job!.next_at).getTime() - ended;
      expect(wait).toBeGreaterThanOrEqual(RETRY_DELAYS_S[0]! * 800);
      expect(wait).toBeLessThanOrEqual(RETRY_DELAYS_S[0]! * 1200);
      const log = (await (
        await t.call('GET', `/api/v1/webhooks/${endpoint.id}/deliveries`, { key: sk })
      ).json()) as Json;
      expect(log.data[0].error).toContain('timeout');
    } finally {
      slow.release();
      await slow.close();
    }
  });

  it('disables an endpoint after 5 events fail for good, cancels its retries, and reactivates with a replay of the last 24 h', async () => {
    const { data: endpoint } = (await (
      await createHook({ url: hook.url, eventos: ['quote.created'] })
    ).json()) as Json;
    await t.db.query('UPDATE webhook_endpoints SET failure_streak = 4 WHERE id = $1', [endpoint.id]);
    // One event exhausts its 11 attempts.
    hook.statuses.push(...Array.from({ length: 11 }, () => 503));
    hook.received.length = 0;
    await makeQuote();
    for (let i = 0; i < 11; i++) {
      await worker.tick();
      advance(2 * 86_400);
    }
    expect(hook.received).toHaveLength(11);
    const [row] = await t.db.query<{ status: string; failure_streak: number }>(
      'SELECT status, failure_streak FROM webhook_endpoints WHERE id = $1',
      [endpoint.id],
    );
    expect(row).toEqual({ status: 'disabled', failure_streak: 5 });
    // The owner is told at the organization's notice address (kept in the outbox in test mode).
    const notices = await t.db.query<{ to_email: string; body: string; skipped_reason: string }>(
      `SELECT to_email, body, skipped_reason FROM email_outbox WHERE org_id = $1 AND subject = 'Webhook endpoint health'`,
      [t.seed.org.id],
    );
    expect(notices.at(-1)).toMatchObject({
      to_email: 'ventas@estudio-nopal.example',
      skipped_reason: 'test_mode',
    });
    expect(notices.at(-1)!.body).toContain('disabled after 5 failed deliveries');
    await makeQuote();
    await worker.tick();
    expect(hook.received).toHaveLength(11);
    // Back to the present: the event that failed for good failed within the last 24 hours, though
    // it was created days before (its 11 attempts take ~3.7 days).
    clock = new Date(Date.now() + 60_000);
    t.setNow(clock);
    await t.db.query(
      `UPDATE webhook_jobs SET created_at = created_at - interval '4 days' WHERE endpoint_id = $1 AND state = 'failed'`,
      [endpoint.id],
    );
    const res = await t.call('POST', `/api/v1/webhooks/${endpoint.id}/reactivate`, {
      key: sk,
      body: { retry_last_24h: true },
    });
    expect(((await res.json()) as Json).data).toMatchObject({ status: 'active', requeued: 1 });
    await worker.tick();
    expect(hook.received.length).toBeGreaterThan(11);
    // Its attempt numbers go on: a receiver never sees one event's attempt 1 twice.
    const replayed = hook.received.slice(11).map(deliveryOf);
    expect(replayed[0]).toMatchObject({ event: deliveryOf(hook.received[0]!).event, attempt: '12' });
    await t.call('DELETE', `/api/v1/webhooks/${endpoint.id}`, { key: sk });
  });

  it('disables an endpoint once, with one e-mail, when failures in flight together pass the limit', async () => {
    const gate = await hangingReceiver();
    try {
      const together = newWorker({ concurrency: 7, perEndpoint: 7 });
      const { data: endpoint } = (await (
        await createHook({ url: gate.url, eventos: ['ping'] })
      ).json()) as Json;
      // Seven failed tests, each counting toward health, all in flight when the fifth disables.
      for (let i = 0; i < 7; i++) {
        await t.call('POST', '/api/v1/test_helpers/webhooks', { key: sk, body: { webhook_id: endpoint.id } });
      }
      const idle = together.tick();
      await gate.opened(7);
      gate.release(500);
      expect(await idle).toBe(7);
      const [row] = await t.db.query<{ status: string; failure_streak: number }>(
        'SELECT status, failure_streak FROM webhook_endpoints WHERE id = $1',
        [endpoint.id],
      );
      expect(row).toEqual({ status: 'disabled', failure_streak: 5 });
      const notices = await t.db.query<{ body: string }>(
        `SELECT body FROM email_outbox WHERE org_id = $1 AND subject = 'Webhook endpoint health'
           AND body LIKE '%' || $2`,
        [t.seed.org.id, gate.url],
      );
      // (Their order is not asserted: each is stamped with its transaction's start, and these
      // transactions waited for one another.)
      expect(notices.map((n) => n.body).sort()).toEqual([
        `Webhook endpoint disabled after 5 failed deliveries: ${gate.url}`,
        `Webhook endpoint failing: 3 events in a row could not be delivered to ${gate.url}`,
      ]);
      const log = (await (
        await t.call('GET', `/api/v1/webhooks/${endpoint.id}/deliveries`, { key: sk })
      ).json()) as Json;
      expect(log.data.map((d: Json) => d.status_code)).toEqual(Array.from({ length: 7 }, () => 500));
    } finally {
      gate.release();
      await gate.close();
    }
  });

  it('signs with both secrets during a rotation, then only the new one', async () => {
    const { data: endpoint } = (await (
      await createHook({ url: hook.url, eventos: ['quote.created'] })
    ).json()) as Json;
    const rotated = (
      (await (
        await t.call('POST', `/api/v1/webhooks/${endpoint.id}/rotate_secret`, {
          key: sk,
          body: { overlap_hours: 1 },
        })
      ).json()) as Json
    ).data;
    expect(rotated.secret).not.toBe(endpoint.secret);
    hook.received.length = 0;
    await makeQuote();
    await worker.tick();
    const header = String(hook.received[0]!.headers['x-service-signature-v1']);
    expect(header.match(/v1=/g)).toHaveLength(2);
    // The legacy header holds one signature: the new secret's (docs/webhooks.md).
    const legacy = (secret: string) =>
      `sha256=${createHmac('sha256', secret).update(hook.received[0]!.body).digest('hex')}`;
    expect(hook.received[0]!.headers['x-service-signature']).toBe(legacy(rotated.secret));
    expect(hook.received[0]!.headers['x-service-signature']).not.toBe(legacy(endpoint.secret));
    const now = Math.floor(clock.getTime() / 1000);
    expect(
      verifyWebhook(
        endpoint.secret,
        hook.received[0]!.headers as Record<string, string>,
        hook.received[0]!.body,
        { now },
      ),
    ).toBe(true);
    expect(
      verifyWebhook(
        rotated.secret,
        hook.received[0]!.headers as Record<string, string>,
        hook.received[0]!.body,
        { now },
      ),
    ).toBe(true);
    advance(3601);
    await makeQuote();
    await worker.tick();
    const later = hook.received[1]!;
    expect(String(later.headers['x-service-signature-v1']).match(/v1=/g)).toHaveLength(1);
    expect(
      verifyWebhook(endpoint.secret, later.headers as Record<string, string>, later.body, {
        now: now + 3601,
      }),
    ).toBe(false);
    await expectError(
      await t.call('POST', `/api/v1/webhooks/${endpoint.id}/rotate_secret`, {
        key: sk,
        body: { overlap_hours: 5 },
      }),
      400,
      'invalid_request',
    );
    await t.call('DELETE', `/api/v1/webhooks/${endpoint.id}`, { key: sk });
  });

  it('fires a ping from the test helper to one endpoint, for test keys only', async () => {
    const { data: endpoint } = (await (
      await createHook({ url: hook.url, eventos: ['quote.paid'] })
    ).json()) as Json;
    hook.received.length = 0;
    const res = await t.call('POST', '/api/v1/test_helpers/webhooks', {
      key: sk,
      body: { webhook_id: endpoint.id },
    });
    expect(res.status).toBe(200);
    await worker.tick();
    expect(JSON.parse(hook.received[0]!.body)).toMatchObject({
      event: 'ping',
      data: { mensaje: expect.any(String), folio: expect.any(String), link_publico: expect.any(String) },
    });
    // A sample under a real event's name goes to that endpoint only, never into the history.
    const sample = await t.call('POST', '/api/v1/test_helpers/webhooks', {
      key: sk,
      body: { webhook_id: endpoint.id, event: 'quote.paid' },
    });
    const fired = ((await sample.json()) as Json).data.event_id;
    // Shaped as the quote family, with made-up values.
    hook.received.length = 0;
    await worker.tick();
    const delivered = JSON.parse(hook.received[0]!.body);
    expect(delivered.event).toBe('quote.paid');
    expect(Object.keys(delivered.data).sort()).toEqual([...QUOTE_EVENT_FIELDS].sort());
    const history = (await (await t.call('GET', '/api/v1/events?limit=200', { key: sk })).json()) as Json;
    // The history's ids are the UUIDs behind the deliveries' evt_ ids.
    const listed = history.data.map((e: Json) => `evt_${e.id.replaceAll('-', '')}`);
    expect(listed).not.toContain(fired);
    expect(history.data.some((e: Json) => e.type === 'ping')).toBe(false);
    await expectError(
      await t.call('POST', '/api/v1/test_helpers/webhooks', {
        key: t.seed.keys.sk_live_write,
        body: { webhook_id: endpoint.id },
      }),
      403,
      'insufficient_scope',
    );
  });

  it('delivers to a healthy endpoint while another one hangs with a backlog, which holds only its own slots', async () => {
    const slow = await hangingReceiver();
    try {
      // The real 10 s timeout: nothing here waits for it.
      const slots = newWorker({ concurrency: 3, perEndpoint: 2 });
      const { data: stuck } = (await (await createHook({ url: slow.url, eventos: ['ping'] })).json()) as Json;
      await createHook({ url: hook.url, eventos: ['quote.created'] });
      hook.received.length = 0;
      // Four tests due to the endpoint that hangs: more than the worker's slots.
      for (let i = 0; i < 4; i++) {
        await t.call('POST', '/api/v1/test_helpers/webhooks', { key: sk, body: { webhook_id: stuck.id } });
      }
      const idle = slots.tick();
      await slow.opened(2);
      // An event for the healthy endpoint, and the wake-up its notification gives every worker.
      const arrived = hook.arrival();
      await makeQuote();
      void slots.tick();
      await arrived;
      // It arrived while the hung requests were still open: it did not wait for their timeout,
      // and the endpoint that hangs took no more than its share of the slots.
      expect(slow.open()).toBe(2);
      expect(slow.requests()).toBe(2);
      expect(JSON.parse(hook.received[0]!.body).event).toBe('quote.created');
      slow.release();
      expect(await idle).toBe(5);
      expect(slow.requests()).toBe(4);
      const states = await t.db.query<{ state: string }>(
        'SELECT state FROM webhook_jobs WHERE endpoint_id = $1',
        [stuck.id],
      );
      expect(states.map((s) => s.state)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    } finally {
      slow.release();
      await slow.close();
    }
  });

  it('logs an attempt whose claim was taken again meanwhile, and leaves the job to the newer claim', async () => {
    const slow = await hangingReceiver();
    try {
      const { data: endpoint } = (await (
        await createHook({ url: slow.url, eventos: ['ping'] })
      ).json()) as Json;
      await t.call('POST', '/api/v1/test_helpers/webhooks', { key: sk, body: { webhook_id: endpoint.id } });
      const idle = worker.tick();
      await slow.opened(1);
      // As another process does once this claim's lease has run out: the next attempt.
      await t.db.query(`UPDATE webhook_jobs SET attempts = attempts + 1 WHERE endpoint_id = $1`, [
        endpoint.id,
      ]);
      slow.release(500);
      await idle;
      const [job] = await t.db.query<{ id: string; state: string; attempts: number }>(
        'SELECT id, state, attempts FROM webhook_jobs WHERE endpoint_id = $1',
        [endpoint.id],
      );
      // Still the newer claim's: not failed, nor counted against the endpoint, by the older one.
      expect(job).toMatchObject({ state: 'delivering', attempts: 2 });
      const logged = await t.db.query<{ attempt: number; ok: boolean }>(
        'SELECT attempt, ok FROM webhook_attempts WHERE job_id = $1',
        [job!.id],
      );
      expect(logged).toEqual([{ attempt: 1, ok: false }]);
      const [health] = await t.db.query<{ failure_streak: number }>(
        'SELECT failure_streak FROM webhook_endpoints WHERE id = $1',
        [endpoint.id],
      );
      expect(health!.failure_streak).toBe(0);
    } finally {
      slow.release();
      await slow.close();
    }
  });

  it('refuses a test or a manual retry to a disabled endpoint with 409, queuing nothing, until it is reactivated', async () => {
    const { data: endpoint } = (await (
      await createHook({ url: hook.url, eventos: ['ping'] })
    ).json()) as Json;
    const fire = () =>
      t.call('POST', '/api/v1/test_helpers/webhooks', { key: sk, body: { webhook_id: endpoint.id } });
    hook.received.length = 0;
    hook.statuses.push(500);
    const { job_id: jobId } = ((await (await fire()).json()) as Json).data;
    await worker.tick();
    await t.db.query(
      `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = 'failures' WHERE id = $1`,
      [endpoint.id],
    );
    const jobs = () =>
      t.db.query(
        'SELECT id, state, attempts, manual, next_at, finished_at FROM webhook_jobs WHERE endpoint_id = $1 ORDER BY id',
        [endpoint.id],
      );
    const before = await jobs();
    expect(before).toMatchObject([{ id: jobId, state: 'failed', attempts: 1 }]);
    const events = async () =>
      (await t.db.query('SELECT 1 FROM events WHERE org_id = $1', [t.seed.org.id])).length;
    const eventCount = await events();
    const retry = () =>
      t.call('POST', `/api/v1/webhooks/${endpoint.id}/deliveries/${jobId}/retry`, { key: sk });
    const refused = await expectError(await retry(), 409, 'invalid_state');
    expect(refused.error).toContain('reactivate');
    await expectError(await fire(), 409, 'invalid_state');
    // Another job on that endpoint is still 404, however the endpoint stands.
    await expectError(
      await t.call(
        'POST',
        `/api/v1/webhooks/${endpoint.id}/deliveries/00000000-0000-0000-0000-000000000000/retry`,
        {
          key: sk,
        },
      ),
      404,
      'not_found',
    );
    expect(await jobs()).toEqual(before);
    expect(await events()).toBe(eventCount);
    await worker.tick();
    expect(hook.received).toHaveLength(1);
    // Reactivated, the same retry goes out.
    await t.call('POST', `/api/v1/webhooks/${endpoint.id}/reactivate`, { key: sk, body: {} });
    expect((await retry()).status).toBe(200);
    await worker.tick();
    expect(hook.received.map((r) => r.headers['x-service-attempt'])).toEqual(['1', '2']);
  });

  it('reactivates only a disabled endpoint: an active one keeps its failure streak (409)', async () => {
    const { data: endpoint } = (await (
      await createHook({ url: hook.url, eventos: ['ping'] })
    ).json()) as Json;
    await t.db.query('UPDATE webhook_endpoints SET failure_streak = 4 WHERE id = $1', [endpoint.id]);
    const reactivate = () =>
      t.call('POST', `/api/v1/webhooks/${endpoint.id}/reactivate`, {
        key: sk,
        body: { retry_last_24h: true },
      });
    const refused = await expectError(await reactivate(), 409, 'invalid_state');
    expect(refused.error).toContain('disabled');
    const streak = async () =>
      (
        await t.db.query<{ failure_streak: number; status: string }>(
          'SELECT failure_streak, status FROM webhook_endpoints WHERE id = $1',
          [endpoint.id],
        )
      )[0];
    expect(await streak()).toEqual({ failure_streak: 4, status: 'active' });
    await t.db.query(`UPDATE webhook_endpoints SET status = 'disabled', failure_streak = 5 WHERE id = $1`, [
      endpoint.id,
    ]);
    expect((await reactivate()).status).toBe(200);
    expect(await streak()).toEqual({ failure_streak: 0, status: 'active' });
    await t.call('DELETE', `/api/v1/webhooks/${endpoint.id}`, { key: sk });
  });

  it('does not claim again a delivery it still has in flight, even once its lease has run out', async () => {
    const slow = await hangingReceiver();
    try {
      const w = newWorker({});
      await createHook({ url: slow.url, eventos: ['quote.created'] });
      await makeQuote();
      const idle = w.tick();
      await slow.opened(1);
      advance(61);
      void w.tick();
      await new Promise((r) => setTimeout(r, 200));
      expect(slow.requests()).toBe(1);
      slow.release();
      expect(await idle).toBe(1);
    } finally {
      slow.release();
      await slow.close();
    }
  });

  it('never lets two workers make the same attempt', async () => {
    const endpoint = await sixDeliveriesDue();
    const other = newWorker({ concurrency: 2 });
    await Promise.all([worker.tick(), other.tick(), worker.tick(), other.tick()]);
    // An attempt is an (event, attempt number) pair: each event once, as its first attempt.
    const attempts = hook.received.map(
      (r) => `${r.headers['x-service-event-id']} #${r.headers['x-service-attempt']}`,
    );
    expect(attempts).toHaveLength(6);
    expect(new Set(attempts).size).toBe(6);
    expect(attempts.every((a) => a.endsWith(' #1'))).toBe(true);
    await t.call('DELETE', `/api/v1/webhooks/${endpoint.id}`, { key: sk });
  });

  it('stops after the deliveries it claimed, leaving a backlog queued for the next process', async () => {
    const endpoint = await sixDeliveriesDue();
    const stopping = newWorker({ concurrency: 2 });
    const round = stopping.tick();
    await stopping.stop();
    expect(await round).toBe(2);
    expect(hook.received).toHaveLength(2);
    await worker.tick();
    expect(hook.received).toHaveLength(6);
    await t.call('DELETE', `/api/v1/webhooks/${endpoint.id}`, { key: sk });
  });
});

describe('listen sessions', () => {
  it('opens with no body or {} and refuses any other body, opening nothing', async () => {
    const open = (init: Record<string, unknown>) =>
      t.call('POST', '/api/v1/test_helpers/listen', { key: sk, ...init });
    const sessions = async () => (await t.db.query('SELECT id FROM listen_sessions')).length;
    const before = await sessions();
    await expectError(await open({ body: 'garbage' }), 400, 'invalid_json');
    await expectError(
      await open({ body: '{}', headers: { 'content-type': 'text/plain' } }),
      400,
      'invalid_json',
    );
    await expectError(await open({ body: { since: 'now' } }), 400, 'invalid_request');
    expect(await sessions()).toBe(before);
    expect((await open({})).status).toBe(200);
    expect((await open({ body: {} })).status).toBe(200);
    expect(await sessions()).toBe(before + 2);
  });

  it('collects the test events since the session opened, as deliveries, with a cursor', async () => {
    await makeQuote();
    const open = (await (
      await t.call('POST', '/api/v1/test_helpers/listen', { key: sk, body: {} })
    ).json()) as Json;
    await makeQuote();
    await makeQuote();
    const first = (await (
      await t.call('GET', `/api/v1/test_helpers/listen/${open.data.id}?limit=1`, { key: sk })
    ).json()) as Json;
    expect(first.data).toHaveLength(1);
    expect(first.data[0]).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      event: 'quote.created',
      data: { link_publico: expect.any(String) },
    });
    const rest = (await (
      await t.call('GET', `/api/v1/test_helpers/listen/${open.data.id}?cursor=${first.meta.next_cursor}`, {
        key: sk,
      })
    ).json()) as Json;
    expect(rest.data.map((e: Json) => e.event)).toEqual(['quote.created']);
    expect(rest.data[0].id).not.toBe(first.data[0].id);
    const closed = await t.call('DELETE', `/api/v1/test_helpers/listen/${open.data.id}`, { key: sk });
    expect(((await closed.json()) as Json).data.status).toBe('closed');
    await expectError(
      await t.call('GET', `/api/v1/test_helpers/listen/${open.data.id}`, { key: t.seed.keys.sk_test_read }),
      404,
      'not_found',
    );
    await expectError(
      await t.call('POST', '/api/v1/test_helpers/listen', { key: t.seed.keys.sk_live_write, body: {} }),
      403,
      'insufficient_scope',
    );
  });
});

describe.runIf(inject('testDb') === 'postgres')('deliveries beside the transactions that queue them', () => {
  it("records a delivery's outcome while a transaction that queued another event to the endpoint is open", async () => {
    await t.db.query('DELETE FROM webhook_endpoints WHERE org_id = $1', [t.seed.org.id]);
    const { data: endpoint } = (await (
      await createHook({ url: hook.url, eventos: ['quote.created'] })
    ).json()) as Json;
    hook.received.length = 0;
    await makeQuote();
    await t.db.transaction(async (tx) => {
      // Queuing a delivery holds a key share on the endpoint's row (the job's foreign key) until
      // COMMIT, as an invoice's finalization does with its number's lock. The outcome's lock of
      // that row must not wait for it: with FOR UPDATE, this transaction waited for the worker,
      // which waited for this transaction.
      await insertEvent(tx, {
        orgId: t.seed.org.id,
        mode: 'test',
        type: 'quote.created',
        object: 'quote',
        objectId: randomUUID(),
        data: {},
        actor: 'system',
      });
      const sleep = new Promise<'blocked'>((r) => setTimeout(() => r('blocked'), 5000));
      // The worker runs outside this transaction, as it does in a server.
      const tick = t.db.detached(() => worker.tick());
      expect(await Promise.race([tick, sleep])).not.toBe('blocked');
    });
    expect(hook.received.length).toBeGreaterThan(0);
    await t.call('DELETE', `/api/v1/webhooks/${endpoint.id}`, { key: sk });
  });
});
