import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Queryable } from '../db/database.js';
import { splitStatements } from '../db/migrate.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { countClients } from './clients.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

/** Every organization's count as kept, next to the count of its rows. */
const kept = () =>
  t.db.query<{ org_id: string; mode: string; kept: number; rows: number }>(
    `SELECT c.org_id, c.mode, coalesce(k.n, 0) AS kept, c.rows FROM
       (SELECT o.id AS org_id, m.mode, (SELECT count(*)::int FROM clients
          WHERE clients.org_id = o.id AND clients.mode = m.mode) AS rows
        FROM orgs o, (VALUES ('test'), ('live')) AS m(mode)) c
     LEFT JOIN (SELECT org_id, mode, sum(n)::int AS n FROM client_counts GROUP BY org_id, mode) k
       ON k.org_id = c.org_id AND k.mode = c.mode`,
  );
const scope = () => ({ orgId: t.seed.org.id, mode: 'test' });

describe('client counts (migrations 013 and 023)', () => {
  it('follow every insert and delete of clients, one statement of many rows included', async () => {
    const before = await countClients(t.db, scope());
    await t.db.query(
      `INSERT INTO clients (org_id, mode, empresa) SELECT $1, 'test', 'Contado ' || i FROM generate_series(1, 5) i`,
      [t.seed.org.id],
    );
    expect(await countClients(t.db, scope())).toBe(before + 5);
    await t.db.query("DELETE FROM clients WHERE org_id = $1 AND empresa IN ('Contado 1', 'Contado 2')", [
      t.seed.org.id,
    ]);
    expect(await countClients(t.db, scope())).toBe(before + 3);
    for (const row of await kept()) expect(row.kept).toBe(row.rows);
  });

  it('follow the API: a creation with a new client, POST /clientes, and a test-data reset', async () => {
    const key = t.seed.keys.sk_test_write;
    const before = await countClients(t.db, scope());
    const created = await t.call('POST', '/api/v1/cotizaciones', {
      key,
      body: {
        items: [{ descripcion: 'Laptop', cantidad: 1, precio_unitario: 24500 }],
        cliente: { empresa: 'Nuevo Conteo SA', email: 'conteo@nuevo.example' },
      },
    });
    expect(created.status).toBe(200);
    const direct = await t.call('POST', '/api/v1/clientes', { key, body: { empresa: 'Directo SA' } });
    expect(direct.status).toBe(200);
    expect(await countClients(t.db, scope())).toBe(before + 2);
    const list = (await (await t.call('GET', '/api/v1/clientes', { key })).json()) as {
      meta: { total: number };
    };
    expect(list.meta.total).toBe(before + 2);
    expect((await t.call('POST', '/api/test-mode/reset', { key })).status).toBe(200);
    for (const row of await kept()) expect(row.kept).toBe(row.rows);
    expect(await countClients(t.db, scope())).toBe(
      (
        await t.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM clients WHERE org_id = $1 AND mode = 'test'",
          [t.seed.org.id],
        )
      )[0]!.n,
    );
  });
});

describe('splitStatements', () => {
  it('keeps a function body whole and drops comment lines outside it', () => {
    const sql = `-- a comment
CREATE TABLE a (id int);
CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- kept: inside the body
  UPDATE a SET id = 1;
  RETURN NULL;
END
$$;
DROP TABLE a;`;
    expect(splitStatements(sql)).toEqual([
      'CREATE TABLE a (id int)',
      'CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n  -- kept: inside the body\n  UPDATE a SET id = 1;\n  RETURN NULL;\nEND\n$$',
      'DROP TABLE a',
    ]);
  });

  // PGlite runs one transaction at a time: nothing to wait for there.
  it.runIf(inject('testDb') === 'postgres')(
    'let concurrent transactions add clients without waiting for one another',
    async () => {
      const stripeOf = async (tx: Queryable) =>
        Number((await tx.query<{ stripe: string }>('SELECT txid_current() % 16 AS stripe'))[0]!.stripe);
      const insert = (tx: Queryable, empresa: string) =>
        tx.query("INSERT INTO clients (org_id, mode, empresa) VALUES ($1, 'test', $2)", [
          t.seed.org.id,
          empresa,
        ]);
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let began!: (stripe: number) => void;
      const first = new Promise<number>((resolve) => {
        began = resolve;
      });
      const open = t.db.transaction(async (tx) => {
        const stripe = await stripeOf(tx);
        await insert(tx, 'Franja Abierta');
        began(stripe);
        await held;
      });
      try {
        const stripeA = await first;
        let added = false;
        // Another transaction (another stripe: one in 16 shares it, then the next is taken) adds its
        // client while the first is open; with one row per organization it would wait for it.
        for (let attempt = 0; attempt < 4 && !added; attempt++) {
          added = await t.db.transaction(async (tx) => {
            if ((await stripeOf(tx)) === stripeA) return false;
            await tx.query("SET LOCAL lock_timeout = '1s'");
            await insert(tx, `Franja Cerrada ${attempt}`);
            return true;
          });
        }
        expect(added).toBe(true);
      } finally {
        release();
        await open;
      }
      for (const row of await kept()) expect(row.kept).toBe(row.rows);
    },
  );
});
