import { createServer, get as httpGet, type IncomingHttpHeaders, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../services/api-keys.js';
import { ElementsConfigCache } from '../services/elements-config.js';
import { expectError } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import {
  type ConfigFromMemory,
  configFastPath,
  fetchWithFastPath,
  listenerWithFastPath,
} from './config-fast-path.js';

let t: TestContext;
const ORIGIN = 'http://127.0.0.1:8787';
const URL_CONFIG = 'http://localhost/api/v1/elements/config';
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const widgetHeaders = (key: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${key}`,
  origin: ORIGIN,
  ...extra,
});
const viaApp = (key: string, extra: Record<string, string> = {}, url = URL_CONFIG, method = 'GET') =>
  t.app.fetch(new Request(url, { method, headers: widgetHeaders(key, extra) }));
/** The fast path as `app.fetch` runs it: its Response, or undefined when it leaves the request to routing. */
const answerOf =
  (fromMemory: ConfigFromMemory) =>
  (request: Request): Response | undefined => {
    let routed = false;
    const response = fetchWithFastPath(fromMemory, () => {
      routed = true;
      return new Response();
    })(request) as Response;
    return routed ? undefined : response;
  };
const headersOf = (res: Response) => {
  const all = Object.fromEntries(res.headers);
  delete all['service-request-id'];
  return all;
};
/** A GET over HTTP as Node's client sends it: nothing added, nothing decompressed. */
const raw = (url: string, headers: Record<string, string>) =>
  new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    httpGet(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    }).on('error', reject);
  });
const comparableRaw = (headers: IncomingHttpHeaders) => {
  const { 'service-request-id': id, date, connection, 'keep-alive': keepAlive, ...rest } = headers;
  expect(id).toMatch(/^req_[0-9a-f]{24}$/);
  return rest;
};
const listening = async (listener: RequestListener) => {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
};
const newPublishableKey = async (extra: { expiresAt?: Date; ips?: string[] } = {}) =>
  createApiKey(t.db, {
    orgId: t.seed.org.id,
    kind: 'publishable',
    mode: 'test',
    scope: 'write',
    origins: [ORIGIN],
    ...extra,
  });

describe('GET /elements/config answered from memory', () => {
  it('answers exactly as the full pipeline does, once memory holds the key and the configuration', async () => {
    const { key } = await newPublishableKey();
    // A fast path of its own, over caches this test fills: it knows nothing until the app has answered.
    const configs = new ElementsConfigCache(t.db, t.deps.keys);
    const fromMemory = answerOf(configFastPath(t.deps.keys, configs, t.deps.now));
    const request = () => new Request(URL_CONFIG, { headers: widgetHeaders(key) });
    expect(fromMemory(request())).toBeUndefined();

    const full = await viaApp(key);
    expect(full.status).toBe(200);
    await configs.get(t.deps.keys.peek(key)!);
    const fast = fromMemory(request());
    expect(fast).toBeDefined();
    expect(fast!.status).toBe(200);
    expect(headersOf(fast!)).toEqual(headersOf(full));
    expect(fast!.headers.get('service-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
    expect(fast!.headers.get('service-request-id')).not.toBe(full.headers.get('service-request-id'));
    const body = await fast!.text();
    expect(body).toBe(await full.text());
    expect(fast!.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));

    const etag = full.headers.get('etag')!;
    const revalidated = fromMemory(
      new Request(URL_CONFIG, { headers: widgetHeaders(key, { 'if-none-match': etag }) }),
    );
    expect(revalidated!.status).toBe(304);
    expect(await revalidated!.text()).toBe('');
    expect(revalidated!.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  });

  it('answers on the Node request itself over HTTP, as the full pipeline does, 304 included', async () => {
    const { key } = await newPublishableKey();
    let fromMemory = 0;
    const counted: ConfigFromMemory = (request) => {
      const answer = t.app.configFromMemory(request);
      if (answer) fromMemory++;
      return answer;
    };
    const server = createServer(listenerWithFastPath(counted, getRequestListener(t.app.fetch)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/elements/config`;
    const get = (extra: Record<string, string> = {}) => fetch(url, { headers: widgetHeaders(key, extra) });
    const comparable = (res: Response) => {
      const headers = headersOf(res);
      delete headers.date;
      return headers;
    };
    try {
      const full = await get();
      expect(fromMemory).toBe(0);
      const fast = await get();
      expect(fromMemory).toBe(1);
      expect(fast.status).toBe(200);
      expect(comparable(fast)).toEqual(comparable(full));
      expect(await fast.text()).toBe(await full.text());
      const revalidated = await get({ 'if-none-match': full.headers.get('etag')! });
      expect(fromMemory).toBe(2);
      expect(revalidated.status).toBe(304);
      expect(revalidated.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      // Anything else still reaches the app, which refuses it as usual.
      await expectError(await get({ origin: 'https://evil.example' }), 403, 'origin_not_allowed');
      await expectError(await fetch(`${url}?x=1`, { headers: widgetHeaders(key) }), 400, 'invalid_request');
      expect(fromMemory).toBe(2);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('answers every Accept-Encoding byte for byte as the full pipeline does, over HTTP, 304 included', async () => {
    const { key } = await newPublishableKey();
    let fromMemory = 0;
    const counted: ConfigFromMemory = (request) => {
      const answer = t.app.configFromMemory(request);
      if (answer) fromMemory++;
      return answer;
    };
    // The same app twice: behind the fast path, and through the pipeline alone.
    const fast = await listening(
      listenerWithFastPath(counted, getRequestListener(t.app.fetchThroughPipeline)),
    );
    const full = await listening(getRequestListener(t.app.fetchThroughPipeline));
    const path = '/api/v1/elements/config';
    try {
      // The pipeline fills memory; from then on the fast path answers.
      expect((await raw(full.url + path, widgetHeaders(key))).status).toBe(200);
      const acceptEncodings = [
        undefined,
        'gzip, deflate, br, zstd',
        'gzip, deflate',
        'br;q=0.2, gzip;q=0.8',
        'identity',
        'br;q=0, gzip;q=0',
        '*',
      ];
      const encodings = new Set<string | undefined>();
      for (const acceptEncoding of acceptEncodings) {
        const headers = widgetHeaders(
          key,
          acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding },
        );
        const before = fromMemory;
        const [a, b] = [await raw(fast.url + path, headers), await raw(full.url + path, headers)];
        expect(fromMemory, String(acceptEncoding)).toBe(before + 1);
        expect(a.status).toBe(200);
        expect(comparableRaw(a.headers), String(acceptEncoding)).toEqual(comparableRaw(b.headers));
        expect(a.body.equals(b.body), String(acceptEncoding)).toBe(true);
        expect(a.headers['content-length']).toBe(String(a.body.length));
        encodings.add(a.headers['content-encoding']);
        const revalidate = { ...headers, 'if-none-match': String(a.headers.etag) };
        const [a304, b304] = [await raw(fast.url + path, revalidate), await raw(full.url + path, revalidate)];
        expect(fromMemory).toBe(before + 2);
        expect(a304.status).toBe(304);
        expect(b304.status).toBe(304);
        expect(comparableRaw(a304.headers)).toEqual(comparableRaw(b304.headers));
        expect(a304.headers['access-control-allow-origin']).toBe(ORIGIN);
      }
      expect(encodings).toEqual(new Set([undefined, 'br', 'gzip']));
    } finally {
      await Promise.all([fast.close(), full.close()]);
    }
  });

  it('leaves to the full pipeline, with memory warm, whatever memory cannot answer alone', async () => {
    const { key } = await newPublishableKey();
    const revoked = await newPublishableKey();
    const fromMemory = answerOf(t.app.configFromMemory);
    const widgetRequest = (secret: string, extra: Record<string, string> = {}, init: RequestInit = {}) =>
      new Request(URL_CONFIG, { ...init, headers: { ...widgetHeaders(secret), ...extra } });
    // The app's own memory is warm: both keys and their organization's configuration are there,
    // and a plain widget request is answered from memory.
    for (const secret of [key, revoked.key]) {
      expect((await t.app.fetch(widgetRequest(secret))).status).toBe(200);
      expect(fromMemory(widgetRequest(secret))?.status).toBe(200);
    }
    expect(await revokeApiKey(t.db, revoked.record.id)).toBe(true);

    const unknownKey = `pk_test_${'0'.repeat(32)}`;
    const sellerKey = t.seed.keys.sk_test_write;
    const cases: [string, () => Request, number, string | undefined][] = [
      [
        'another Service-Version',
        () => widgetRequest(key, { 'service-version': '2020-01-01' }),
        400,
        'invalid_request',
      ],
      ['HEAD', () => widgetRequest(key, {}, { method: 'HEAD' }), 200, undefined],
      ['a secret key', () => widgetRequest(sellerKey), 200, undefined],
      ['an unknown key', () => widgetRequest(unknownKey), 401, 'invalid_key'],
      ['a revoked key', () => widgetRequest(revoked.key), 401, 'invalid_key'],
      [
        'a foreign origin',
        () => widgetRequest(key, { origin: 'https://evil.example' }),
        403,
        'origin_not_allowed',
      ],
      [
        'a query string',
        () => new Request(`${URL_CONFIG}?x=1`, { headers: widgetHeaders(key) }),
        400,
        'invalid_request',
      ],
      ['no key', () => new Request(URL_CONFIG, { headers: { origin: ORIGIN } }), 401, 'missing_key'],
    ];
    for (const [what, request, status, code] of cases) {
      // The full pipeline answers first, so memory holds whatever it would learn from the request
      // (the secret key, the unknown key as unknown, the revoked key as revoked) ...
      const res = await t.app.fetch(request());
      if (code) await expectError(res, status, code);
      else expect(res.status, what).toBe(status);
      // ... and still the fast path leaves the request to it.
      expect(fromMemory(request()), what).toBeUndefined();
    }
    expect(fromMemory(widgetRequest(key))?.status).toBe(200);
  });

  it('builds a configuration once for all the requests that miss it at the same time', async () => {
    const { key } = await newPublishableKey();
    expect((await viaApp(key)).status).toBe(200);
    const configs = new ElementsConfigCache(t.db, t.deps.keys);
    const auth = t.deps.keys.peek(key)!;
    const built = await Promise.all(Array.from({ length: 20 }, () => configs.get(auth)));
    expect(new Set(built).size).toBe(1);
    expect(configs.peek(auth)).toBe(built[0]);
    expect(Object.keys(built[0]!.encoded).sort()).toEqual(['br', 'gzip']);
  });

  it('stops answering for a revoked key at once, though it had been answering from memory', async () => {
    const { key, record } = await newPublishableKey();
    expect((await viaApp(key)).status).toBe(200);
    expect((await viaApp(key)).status).toBe(200);
    expect(await revokeApiKey(t.db, record.id)).toBe(true);
    await expectError(await viaApp(key), 401, 'invalid_key');
  });

  it('applies a key’s IP allowlist on every request, as the full pipeline does, though memory holds it all', async () => {
    const { key } = await newPublishableKey({ ips: ['203.0.113.7'] });
    const from = (ip: string) => viaApp(key, { 'x-forwarded-for': ip });
    expect((await from('203.0.113.7')).status).toBe(200);
    expect((await from('203.0.113.7')).status).toBe(200);
    // Memory holds the key and its configuration now: still refused from anywhere else.
    const auth = t.deps.keys.peek(key)!;
    expect(
      t.app.configFromMemory({
        method: 'GET',
        target: '/api/v1/elements/config',
        header: (name) => widgetHeaders(key, { 'x-forwarded-for': '198.51.100.1' })[name as 'origin'],
      }),
    ).toBeUndefined();
    expect(auth.key.allowed_ips).toEqual(['203.0.113.7']);
    for (let i = 0; i < 3; i++) {
      const body = await expectError(await from('198.51.100.1'), 401, 'invalid_key');
      expect(body.error).toBe('The API key cannot be used from 198.51.100.1.');
    }
    expect((await from('203.0.113.7')).status).toBe(200);
  });

  it('stops answering for a key past its expiry, though memory still holds it', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const { key } = await newPublishableKey({ expiresAt });
    expect((await viaApp(key)).status).toBe(200);
    expect((await viaApp(key)).status).toBe(200);
    t.setNow(new Date(expiresAt.getTime() + 1));
    try {
      const body = await expectError(await viaApp(key), 401, 'invalid_key');
      expect(body.error).toMatch(/expired/);
    } finally {
      t.setNow(undefined);
    }
  });
});
