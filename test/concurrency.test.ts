import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from './support/postgres.js';
import { cli, type ServerProcess, startServerProcess } from './support/processes.js';

/**
 * Two server processes on one PostgreSQL: the guarantees that must hold across processes, not
 * just within one (coupon uses, idempotency, the per-key rate limit).
 */
describe('two server processes on one PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof createPgDatabase>>;
  let servers: ServerProcess[] = [];
  let seed: {
    keys: {
      sk_test_write: string;
      sk_test_read: string;
      pk_test: string;
      sk_live_write: string;
      pk_live: string;
    };
    org: { id: string };
    products: { id: string; sku: string }[];
  };

  beforeAll(async () => {
    database = await createPgDatabase('svc_conc');
    // Behind a proxy: widget requests say which visitor they come from (per-IP limits).
    const env = { DATABASE_URL: database.url, TRUST_PROXY: '1' };
    seed = JSON.parse((await cli(['seed', '--json'], env)).stdout);
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await database?.drop();
  });

  const laptop = () => ({
    descripcion: 'Laptop',
    cantidad: 1,
    precio_unitario: 24500,
    producto_id: seed.products[0]!.id,
  });
  /** A new key of the seeded organization, made with the CLI (`keys create … --json`). */
  const createKey = async (args: string[]) =>
    JSON.parse(
      (await cli(['keys', 'create', '--org', seed.org.id, ...args, '--json'], { DATABASE_URL: database.url }))
        .stdout,
    ) as { id: string; key: string };
  const post = (i: number, path: string, key: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${servers[i % 2]!.url}/api/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('lets exactly 3 of 200 concurrent creations use a 3-use coupon', async () => {
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        post(i, '/cotizaciones', seed.keys.sk_test_write, {
          items: [laptop()],
          cliente: { empresa: `Cliente ${i}` },
          cupon: 'PROMO500',
        }),
      ),
    );
    const bodies = await Promise.all(responses.map((r) => r.json()));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.every((s) => s === 200 || s === 400)).toBe(true);
    expect(bodies.filter((b) => b.code === 'invalid_request').every((b) => b.reason === 'exhausted')).toBe(
      true,
    );
    const list = await (
      await fetch(`${servers[0]!.url}/api/v1/cotizaciones?limit=200`, {
        headers: { authorization: `Bearer ${seed.keys.sk_test_read}` },
      })
    ).json();
    expect(list.meta.total).toBe(3);
  });

  it('creates all of 200 concurrent creations written in groups by both processes: one folio, event and coupon use each', async () => {
    const cliente = { empresa: 'Cliente Frecuente SA', email: 'compras@frecuente.example' };
    const body = { items: [laptop()], cliente, cupon: 'BIENVENIDA10' };
    // The client exists first: creations for known clients with an unlimited coupon are grouped.
    expect((await post(0, '/cotizaciones', seed.keys.sk_test_write, body)).status).toBe(200);
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const uses = async () =>
        (await db.query("SELECT uses FROM coupons WHERE code = 'BIENVENIDA10' AND mode = 'test'")).rows[0]
          .uses as number;
      const usesBefore = await uses();
      const responses = await Promise.all(
        Array.from({ length: 200 }, (_, i) => post(i, '/cotizaciones', seed.keys.sk_test_write, body)),
      );
      expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
      const created = (await Promise.all(responses.map((r) => r.json()))).map(
        (b) => b.data as { id: string; folio: string },
      );
      const folios = created.map((q) => Number(q.folio.slice(4))).sort((a, b) => a - b);
      expect(folios).toEqual(folios.map((_, i) => folios[0]! + i));
      expect(await uses()).toBe(usesBefore + 200);
      const { rows } = await db.query(
        `SELECT count(DISTINCT e.object_id)::int AS events, count(DISTINCT i.quote_id)::int AS with_lines,
           bool_and(e.data->>'folio' = q.folio) AS folios_match,
           count(DISTINCT q.created_at)::int AS statements
         FROM quotes q JOIN events e ON e.object_id = q.id AND e.type = 'quote.created'
           JOIN quote_items i ON i.quote_id = q.id
         WHERE q.id = ANY($1::uuid[])`,
        [created.map((q) => q.id)],
      );
      const { statements, ...counts } = rows[0];
      expect(counts).toEqual({ events: 200, with_lines: 200, folios_match: true });
      // Quotes written by one statement share its timestamp: grouping did take place.
      expect(statements).toBeLessThan(200);
    } finally {
      await db.end();
    }
  });

  it('holds the coupon limit for publishable keys from the widget too', async () => {
    // Live mode's PROMO500 also has 3 uses. Each of the 20 submissions comes from its own visitor:
    // from one address, its failed coupon attempts (10 per 10 minutes) would refuse some with 429.
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(
          i,
          '/cotizaciones',
          seed.keys.pk_live,
          {
            items: [{ descripcion: 'Diseño', cantidad: 1, precio_unitario: 9500 }],
            cliente: { empresa: `Web ${i}`, email: `web${i}@cliente.example` },
            cupon: 'PROMO500',
          },
          { origin: 'http://127.0.0.1:8787', 'x-forwarded-for': `198.51.100.${i + 1}` },
        ),
      ),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(3);
    const refusals = await Promise.all(responses.filter((r) => r.status !== 200).map((r) => r.json()));
    expect(refusals.map((b) => b.reason)).toEqual(Array(17).fill('exhausted'));
  });

  it('runs 50 concurrent requests with one idempotency key exactly once', async () => {
    // Live mode has its own catalog ids: a free-text line keeps the body simple.
    const body = {
      items: [{ descripcion: 'Consultoría', cantidad: 2, precio_unitario: 1450 }],
      cliente: { empresa: 'Idempotente SA' },
    };
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        post(i, '/cotizaciones', seed.keys.sk_live_write, body, { 'idempotency-key': 'one-quote' }),
      ),
    );
    const ok = responses.filter((r) => r.status === 200);
    const texts = await Promise.all(ok.map((r) => r.text()));
    expect(new Set(texts).size).toBe(1);
    for (const r of responses.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(409);
      expect((await r.json()).code).toBe('idempotency_in_progress');
    }
    const list = await (
      await fetch(`${servers[1]!.url}/api/v1/cotizaciones?limit=200`, {
        headers: { authorization: `Bearer ${seed.keys.sk_live_write}` },
      })
    ).json();
    expect(list.data.filter((q: { cliente: string }) => q.cliente === 'Idempotente SA')).toHaveLength(1);
    // A retry after the first finished is a byte-identical replay, on either process.
    const replay = await post(1, '/cotizaciones', seed.keys.sk_live_write, body, {
      'idempotency-key': 'one-quote',
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(texts[0]);
  });

  it("runs the widget's 50 concurrent submissions with one idempotency key exactly once, on both processes", async () => {
    // The widget's path takes no lock in the database: a duplicate on the other process waits on the
    // stored response's primary key while the first's statement runs, then replays its response.
    const laptopId = seed.products.find((p) => p.sku === 'LAP-14')!.id;
    const body = {
      items: [{ descripcion: 'Laptop', cantidad: 1, precio_unitario: 24500, producto_id: laptopId }],
      cliente: { empresa: 'Visitante Único', email: 'unico@widget.example' },
      cupon: 'BIENVENIDA10',
    };
    // Warm both processes' memory of the catalog and coupon, so the submissions take the one-statement path.
    for (const i of [0, 1]) {
      const warm = await post(
        i,
        '/cotizaciones',
        seed.keys.pk_test,
        { ...body, cliente: { empresa: `Calentar ${i}`, email: `calentar${i}@cliente.example` } },
        {
          origin: 'http://127.0.0.1:8787',
          'x-forwarded-for': `203.0.113.${200 + i}`,
          'idempotency-key': `warm-${i}`,
        },
      );
      expect(warm.status).toBe(200);
    }
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        post(i, '/cotizaciones', seed.keys.pk_test, body, {
          origin: 'http://127.0.0.1:8787',
          'x-forwarded-for': `203.0.113.${i + 1}`,
          'idempotency-key': 'one-widget-quote',
        }),
      ),
    );
    const ok = responses.filter((r) => r.status === 200);
    const texts = await Promise.all(ok.map((r) => r.text()));
    expect(new Set(texts).size).toBe(1);
    expect(ok.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    for (const r of responses.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(409);
      expect((await r.json()).code).toBe('idempotency_in_progress');
    }
    const admin = new pg.Client(database.url);
    await admin.connect();
    try {
      const { rows } = await admin.query(
        `SELECT (SELECT count(*)::int FROM clients WHERE email = 'unico@widget.example') AS clients,
           (SELECT count(*)::int FROM quotes q JOIN clients c ON c.id = q.cliente_id WHERE c.email = 'unico@widget.example') AS quotes,
           (SELECT count(*)::int FROM events WHERE type = 'quote.created' AND data->>'id' = $1) AS events`,
        [JSON.parse(texts[0]!).data.id],
      );
      expect(rows[0]).toEqual({ clients: 1, quotes: 1, events: 1 });
    } finally {
      await admin.end();
    }
  });

  it('stops serving the widget configuration to a revoked publishable key at once, on both processes', async () => {
    const created = await createKey([
      '--kind',
      'publishable',
      '--mode',
      'test',
      '--scope',
      'write',
      '--origin',
      'https://tienda.example',
    ]);
    const config = (i: number) =>
      fetch(`${servers[i]!.url}/api/v1/elements/config`, {
        headers: { authorization: `Bearer ${created.key}`, origin: 'https://tienda.example' },
      });
    // Twice on each process: the second answer comes from that process's memory.
    for (const i of [0, 1, 0, 1]) expect((await config(i)).status).toBe(200);
    await cli(['keys', 'revoke', created.id], { DATABASE_URL: database.url });
    // The revocation reaches both processes through LISTEN/NOTIFY; allow it to arrive.
    for (const i of [0, 1]) {
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 401; attempt++) {
        status = (await config(i)).status;
        if (status !== 401) await new Promise((r) => setTimeout(r, 20));
      }
      expect(status).toBe(401);
    }
  });

  it('counts the per-key rate limit once across both processes', async () => {
    const { key } = await createKey(['--kind', 'secret', '--mode', 'test', '--scope', 'read']);
    // Align to a fresh minute so the burst stays in one window.
    const msToWindow = 60_000 - (Date.now() % 60_000);
    if (msToWindow < 15_000) await new Promise((r) => setTimeout(r, msToWindow + 50));
    const statuses: number[] = [];
    for (let batch = 0; batch < 13; batch++) {
      const res = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          fetch(`${servers[i % 2]!.url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } }),
        ),
      );
      statuses.push(...res.map((r) => r.status));
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(600);
    expect(statuses.filter((s) => s === 429)).toHaveLength(50);
  });
});
