import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BatchedQuote } from '../repositories/quote-batch.js';
import { PLANS } from '../services/plans.js';
import { quoteWriter } from '../services/quote-writer.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { draftQuote } from '../testing/quote-fixtures.js';
import { fingerprintOf } from './idempotency.js';
import { StoredMeanwhile } from './idempotency-batched.js';

/**
 * The widget's idempotent creations go into group commit: the quote, its new client and the
 * stored response are written by one statement shared with other creations. Folios stay
 * consecutive, each response is stored once and replayed byte for byte, and a duplicate arriving
 * while its first is in a batch waits for it and replays it.
 */
let t: TestContext;
let laptopId: string;

beforeAll(async () => {
  // Each visitor from an address of its own, as in the field: the per-IP allowance is not under test.
  t = await createTestContext({ idempotencyStaleSeconds: 600, env: { TRUST_PROXY: '1' } });
  const [laptop] = await t.db.query<{ id: string }>(
    "SELECT id FROM products WHERE sku = 'LAP-14' AND mode = 'test' LIMIT 1",
  );
  laptopId = laptop!.id;
});
afterAll(() => t.close());

const submission = (visitor: string, cupon = 'BIENVENIDA10') => ({
  items: [{ descripcion: 'Laptop', cantidad: 1, precio_unitario: 24500, producto_id: laptopId }],
  cupon,
  cliente: { empresa: `Visitante ${visitor}`, email: `${visitor}@batch.example` },
});
const submit = (body: unknown, idem: string) =>
  t.call('POST', '/api/v1/cotizaciones', {
    key: t.seed.keys.pk_test,
    body,
    headers: {
      origin: 'http://127.0.0.1:8787',
      'idempotency-key': idem,
      'x-forwarded-for': visitorAddress(),
    },
  });
let visitors = 0;
const visitorAddress = () => `10.0.${Math.floor(++visitors / 250)}.${1 + (visitors % 250)}`;
const folioNumber = (folio: string) => Number(folio.replace(/^COT-/, ''));

