import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPublishableKey } from '../testing/fast-paths.js';
import { createTestContext, type TestContext } from '../testing/harness.js';

// Creations naming the same new client at the same moment (a merchant's import sending a new
// customer's quotes in parallel, a visitor's two tabs) find no client, each of them: the client is
// created once, and every quote is its.

let t: TestContext;
const ORIGIN = 'http://127.0.0.1:8787';
let pk: string;
let laptopId: string;
beforeAll(async () => {
  t = await createTestContext();
  pk = await newPublishableKey(t, ORIGIN);
  // A business that asks the widget's visitors for their company name only: a client found by it.
  await t.db.query(`UPDATE orgs SET widget = widget || '{"required_client_fields": []}' WHERE id = $1`, [
    t.seed.org.id,
  ]);
  t.deps.keys.invalidate(`org:${t.seed.org.id}`);
  laptopId = t.seed.products.find((p) => p.sku === 'LAP-14')!.id;
});
afterAll(() => t.close());

type Json = Record<string, any>;
const basket = () => [{ descripcion: 'Laptop', cantidad: 1, precio_unitario: 24500, producto_id: laptopId }];

const secret = (cliente: Json) =>
  t.call('POST', '/api/v1/cotizaciones', {
    key: t.seed.keys.sk_test_write,
    body: { cliente, items: basket() },
  });
/** As the widget sends it: a publishable key, its origin, a coupon and an Idempotency-Key each. */
const widget = (cliente: Json) =>
  t.call('POST', '/api/v1/cotizaciones', {
    key: pk,
    body: { cliente, items: basket(), cupon: 'BIENVENIDA10' },
    headers: { origin: ORIGIN, 'idempotency-key': randomUUID() },
  });

async function clientsOf(quoteIds: string[]) {
  return t.db.query<{ cliente_id: string }>(
    'SELECT DISTINCT cliente_id FROM quotes WHERE id = ANY($1::uuid[])',
    [quoteIds],
  );
}

describe('a new client named by concurrent creations', () => {
  for (const [how, create] of [
    ['with a secret key', secret],
    ['from the widget', widget],
  ] as const) {
    for (const by of ['email', 'empresa'] as const) {
      it(`is created once ${how}, found by ${by === 'email' ? 'e-mail' : 'company name'}`, async () => {
        const tag = randomUUID().slice(0, 8);
        const empresa = `Paralela ${tag} SA`;
        const email = `compras-${tag}@paralela.example`;
        // The same client as each request writes it: e-mail and name in any case.
        const named = (i: number): Json =>
          by === 'email'
            ? { empresa: `${empresa} ${i}`, email: i % 2 ? email.toUpperCase() : email }
            : { empresa: i % 2 ? empresa.toUpperCase() : empresa };
        const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => create(named(i))));
        const bodies = (await Promise.all(responses.map((res) => res.json()))) as Json[];
        expect(responses.map((res) => res.status)).toEqual(Array(6).fill(200));

        const quoteIds = bodies.map((body) => body.data.id as string);
        const owners = await clientsOf(quoteIds);
        expect(owners).toHaveLength(1);
        const clients = await t.db.query<{ id: string }>(
          by === 'email'
            ? 'SELECT id FROM clients WHERE org_id = $1 AND lower(email) = lower($2)'
            : 'SELECT id FROM clients WHERE org_id = $1 AND lower(empresa) = lower($2)',
          [t.seed.org.id, by === 'email' ? email : empresa],
        );
        expect(clients).toEqual([{ id: owners[0]!.cliente_id }]);
        const created = await t.db.query(
          `SELECT 1 FROM events WHERE type = 'client.created' AND object_id = $1`,
          [owners[0]!.cliente_id],
        );
        expect(created).toHaveLength(1);
      });
    }
  }
});
