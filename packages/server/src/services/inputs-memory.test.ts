import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, statementsDuring } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { inputsMemory, MAX_REMEMBERED } from './inputs-memory.js';

let t: TestContext;
let laptopId: string;
beforeAll(async () => {
  t = await createTestContext();
  laptopId = t.seed.products.find((p) => p.sku === 'LAP-14')!.id;
});
afterAll(() => t.close());

type Json = Record<string, unknown>;

/** A creation with the secret key, for `empresa`, of two catalog laptops with BIENVENIDA10. */
async function create(
  empresa: string,
  extra: Json = {},
  headers: Record<string, string> = {},
): Promise<Response> {
  return t.call('POST', '/api/v1/cotizaciones', {
    key: t.seed.keys.sk_test_write,
    headers,
    body: {
      items: [{ descripcion: 'Laptop', cantidad: 2, precio_unitario: 24500, producto_id: laptopId }],
      cliente: { empresa, email: `${empresa.toLowerCase().replaceAll(' ', '.')}@memoria.example` },
      cupon: 'BIENVENIDA10',
      ...extra,
    },
  });
}

async function created(
  empresa: string,
  headers: Record<string, string> = {},
): Promise<{ id: string; total: number }> {
  const res = await create(empresa, {}, headers);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { id: string; total: number } }).data;
}

const stored = async (id: string) =>
  (
    await t.db.query<{
      subtotal: number;
      descuento: number;
      impuestos: number;
      terminos_codigo: string | null;
    }>('SELECT subtotal, descuento, impuestos, terminos_codigo FROM quotes WHERE id = $1', [id])
  )[0]!;

/** Counts the statements the app sends while `fn` runs. */
const statementCount = async (fn: () => Promise<unknown>) => (await statementsDuring(t.db, fn)).length;

describe('creating a quote with inputs from memory', () => {
  it('creates a quote naming a client, products and a coupon read before without reading them', async () => {
    // The first creation reads the products and the coupon, and writes.
    await created('Memoria Cero');
    // A new client is presumed new, priced from memory and written by one statement, which checks it.
    const counts: number[] = [];
    for (let i = 0; i < 4; i++) counts.push(await statementCount(() => created('Memoria Uno')));
    // The second names that client, now not new: its statement leaves it out, it is read, and
    // written; from the third on it is remembered, and written by one statement again.
    expect(counts[1]).toBe(counts[0]! + 2);
    expect(counts[2]).toBe(counts[0]);
    expect(counts[3]).toBe(counts[0]);
    const clients = await t.db.query("SELECT id FROM clients WHERE email = 'memoria.uno@memoria.example'");
    expect(clients).toHaveLength(1);
  });

  it('does the same for an idempotent creation (the widget sends a key with each), inside its transaction', async () => {
    const idempotent = () => created('Memoria Cuatro', { 'idempotency-key': randomUUID() });
    const counts: number[] = [];
    for (let i = 0; i < 3; i++) counts.push(await statementCount(idempotent));
    // Presumed new, then found and read, then remembered (as above).
    expect(counts[1]).toBe(counts[0]! + 2);
    expect(counts[2]).toBe(counts[0]);
    // Rolled back with its transaction when the request fails after the write: nothing is left.
    const quotes = (await t.db.query('SELECT id FROM quotes')).length;
    await expect(
      t.db.transaction(async () => {
        await idempotent();
        throw new Error('after the write');
      }),
    ).rejects.toThrow('after the write');
    expect(await t.db.query('SELECT id FROM quotes')).toHaveLength(quotes);
  });

  it('sees at once what changed since, made by any process: the product, the client, the coupon', async () => {
    await created('Memoria Dos');
    const taxed = await stored((await created('Memoria Dos')).id);
    expect(taxed.impuestos).toBeGreaterThan(0);
    // Written straight to the database, as another process would: this one is not told.
    await t.db.query('UPDATE products SET tax_rate = 0 WHERE id = $1', [laptopId]);
    expect((await stored((await created('Memoria Dos')).id)).impuestos).toBe(0);

    await t.db.query(
      `UPDATE clients SET terminos = 'CONTADO' WHERE lower(email) = 'memoria.dos@memoria.example'`,
    );
    const cash = await created('Memoria Dos');
    expect((await stored(cash.id)).terminos_codigo).toBe('CONTADO');

    await t.db.query("UPDATE coupons SET valor = 20 WHERE code = 'BIENVENIDA10' AND mode = 'test'");
    try {
      const twenty = await stored((await created('Memoria Dos')).id);
      expect(twenty.descuento).toBe(twenty.subtotal * 0.2);
    } finally {
      await t.db.query("UPDATE coupons SET valor = 10 WHERE code = 'BIENVENIDA10' AND mode = 'test'");
      await t.db.query('UPDATE products SET tax_rate = 0.16 WHERE id = $1', [laptopId]);
    }
  });

  it('refuses as before what memory would have allowed: a product deactivated, a coupon turned off', async () => {
    await created('Memoria Tres');
    await created('Memoria Tres');
    const quotesBefore = await t.db.query('SELECT id FROM quotes');
    await t.db.query('UPDATE products SET activo = false WHERE id = $1', [laptopId]);
    try {
      const res = await create('Memoria Tres');
      expect(res.status).toBe(400);
    } finally {
      await t.db.query('UPDATE products SET activo = true WHERE id = $1', [laptopId]);
    }
    await t.db.query("UPDATE coupons SET active = false WHERE code = 'BIENVENIDA10' AND mode = 'test'");
    try {
      const error = await expectError(await create('Memoria Tres'), 400, 'invalid_request');
      expect(error.reason).toBe('inactive');
    } finally {
      await t.db.query("UPDATE coupons SET active = true WHERE code = 'BIENVENIDA10' AND mode = 'test'");
    }
    expect(await t.db.query('SELECT id FROM quotes')).toHaveLength(quotesBefore.length);
  });

  it('keeps nothing a request did not find, and at most a bounded number of entries', async () => {
    const memory = inputsMemory(t.db);
    const scope = { orgId: t.seed.org.id, mode: 'test' };
    const known = {
      client: { empresa: 'Memoria Uno', email: 'memoria.uno@memoria.example' },
      productIds: [laptopId],
      couponCode: 'BIENVENIDA10',
    };
    await created('Memoria Uno');
    expect(memory.recall(scope, known)).toBeDefined();
    await expectError(await create('Memoria Uno', { cupon: 'NOEXISTE' }), 400, 'invalid_request');
    expect(memory.recall(scope, { ...known, couponCode: 'NOEXISTE' })).toBeUndefined();
    expect(memory.recall({ ...scope, mode: 'live' }, known)).toBeUndefined();
    // Filling one map past its bound starts it over.
    for (let i = 0; i < MAX_REMEMBERED; i++) {
      const code = `LLENO${i}`;
      memory.remember(
        scope,
        { ...known, couponCode: code },
        {
          client: undefined,
          clientCount: 0,
          products: new Map(),
          coupon: {
            id: `c${i}`,
            code,
            tipo: 'porcentaje',
            valor: 1,
            moneda: null,
            max_uses: null,
            uses: 0,
            expires_at: null,
            active: true,
          },
          versions: { client: null, products: new Map() },
        },
      );
    }
    expect(memory.recall(scope, known)).toBeUndefined();
    expect(memory.recall(scope, { ...known, couponCode: `LLENO${MAX_REMEMBERED - 1}` })).toBeDefined();
  });
});