describe('idempotent widget creations in group commit', () => {
  it('gives a burst consecutive folios, each created, stored and replayed exactly once', async () => {
    const burst = Array.from({ length: 16 }, () => ({ visitor: randomUUID(), idem: randomUUID() }));
    const firsts = burst.map(({ visitor, idem }) => submit(submission(visitor), idem));
    // A duplicate of one of them while its first is still being written.
    const duplicate = submit(submission(burst[5]!.visitor), burst[5]!.idem);
    const answers = await Promise.all(firsts);
    const texts = await Promise.all(answers.map((answer) => answer.text()));
    expect(answers.map((answer, i) => (answer.status === 200 ? 200 : texts[i]))).toEqual(
      burst.map(() => 200),
    );
    // The duplicate and its first ran concurrently: whichever took the key first created the quote,
    // and the other replayed it.
    const duplicateAnswer = await duplicate;
    expect(duplicateAnswer.status).toBe(200);
    expect(await duplicateAnswer.text()).toBe(texts[5]);
    const replayed = [...answers, duplicateAnswer].map((answer) => answer.headers.get('idempotent-replayed'));
    expect(replayed.filter((header) => header === 'true')).toHaveLength(1);
    expect(replayed.filter((header) => header === null)).toHaveLength(16);

    const folios = texts.map((text) => folioNumber(JSON.parse(text).data.folio as string));
    const sorted = [...folios].sort((a, b) => a - b);
    expect(sorted).toEqual(sorted.map((_, i) => sorted[0]! + i));

    const ids = texts.map((text) => JSON.parse(text).data.id as string);
    const [counts] = await t.db.query<{
      quotes: number;
      clients: number;
      quote_events: number;
      client_events: number;
    }>(
      `SELECT (SELECT count(*)::int FROM quotes WHERE id = ANY($1::uuid[])) AS quotes,
         (SELECT count(*)::int FROM clients WHERE email LIKE '%@batch.example' AND email = ANY($2::text[])) AS clients,
         (SELECT count(*)::int FROM events WHERE type = 'quote.created' AND object_id = ANY($1::uuid[])) AS quote_events,
         (SELECT count(*)::int FROM events e JOIN quotes q ON q.cliente_id = e.object_id
            WHERE e.type = 'client.created' AND q.id = ANY($1::uuid[])) AS client_events`,
      [ids, burst.map(({ visitor }) => `${visitor}@batch.example`)],
    );
    expect(counts).toEqual({ quotes: 16, clients: 16, quote_events: 16, client_events: 16 });
    // Written in groups: quotes of one statement share its transaction.
    const [{ statements }] = (await t.db.query<{ statements: number }>(
      'SELECT count(DISTINCT xmin::text)::int AS statements FROM quotes WHERE id = ANY($1::uuid[])',
      [ids],
    )) as [{ statements: number }];
    expect(statements).toBeLessThan(16);

    // Every retry replays its own first answer, byte for byte.
    for (const [i, { visitor, idem }] of burst.entries()) {
      const replay = await submit(submission(visitor), idem);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await replay.text()).toBe(texts[i]);
    }
  });

  it('never uses a limited coupon past its limit, and stores each refusal for its retry', async () => {
    await t.db.query(
      `INSERT INTO coupons (org_id, mode, code, tipo, valor, max_uses) VALUES ($1, 'test', 'DOSUSOS', 'porcentaje', 5, 2)`,
      [t.seed.org.id],
    );
    const burst = Array.from({ length: 6 }, () => ({ visitor: randomUUID(), idem: randomUUID() }));
    const answers = await Promise.all(
      burst.map(({ visitor, idem }) => submit(submission(visitor, 'DOSUSOS'), idem)),
    );
    const texts = await Promise.all(answers.map((answer) => answer.text()));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(2);
    expect(answers.filter((answer) => answer.status === 400)).toHaveLength(4);
    const [coupon] = await t.db.query<{ uses: number }>("SELECT uses FROM coupons WHERE code = 'DOSUSOS'");
    expect(coupon!.uses).toBe(2);
    for (const [i, { visitor, idem }] of burst.entries()) {
      const replay = await submit(submission(visitor, 'DOSUSOS'), idem);
      expect(replay.status).toBe(answers[i]!.status);
      expect(await replay.text()).toBe(texts[i]);
    }
  });

  it('writes nothing for a creation whose response a duplicate stored meanwhile, and the rest of its batch', async () => {
    // As if a duplicate on another process ran while this one's lock was lost with its connection.
    const taken = randomUUID();
    await t.db.query(
      `INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, state, response_status, response_body, response_type)
       SELECT id, $1, 'elsewhere', 'done', 200, '{}', 'application/json' FROM api_keys WHERE mode = 'test' AND kind = 'publishable' LIMIT 1`,
      [taken],
    );
    const [{ key_id: keyId }] = (await t.db.query<{ key_id: string }>(
      'SELECT key_id FROM idempotency_keys WHERE idempotency_key = $1',
      [taken],
    )) as [{ key_id: string }];
    const [client] = await t.db.query<{ id: string; empresa: string }>(
      "SELECT id, empresa FROM clients WHERE mode = 'test' AND org_id = $1 LIMIT 1",
      [t.seed.org.id],
    );
    const writer = quoteWriter(t.db);
    const quote = (idem: string): BatchedQuote => {
      const id = randomUUID();
      return {
        id,
        quote: draftQuote({
          org_id: t.seed.org.id,
          cliente_id: client!.id,
          cliente_nombre: client!.empresa,
          subtotal: 100,
          impuestos: 16,
          total: 116,
        }),
        items: [],
        eventData: {},
        coupon: null,
        stored: {
          keyId,
          idempotencyKey: idem,
          fingerprint: 'here',
          status: 200,
          body: '{"folio":"@@f@@"}',
          type: 'application/json',
          folioToken: '"@@f@@"',
        },
      };
    };
    const free = randomUUID();
    const [lost, won] = await Promise.allSettled([
      writer.insertIdempotent(quote(taken), new Date()),
      writer.insertIdempotent(quote(free), new Date()),
    ]);
    expect(lost.status === 'rejected' && lost.reason instanceof StoredMeanwhile).toBe(true);
    expect(won.status).toBe('fulfilled');
    const rows = await t.db.query<{ idempotency_key: string; fingerprint: string; response_body: string }>(
      'SELECT idempotency_key, fingerprint, response_body FROM idempotency_keys WHERE idempotency_key = ANY($1::text[]) ORDER BY fingerprint',
      [[taken, free]],
    );
    const folio = won.status === 'fulfilled' ? won.value!.folio : '';
    expect(rows).toEqual([
      { idempotency_key: taken, fingerprint: 'elsewhere', response_body: '{}' },
      { idempotency_key: free, fingerprint: 'here', response_body: JSON.stringify({ folio }) },
    ]);
  });

  it('replays a response a duplicate stored meanwhile, through either path, logging no error', async () => {
    const errors = vi.spyOn(t.deps.logger, 'error');
    try {
      for (const path of ['pipeline', 'fast path'] as const) {
        const idem = randomUUID();
        const body = JSON.stringify(submission(randomUUID()));
        // As if a duplicate on another process stored its answer while this one was on its way.
        const stored = JSON.stringify({ data: { folio: `stored by a duplicate (${path})` } });
        await t.db.query(
          `INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, state, response_status, response_body, response_type)
           SELECT id, $1, $2, 'done', 200, $3, 'application/json' FROM api_keys WHERE mode = 'test' AND kind = 'publishable' AND org_id = $4`,
          [
            idem,
            fingerprintOf('POST', '/api/v1/cotizaciones', new TextEncoder().encode(body)),
            stored,
            t.seed.org.id,
          ],
        );
        const request = new Request('http://svc.test/api/v1/cotizaciones', {
          method: 'POST',
          body,
          headers: {
            authorization: `Bearer ${t.seed.keys.pk_test}`,
            'content-type': 'application/json',
            origin: 'http://127.0.0.1:8787',
            'idempotency-key': idem,
            'x-forwarded-for': visitorAddress(),
          },
        });
        const answer = await (path === 'pipeline'
          ? t.app.fetchThroughPipeline(request)
          : t.app.fetch(request));
        expect(answer.headers.get('idempotent-replayed'), path).toBe('true');
        expect(await answer.text(), path).toBe(stored);
      }
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });

  describe('from memory, with a client presumed new', () => {
    // A first submission leaves the catalog and the coupon in memory: the next are priced from it,
    // their client presumed new, and written by one statement that checks the presumption.
    beforeAll(async () => {
      expect((await submit(submission(randomUUID()), randomUUID())).status).toBe(200);
    });

    it('writes the quote for a client that exists after all (made by another process), not a second one', async () => {
      const visitor = randomUUID();
      const [existing] = await t.db.query<{ id: string }>(
        `INSERT INTO clients (org_id, mode, empresa, email) VALUES ($1, 'test', 'Ya Existente', $2) RETURNING id`,
        [t.seed.org.id, `${visitor.toUpperCase()}@batch.example`],
      );
      const answer = await submit(submission(visitor), randomUUID());
      expect(answer.status).toBe(200);
      const { data } = (await answer.json()) as { data: { id: string } };
      const [quote] = await t.db.query<{ cliente_id: string }>(
        'SELECT cliente_id FROM quotes WHERE id = $1',
        [data.id],
      );
      expect(quote!.cliente_id).toBe(existing!.id);
      const clients = await t.db.query('SELECT id FROM clients WHERE lower(email) = lower($1)', [
        `${visitor}@batch.example`,
      ]);
      expect(clients).toHaveLength(1);
    });

    it("refuses a new client past the plan's limit, and writes nothing", async () => {
      const [{ plan }] = (await t.db.query<{ plan: string }>('SELECT plan FROM orgs WHERE id = $1', [
        t.seed.org.id,
      ])) as [{ plan: keyof typeof PLANS }];
      // A stripe of the count that fills the plan, as if other sessions had added the rest.
      await t.db.query(
        `INSERT INTO client_counts (org_id, mode, stripe, n)
         SELECT $1, 'test', 99, $2 - coalesce(sum(n), 0) FROM client_counts WHERE org_id = $1 AND mode = 'test'`,
        [t.seed.org.id, PLANS[plan].maxClients],
      );
      try {
        const visitor = randomUUID();
        const quotes = (await t.db.query('SELECT id FROM quotes')).length;
        const answer = await submit(submission(visitor), randomUUID());
        expect(answer.status).toBe(402);
        expect(((await answer.json()) as { code: string }).code).toBe('plan_limit_reached');
        expect(await t.db.query('SELECT id FROM quotes')).toHaveLength(quotes);
        expect(
          await t.db.query('SELECT id FROM clients WHERE email = $1', [`${visitor}@batch.example`]),
        ).toEqual([]);
      } finally {
        await t.db.query("DELETE FROM client_counts WHERE org_id = $1 AND mode = 'test' AND stripe = 99", [
          t.seed.org.id,
        ]);
      }
    });

    it('runs again a key whose stored response expired, replacing it', async () => {
      const idem = randomUUID();
      const [key] = await t.db.query<{ id: string }>(
        "SELECT id FROM api_keys WHERE mode = 'test' AND kind = 'publishable' AND org_id = $1 LIMIT 1",
        [t.seed.org.id],
      );
      await t.db.query(
        `INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, state, response_status, response_body, response_type, created_at)
         VALUES ($1, $2, 'long ago', 'done', 200, '{"old":true}', 'application/json', now() - interval '24 hours 30 minutes')`,
        [key!.id, idem],
      );
      const answer = await submit(submission(randomUUID()), idem);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('idempotent-replayed')).toBeNull();
      const text = await answer.text();
      expect(JSON.parse(text).data.folio).toMatch(/^COT-/);
      const rows = await t.db.query<{ fingerprint: string; response_body: string }>(
        'SELECT fingerprint, response_body FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2',
        [key!.id, idem],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]!.fingerprint).not.toBe('long ago');
      expect(rows[0]!.response_body).toBe(text);
    });

    it('replays a live stored response instead of writing, and refuses its key with another body', async () => {
      const visitor = randomUUID();
      const idem = randomUUID();
      const first = await submit(submission(visitor), idem);
      expect(first.status).toBe(200);
      const text = await first.text();
      const quotes = (await t.db.query('SELECT id FROM quotes')).length;
      const again = await submit(submission(visitor), idem);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await again.text()).toBe(text);
      const other = await submit(submission(randomUUID()), idem);
      expect(other.status).toBe(422);
      expect(((await other.json()) as { code: string }).code).toBe('idempotency_key_reused');
      expect(await t.db.query('SELECT id FROM quotes')).toHaveLength(quotes);
    });
  });
});
