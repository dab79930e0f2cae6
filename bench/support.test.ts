// The bench's own rules, checked because a silent break would skew every figure: the widget's
// submissions must never repeat within a load (a repeated Idempotency-Key is replayed, far cheaper
// than a creation), and `bodiesUnread` must keep counting responses while it patches autocannon's
// internals (an autocannon upgrade could move them), and a load that outran the requests built
// for it must fail rather than measure replays.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertNoneRepeated,
  bodiesUnread,
  distinctPerConnection,
  type Seed,
  widgetSubmissions,
} from './support.js';

const seed: Seed = {
  keys: { pk_test: 'pk_test_bench', sk_test_write: 'sk_test_bench' },
  products: [{ id: '00000000-0000-4000-8000-000000000001', sku: 'LAP-14' }],
};

type Built = { body: string; headers: Record<string, string> };

/** The requests `widgetSubmissions` gives each of `connections` connections. */
function built(connections: number, seconds: number): Built[][] {
  const options = widgetSubmissions(seed, connections, seconds);
  return Array.from({ length: connections }, () => {
    let requests: Built[] = [];
    options.setupClient!({ setRequests: (r: Built[]) => (requests = r) } as never);
    return requests;
  });
}

describe('widgetSubmissions', () => {
  it('builds enough for 8,000 a second, none twice across all connections', () => {
    const perConnection = built(10, 4);
    expect(perConnection.map((requests) => requests.length)).toEqual(
      Array(10).fill(distinctPerConnection(10, 4)),
    );
    expect(distinctPerConnection(10, 4) * 10).toBeGreaterThanOrEqual(8000 * 4);
    const all = perConnection.flat();
    const keys = new Set(all.map((request) => request.headers['idempotency-key']));
    const emails = new Set(all.map((request) => JSON.parse(request.body).cliente.email));
    expect(keys.size).toBe(all.length);
    expect(emails.size).toBe(all.length);
  });

  it('sends what the widget sends: its key, origin, coupon and the seeded laptop', () => {
    const [request] = built(1, 1)[0]!;
    expect(request!.headers.authorization).toBe(`Bearer ${seed.keys.pk_test}`);
    expect(request!.headers.origin).toBeTruthy();
    expect(request!.headers['x-forwarded-for']).toMatch(/^10\.\d+\.\d+\.\d+$/);
    const body = JSON.parse(request!.body);
    expect(body.cupon).toBe('BIENVENIDA10');
    expect(body.items[0].producto_id).toBe(seed.products[0]!.id);
  });
});

describe('bodiesUnread', () => {
  let server: Server;
  let url: string;
  // A body of accented text, the kind autocannon's copy decodes byte by byte.
  const body = JSON.stringify({ data: 'configuración '.repeat(150) });

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('still counts every response and its bytes, without copying the body', async () => {
    type Queue = {
      insertRequest(req: unknown): void;
      addBody(chunk: string): void;
      peek(): { body: string };
    };
    let queue: Queue | undefined;
    const options = bodiesUnread({
      setupClient: (client) => {
        queue = (client as unknown as { pipelinedRequests: Queue }).pipelinedRequests;
      },
    });
    const result = await autocannon({ url, connections: 2, amount: 200, ...options });
    expect(result.errors).toBe(0);
    expect(result['2xx']).toBe(200);
    expect(result.throughput.total).toBeGreaterThanOrEqual(200 * Buffer.byteLength(body));
    // A chunk of a response under way on that connection is no longer appended to its body.
    queue!.insertRequest({});
    queue!.addBody('x');
    expect(queue!.peek().body).toBe('');
  });

  it('leaves a load that reads its responses as it is', () => {
    const onResponse = () => {};
    const options = { requests: [{ onResponse }] };
    expect(bodiesUnread(options)).toBe(options);
  });
});

describe('assertNoneRepeated', () => {
  let server: Server;
  let url: string;
  const received: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push(body);
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  /** A load of `amount` requests over 2 connections, each given 3 distinct bodies. */
  async function loadOf(amount: number) {
    received.length = 0;
    let next = 0;
    const result = await autocannon({
      url,
      connections: 2,
      amount,
      method: 'POST',
      setupClient: (client) =>
        client.setRequests(Array.from({ length: 3 }, () => ({ method: 'POST', body: `request ${next++}` }))),
    });
    return result.requests.total;
  }

  it('fails a load that sent a request twice, as autocannon does once it runs out', async () => {
    const sent = await loadOf(20);
    // The premise: past its 3 requests a connection starts them over.
    expect(new Set(received).size).toBe(6);
    expect(received.length).toBe(20);
    expect(() => assertNoneRepeated(url, sent, 6)).toThrow(
      `${url}: 20 requests sent, only 6 distinct ones built`,
    );
  });

  it('passes a load that sent each request once, and one with no limit to keep', async () => {
    const sent = await loadOf(6);
    expect(new Set(received).size).toBe(6);
    expect(() => assertNoneRepeated(url, sent, 6)).not.toThrow();
    expect(() => assertNoneRepeated(url, sent, undefined)).not.toThrow();
  });
});
