import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION } from '../config.js';
import { PUBLISHABLE_LIMITS } from '../services/limits.js';
import {
  comparable as comparableAnswer,
  newPublishableKey as newKey,
  serverWithSwitch as switchedServer,
} from '../testing/fast-paths.js';
import { createTestContext, type TestContext } from '../testing/harness.js';

let t: TestContext;
const ORIGIN = 'http://127.0.0.1:8787';
const PATH = '/api/v1/cotizaciones';
let laptopId: string;
beforeAll(async () => {
  t = await createTestContext();
  laptopId = t.seed.products.find((p) => p.sku === 'LAP-14')!.id;
});
afterAll(() => t.close());

const newPublishableKey = () => newKey(t, ORIGIN);
/** The widget's submission, a new client each time. */
const submission = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    items: [{ descripcion: 'Laptop', cantidad: 2, precio_unitario: 24500, producto_id: laptopId }],
    cliente: { empresa: `Visitante ${randomUUID()}`, email: `${randomUUID()}@example.com` },
    ...extra,
  });
let visitor = 0;
/** Another client address for each request, unless one is given: per-IP allowances stay out of the way. */
const nextIp = () => `203.0.113.${(visitor++ % 250) + 1}`;

const serverWithSwitch = () => switchedServer(t, t.app.submissionFromMemory, PATH);

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * Status, headers and body, without what differs by request: the request id and date, and in a
 * created quote what each creation gets anew (ids, folio, token, link, times, the client's name).
 */
async function comparable(res: Response) {
  const text = await res.clone().text();
  const { status, headers, body } = await comparableAnswer(res);
  if (status === 200) delete headers['content-length']; // the folio's and the name's widths
  const masked = JSON.stringify(body)
    .replace(UUID, '<uuid>')
    .replace(/"folio":"[^"]*"/g, '"folio":"<folio>"')
    .replace(/"(\w*(?:token|link|url)\w*)":"[^"]*"/g, '"$1":"<$1>"')
    .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z/g, '<time>');
  return { status, headers, body: JSON.parse(masked) as unknown, text };
}

describe('POST /cotizaciones from the widget, answered before routing', () => {
  it('answers every outcome as the full pipeline does, and replays either one byte for byte', async () => {
    const key = await newPublishableKey();
    const server = await serverWithSwitch();
    // A header given as '' is left out.
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(server.url, {
        method: 'POST',
        body,
        headers: Object.fromEntries(
          Object.entries({
            authorization: `Bearer ${key}`,
            origin: ORIGIN,
            'content-type': 'application/json',
            'x-forwarded-for': nextIp(),
            'idempotency-key': randomUUID(),
            ...headers,
          }).filter(([, value]) => value !== ''),
        ),
      });
    // What to send: a body (built anew for each path, each client new) and headers.
    const cases: [string, () => string, Record<string, string>, number][] = [
      ['a submission', () => submission(), {}, 200],
      ['a valid coupon', () => submission({ cupon: 'bienvenida10' }), {}, 200],
      ['an unknown coupon', () => submission({ cupon: 'NOPE' }), {}, 400],
      ['an exhausted coupon', () => submission({ cupon: 'AGOTADO' }), {}, 400],
      ["a price that is not the catalog's", () => submission().replace('24500', '24000'), {}, 400],
      ['an empty basket', () => JSON.stringify({ items: [] }), {}, 400],
      ['text that is not JSON', () => '{"items": [', {}, 400],
      ['bytes that are not UTF-8', () => '"\udc00"', {}, 400],
      [
        'a JSON content type with a charset',
        submission,
        { 'content-type': 'application/json; charset=utf-8' },
        200,
      ],
      ['the current Service-Version', submission, { 'service-version': API_VERSION }, 200],
      // Allowed by its Referer alone: no Origin, so no CORS headers (the pipeline's CORS needs one).
      ['a Referer and no Origin', submission, { origin: '', referer: `${ORIGIN}/tienda` }, 200],
    ];
    try {
      // The first request teaches memory the key; from then on the switch alone decides.
      expect((await post(submission())).status).toBe(200);
      for (const [what, body, headers, status] of cases) {
        const answers = [];
        for (const fast of [false, true]) {
          server.setFast(fast);
          const before = server.answered();
          const sent = body();
          const send = (idempotencyKey: string) =>
            post(sent, { ...headers, 'idempotency-key': idempotencyKey });
          const idempotencyKey = randomUUID();
          const first = await comparable(await send(idempotencyKey));
          expect(server.answered(), what).toBe(before + (fast ? 1 : 0));
          // The same key again, through the other path: the very bytes, marked as replayed.
          server.setFast(!fast);
          const again = await send(idempotencyKey);
          expect(again.headers.get('idempotent-replayed'), what).toBe('true');
          expect(await again.text(), what).toBe(first.text);
          answers.push(first);
        }
        const [full, fast] = answers;
        expect(full!.status, what).toBe(status);
        expect({ ...fast, text: '' }, what).toEqual({ ...full, text: '' });
      }
    } finally {
      await server.close();
    }
  });

  it('answers a key reused with another body 422, and a replay with CORS, as the pipeline does', async () => {
    const key = await newPublishableKey();
    const server = await serverWithSwitch();
    const post = (body: string, idempotencyKey: string) =>
      fetch(server.url, {
        method: 'POST',
        body,
        headers: {
          authorization: `Bearer ${key}`,
          origin: ORIGIN,
          'content-type': 'application/json',
          'x-forwarded-for': nextIp(),
          'idempotency-key': idempotencyKey,
        },
      });
    try {
      const idempotencyKey = randomUUID();
      server.setFast(true);
      expect((await post(submission(), idempotencyKey)).status).toBe(200);
      const answers = [];
      for (const fast of [false, true]) {
        server.setFast(fast);
        answers.push(await comparable(await post(submission(), idempotencyKey)));
      }
      const [full, fast] = answers;
      expect(full!.status).toBe(422);
      expect(full!.body).toMatchObject({ code: 'idempotency_key_reused' });
      expect(full!.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect({ ...fast, text: '' }).toEqual({ ...full, text: '' });
    } finally {
      await server.close();
    }
  });

  it("counts the visitor's allowance in the same counter, and answers 429 as the pipeline does", async () => {
    const key = await newPublishableKey();
    const server = await serverWithSwitch();
    const ip = '198.51.100.78';
    const post = () =>
      fetch(server.url, {
        method: 'POST',
        body: submission(),
        headers: {
          authorization: `Bearer ${key}`,
          origin: ORIGIN,
          'content-type': 'application/json',
          'x-forwarded-for': ip,
          'idempotency-key': randomUUID(),
        },
      });
    try {
      const { limit } = PUBLISHABLE_LIMITS.create;
      for (let i = 0; i < limit; i++) {
        server.setFast(i % 2 === 1);
        expect((await post()).status).toBe(200);
      }
      server.setFast(false);
      const full = await comparable(await post());
      server.setFast(true);
      const fast = await comparable(await post());
      expect(full.status).toBe(429);
      expect(full.body).toMatchObject({ code: 'rate_limited' });
      expect(full.headers['retry-after']).toMatch(/^\d+$/);
      expect({ ...fast, text: '', headers: { ...fast.headers, 'retry-after': '' } }).toEqual({
        ...full,
        text: '',
        headers: { ...full.headers, 'retry-after': '' },
      });
    } finally {
      await server.close();
    }
  });

  it('leaves to the full pipeline, with nothing counted, whatever it does not take', async () => {
    const key = await newPublishableKey();
    const server = await serverWithSwitch();
    server.setFast(true);
    const send = (headers: Record<string, string>) =>
      fetch(server.url, {
        method: 'POST',
        body: submission(),
        headers: {
          origin: ORIGIN,
          'content-type': 'application/json',
          'x-forwarded-for': nextIp(),
          authorization: `Bearer ${key}`,
          ...headers,
        },
      });
    try {
      expect((await send({ 'idempotency-key': randomUUID() })).status).toBe(200);
      const answered = server.answered();
      const cases: [string, () => Promise<Response>, number, string][] = [
        ['no Idempotency-Key', () => send({}), 200, ''],
        [
          'a malformed Idempotency-Key',
          () => send({ 'idempotency-key': 'a b' }),
          400,
          'invalid_idempotency_key',
        ],
        [
          'a secret key',
          () =>
            send({ authorization: `Bearer ${t.seed.keys.sk_test_write}`, 'idempotency-key': randomUUID() }),
          200,
          '',
        ],
        [
          'a foreign origin',
          () => send({ origin: 'https://evil.example', 'idempotency-key': randomUUID() }),
          403,
          'origin_not_allowed',
        ],
      ];
      for (const [what, request, status, code] of cases) {
        const res = await request();
        expect(res.status, what).toBe(status);
        if (code) expect(((await res.json()) as { code: string }).code, what).toBe(code);
        else await res.arrayBuffer();
      }
      expect(server.answered()).toBe(answered);
      // An organization with a payment plan: its creation's transaction stores the response.
      await t.db.query(
        `UPDATE orgs SET widget = widget || '{"plan_pagos": {"tipo": "anticipo", "porcentaje": 50}}' WHERE id = $1`,
        [t.seed.org.id],
      );
      t.deps.keys.invalidate(`org:${t.seed.org.id}`);
      try {
        // The first teaches memory the key again, the second finds it there.
        for (let i = 0; i < 2; i++) {
          expect((await send({ 'idempotency-key': randomUUID() })).status).toBe(200);
        }
        expect(server.answered()).toBe(answered);
      } finally {
        await t.db.query(`UPDATE orgs SET widget = widget - 'plan_pagos' WHERE id = $1`, [t.seed.org.id]);
        t.deps.keys.invalidate(`org:${t.seed.org.id}`);
      }
    } finally {
      await server.close();
    }
  });
});
