import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../services/api-keys.js';
import { expectError, until } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';

let t: TestContext;
let sk: string;
beforeAll(async () => {
  t = await createTestContext();
  sk = t.seed.keys.sk_test_write;
});
afterAll(() => t.close());

type Json = Record<string, any>;
const json = async (res: Response) => (await res.json()) as Json;

/** A new Free organization with `clients` clients in test mode, a test key, and a row count of its own. */
async function freeOrgWithClients(nombre: string, clients: number) {
  const { createOrg } = await import('../services/orgs.js');
  const org = await createOrg(t.db, { nombre, plan: 'free' });
  const { key } = await createApiKey(t.db, { orgId: org.id, kind: 'secret', mode: 'test', scope: 'write' });
  await t.db.query(
    `INSERT INTO clients (org_id, mode, empresa) SELECT $1, 'test', 'C' || g FROM generate_series(1, $2::int) g`,
    [org.id, clients],
  );
  const count = async (table: string) =>
    (
      await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE org_id = $1`, [org.id])
    )[0]!.n;
  return { org, key, count };
}

describe('clients', () => {
  it('creates, reads, lists and updates clients, with their events', async () => {
    const created = await t.call('POST', '/api/v1/clientes', {
      key: sk,
      body: {
        empresa: 'Papelería Luna',
        email: 'hola@luna.example',
        fiscal: { country: 'MX', tax_id: 'LUN010101AAA' },
      },
    });
    expect(created.status).toBe(200);
    const client = (await json(created)).data;
    expect(client).toMatchObject({ empresa: 'Papelería Luna', rfc: 'LUN010101AAA', country_code: 'MX' });
    expect((await json(await t.call('GET', `/api/v1/clientes/${client.id}`, { key: sk }))).data.id).toBe(
      client.id,
    );
    const list = await json(await t.call('GET', '/api/v1/clientes?limit=5', { key: sk }));
    expect(list.data.map((c: Json) => c.id)).toContain(client.id);
    expect(list.meta).toMatchObject({ limit: 5, offset: 0 });
    const patched = await json(
      await t.call('PATCH', `/api/v1/clientes/${client.id}`, {
        key: sk,
        body: { telefono: '+52 55 1234 5678', contacto: 'Ana' },
      }),
    );
    expect(patched.data).toMatchObject({
      telefono: '+52 55 1234 5678',
      contacto: 'Ana',
      email: 'hola@luna.example',
    });
    expect(client.object).toBe('client');
    expect(patched.data.object).toBe('client');
    // An empty patch changes nothing and records no change; a phone needs its prefix, as on creation.
    const unchanged = await json(
      await t.call('PATCH', `/api/v1/clientes/${client.id}`, { key: sk, body: {} }),
    );
    expect(unchanged.data).toEqual(patched.data);
    await expectError(
      await t.call('PATCH', `/api/v1/clientes/${client.id}`, { key: sk, body: { telefono: '5512345678' } }),
      400,
      'invalid_request',
    );
    // Empty text is refused as on creation (null clears a field), never stored as "".
    for (const body of [{ contacto: '' }, { contacto: '   ' }, { rfc: '' }]) {
      const refused = await expectError(
        await t.call('PATCH', `/api/v1/clientes/${client.id}`, { key: sk, body }),
        400,
        'invalid_request',
      );
      expect(refused.error).toMatch(new RegExp(`^${Object.keys(body)[0]}: `));
    }
    const cleared = await json(
      await t.call('PATCH', `/api/v1/clientes/${client.id}`, { key: sk, body: { contacto: null } }),
    );
    expect(cleared.data.contacto).toBeNull();
    const events = await json(await t.call('GET', `/api/v1/events?object_id=${client.id}`, { key: sk }));
    // The patch, then the clearing of contacto.
    expect(events.data.map((e: Json) => e.type)).toEqual([
      'client.updated',
      'client.updated',
      'client.created',
    ]);
    expect(events.data[0].data).toMatchObject({
      object: 'client',
      id: client.id,
      empresa: 'Papelería Luna',
      telefono: '+52 55 1234 5678',
    });
  });

  it('refuses bad client data with 400 naming the field, and unknown ids with 404', async () => {
    await expectError(
      await t.call('POST', '/api/v1/clientes', { key: sk, body: { email: 'x@y.example' } }),
      400,
      'invalid_request',
    );
    await expectError(
      await t.call('POST', '/api/v1/clientes', { key: sk, body: { empresa: 'A', email: 'not-mail' } }),
      400,
      'invalid_request',
    );
    await expectError(
      await t.call('POST', '/api/v1/clientes', { key: sk, body: { empresa: 'A', bogus: 1 } }),
      400,
      'invalid_request',
    );
    await expectError(
      await t.call('PATCH', '/api/v1/clientes/00000000-0000-4000-8000-000000000000', {
        key: sk,
        body: { contacto: 'x' },
      }),
      404,
      'not_found',
    );
    await expectError(await t.call('GET', '/api/v1/clientes/nope', { key: sk }), 404, 'not_found');
  });

  it('stops at the plan limit with 402 plan_limit_reached', async () => {
    const key = t.seed.free_org.keys.sk_test_write;
    const { PLANS } = await import('../services/plans.js');
    for (let i = 0; i < PLANS.free.maxClients; i++) {
      expect(
        (await t.call('POST', '/api/v1/clientes', { key, body: { empresa: `Cliente ${i}` } })).status,
      ).toBe(200);
    }
    const over = await expectError(
      await t.call('POST', '/api/v1/clientes', { key, body: { empresa: 'Uno más' } }),
      402,
      'plan_limit_reached',
    );
    expect(over).toMatchObject({ resource: 'clients', limit: PLANS.free.maxClients, plan: 'free' });
  });

  it('never passes the plan limit with creations at once, clients or products, nor two SKUs differing in case', async () => {
    // Two places left; eight at once (on PostgreSQL, each on its own connection).
    const { key, count } = await freeOrgWithClients('Límites a la vez', 48);
    const clients = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.call('POST', '/api/v1/clientes', { key, body: { empresa: `A la vez ${i}` } }),
      ),
    );
    expect(clients.map((res) => res.status).sort()).toEqual([200, 200, 402, 402, 402, 402, 402, 402]);
    expect(await count('clients')).toBe(50);
    // The same SKU in six cases at once: one product.
    const skus = ['RACE-A', 'race-a', 'Race-A', 'rAce-a', 'RACE-a', 'race-A'];
    const products = await Promise.all(
      skus.map((sku) =>
        t.call('POST', '/api/v1/productos', {
          key,
          body: { sku, nombre: 'r', precio_lista: 1, unidad: 'pieza' },
        }),
      ),
    );
    expect(products.map((res) => res.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    expect(await count('products')).toBe(1);
  });

  it('never passes the client limit with quotes for new clients at once, idempotent or not', async () => {
    const { key, count, org } = await freeOrgWithClients('Cotizaciones a la vez', 47);
    const item = { descripcion: 'Servicio', cantidad: 1, precio_unitario: 100 };
    // The first creation for a new client is read and priced afresh, the next ones from memory:
    // both kinds, with and without an Idempotency-Key, eight at once for the last three places.
    const create = (i: number, idempotent: boolean) =>
      t.call('POST', '/api/v1/cotizaciones', {
        key,
        body: { items: [item], cliente: { empresa: `Nuevo ${i}` } },
        headers: idempotent ? { 'Idempotency-Key': `quote-limit-${org.id}-${i}` } : {},
      });
    expect((await create(0, false)).status).toBe(200);
    const quotes = await Promise.all(Array.from({ length: 8 }, (_, i) => create(i + 1, i % 2 === 0)));
    const statuses = quotes.map((res) => res.status).sort();
    expect(statuses).toEqual([200, 200, 402, 402, 402, 402, 402, 402]);
    for (const res of quotes.filter((r) => r.status === 402))
      expect(await res.json()).toMatchObject({ code: 'plan_limit_reached', resource: 'clients', limit: 50 });
    expect(await count('clients')).toBe(50);
    expect(await count('quotes')).toBe(3);
  });
});

describe('products', () => {
  it('pages the catalog by meta.next_cursor to its end, each product once, and refuses a cursor it did not give', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `limit=7&cursor=${cursor}` : 'limit=7';
      const page = await json(await t.call('GET', `/api/v1/productos?${query}`, { key: sk }));
      seen.push(...page.data.map((p: { id: string }) => p.id));
      cursor = page.meta.next_cursor;
      expect(page.meta.total).toBeGreaterThan(7);
      pages++;
    } while (cursor && pages < 100);
    const all = await json(await t.call('GET', '/api/v1/productos?limit=200', { key: sk }));
    expect(all.meta.next_cursor).toBeNull();
    expect(seen).toEqual(all.data.map((p: { id: string }) => p.id));
    // With a cursor, offset is ignored, as on the quote list.
    const second = await json(await t.call('GET', '/api/v1/productos?limit=7', { key: sk }));
    const after = `limit=7&cursor=${second.meta.next_cursor}`;
    const plain = await json(await t.call('GET', `/api/v1/productos?${after}`, { key: sk }));
    const offset = await json(await t.call('GET', `/api/v1/productos?${after}&offset=abc`, { key: sk }));
    expect(offset.data).toEqual(plain.data);
    for (const bad of [
      'cursor=zzz',
      `cursor=${Buffer.from('s:7').toString('base64url')}`,
      'cursor=x&offset=1',
    ])
      await expectError(await t.call('GET', `/api/v1/productos?${bad}`, { key: sk }), 400, 'invalid_request');
  });

  it('creates a product under an Idempotency-Key, replays it, and its catalog change reaches the widget', async () => {
    const product = { sku: 'IDEM-1', nombre: 'Con llave', precio_lista: 10, unidad: 'pieza' };
    const widgetCatalog = async () =>
      JSON.stringify(
        await (
          await t.call('GET', '/api/v1/elements/config', {
            key: t.seed.keys.pk_test,
            headers: { Origin: t.seed.publishable_origins[0]! },
          })
        ).json(),
      );
    expect(await widgetCatalog()).not.toContain('IDEM-1');
    const call = () =>
      t.call('POST', '/api/v1/productos', {
        key: sk,
        body: product,
        headers: { 'Idempotency-Key': 'prod-idem-1' },
      });
    // The catalog change is announced inside the request's transaction: on PGlite this hung the server.
    const first = await call();
    expect(first.status).toBe(200);
    const again = await call();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    // The cached configuration was dropped once the product committed.
    await until(async () => (await widgetCatalog()).includes('IDEM-1'), 'the new product in the widget');
  });

  it('refuses a list price with more decimals than its currency has, here and in a setup plan', async () => {
    const product = { sku: 'MIL-1', nombre: 'Milésimas', precio_lista: 0.001, unidad: 'pieza' };
    const error = await expectError(
      await t.call('POST', '/api/v1/productos', { key: sk, body: product }),
      400,
      'invalid_request',
    );
    expect(error.error).toBe('precio_lista: at most 2 decimals in MXN');
    const plan = await expectError(
      await t.call('POST', '/api/v1/setup/plans', {
        key: sk,
        body: { productos: [{ ...product, moneda: 'MXN' }] },
      }),
      400,
      'invalid_request',
    );
    expect(plan.error).toBe('productos[0].precio_lista: at most 2 decimals in MXN');
    expect((await t.db.query(`SELECT 1 FROM products WHERE sku = 'MIL-1'`)).length).toBe(0);
  });

  it('refuses a SKU that exists in another case, naming the one that exists, writing nothing', async () => {
    const product = { sku: 'lap-14', nombre: 'Otra laptop', precio_lista: 10, unidad: 'pieza' };
    const before = (await t.db.query(`SELECT 1 FROM products WHERE org_id = $1`, [t.seed.org.id])).length;
    const error = await expectError(
      await t.call('POST', '/api/v1/productos', { key: sk, body: product }),
      400,
      'invalid_request',
    );
    expect(error.error).toBe('sku: a product with SKU LAP-14 already exists');
    expect((await t.db.query(`SELECT 1 FROM products WHERE org_id = $1`, [t.seed.org.id])).length).toBe(
      before,
    );
  });

  it('creates and lists products; events and publishable views never carry cost', async () => {
    const res = await t.call('POST', '/api/v1/productos', {
      key: sk,
      body: {
        sku: 'IMP-A4',
        nombre: 'Impresión A4',
        precio_lista: 3.5,
        costo: 1.2,
        unidad: 'hoja',
        tax_rate: 0.16,
      },
    });
    expect(res.status).toBe(200);
    const product = (await json(res)).data;
    expect(product).toMatchObject({
      object: 'product',
      sku: 'IMP-A4',
      precio_lista: 3.5,
      moneda: 'MXN',
      costo: 1.2,
    });
    const events = await json(await t.call('GET', `/api/v1/events?object_id=${product.id}`, { key: sk }));
    expect(events.data[0]).toMatchObject({ type: 'product.created', object: 'product' });
    expect(events.data[0].data).toEqual({
      object: 'product',
      id: product.id,
      sku: 'IMP-A4',
      nombre: 'Impresión A4',
      unidad: 'hoja',
      precio_lista: 3.5,
      activo: true,
    });
    const list = await json(await t.call('GET', '/api/v1/productos?limit=200', { key: sk }));
    expect(list.data.some((p: Json) => p.sku === 'IMP-A4')).toBe(true);
    await expectError(
      await t.call('POST', '/api/v1/productos', {
        key: sk,
        body: { sku: 'IMP-A4', nombre: 'x', precio_lista: 1 },
      }),
      400,
      'invalid_request',
    );
  });

  it('keeps test and live catalogs apart', async () => {
    const live = await json(
      await t.call('GET', '/api/v1/productos?limit=200', { key: t.seed.keys.sk_live_write }),
    );
    expect(live.data.some((p: Json) => p.sku === 'IMP-A4')).toBe(false);
  });
});

describe('changing and deleting', () => {
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await t.call(method, `/api/v1${path}`, { key: sk, body });
    return { res, body: (await res.clone().json()) as Json };
  };
  const eventTypes = async (id: string) =>
    (await api('GET', `/events?object_id=${id}`)).body.data.map((e: Json) => e.type);
  const previewOf = (productId: string, precio: number) =>
    t.call('POST', '/api/v1/elements/preview', {
      key: t.seed.keys.pk_test,
      headers: { Origin: t.seed.publishable_origins[0]! },
      body: { items: [{ producto_id: productId, descripcion: 'x', cantidad: 1, precio_unitario: precio }] },
    });

  it('patches a product, prices the next preview with it, and records product.updated only for a change', async () => {
    const created = (await api('POST', '/productos', { sku: 'PATCH-1', nombre: 'Silla', precio_lista: 100 }))
      .body.data;
    expect((await api('GET', `/productos/${created.id}`)).body.data).toMatchObject({
      sku: 'PATCH-1',
      precio_lista: 100,
    });
    const patched = await api('PATCH', `/productos/${created.id}`, {
      precio_lista: 120,
      nombre: 'Silla ergonómica',
    });
    expect(patched.body.data).toMatchObject({
      id: created.id,
      sku: 'PATCH-1',
      precio_lista: 120,
      nombre: 'Silla ergonómica',
    });
    expect((await previewOf(created.id, 120)).status).toBe(200);
    expect((await previewOf(created.id, 100)).status).toBe(400);
    // The same values again, or nothing: no event.
    await api('PATCH', `/productos/${created.id}`, { precio_lista: 120 });
    await api('PATCH', `/productos/${created.id}`, {});
    expect(await eventTypes(created.id)).toEqual(['product.updated', 'product.created']);
    const event = (await api('GET', `/events?object_id=${created.id}&type=product.updated`)).body.data[0];
    expect(event.data).toEqual({
      object: 'product',
      id: created.id,
      sku: 'PATCH-1',
      nombre: 'Silla ergonómica',
      unidad: 'pieza',
      precio_lista: 120,
      activo: true,
    });
    // Deactivated, the widget cannot quote it.
    await api('PATCH', `/productos/${created.id}`, { activo: false });
    expect((await previewOf(created.id, 120)).status).toBe(400);
  });

  it('checks what a patch sends, not what it leaves: a product of an old rate can be deactivated', async () => {
    const created = (await api('POST', '/productos', { sku: 'PATCH-3', nombre: 'Viejo', precio_lista: 10 }))
      .body.data;
    // As made before the tax catalog was checked.
    await t.db.query('UPDATE products SET tax_rate = 0.15 WHERE id = $1', [created.id]);
    const res = await api('PATCH', `/productos/${created.id}`, { activo: false, precio_lista: 12 });
    expect(res.res.status).toBe(200);
    expect(res.body.data).toMatchObject({ activo: false, precio_lista: 12, tax_rate: 0.15 });
    await expectError(
      await t.call('PATCH', `/api/v1/productos/${created.id}`, { key: sk, body: { tax_rate: 0.15 } }),
      400,
      'invalid_request',
    );
  });

  it('refuses a bad patch naming the field, and changes nothing', async () => {
    const created = (await api('POST', '/productos', { sku: 'PATCH-2', nombre: 'Mesa', precio_lista: 100 }))
      .body.data;
    for (const [body, field] of [
      [{ sku: 'OTRO' }, 'sku: unknown field'],
      [{ precio_lista: -1 }, 'precio_lista: must be a number of 0 or more'],
      [{ precio_lista: 1.001 }, 'precio_lista: at most 2 decimals in MXN'],
      [{ moneda: 'JPY' }, 'moneda: JPY is not a currency of this business'],
      [{ tax_rate: 0.5 }, 'tax_rate: must be a rate of the MX tax catalog'],
      [{ nombre: '' }, 'nombre: must not be empty'],
    ] as const) {
      const res = await t.call('PATCH', `/api/v1/productos/${created.id}`, { key: sk, body });
      expect((await expectError(res, 400, 'invalid_request')).error).toContain(field);
    }
    await expectError(
      await t.call('PATCH', '/api/v1/productos/00000000-0000-4000-8000-000000000000', { key: sk, body: {} }),
      404,
      'not_found',
    );
    expect((await api('GET', `/productos/${created.id}`)).body.data).toMatchObject({
      nombre: 'Mesa',
      precio_lista: 100,
    });
    expect(await eventTypes(created.id)).toEqual(['product.created']);
  });

  it('deletes a product no document names, with product.deleted; one on a quote stays', async () => {
    const unused = (await api('POST', '/productos', { sku: 'DEL-1', nombre: 'Lámpara', precio_lista: 50 }))
      .body.data;
    expect((await api('DELETE', `/productos/${unused.id}`)).body.data).toEqual({
      id: unused.id,
      object: 'product',
      deleted: true,
    });
    await expectError(await t.call('GET', `/api/v1/productos/${unused.id}`, { key: sk }), 404, 'not_found');
    const deleted = (await api('GET', `/events?object_id=${unused.id}&type=product.deleted`)).body.data;
    expect(deleted.map((e: Json) => e.data)).toEqual([
      { object: 'product', id: unused.id, nombre: 'Lámpara' },
    ]);
    const used = (await api('POST', '/productos', { sku: 'DEL-2', nombre: 'Foco', precio_lista: 50 })).body
      .data;
    const quote = await api('POST', '/cotizaciones', {
      cliente: { empresa: 'Focos SA' },
      items: [{ producto_id: used.id, descripcion: 'Foco', cantidad: 1, precio_unitario: 50 }],
    });
    expect(quote.res.status).toBe(200);
    const refused = await expectError(
      await t.call('DELETE', `/api/v1/productos/${used.id}`, { key: sk }),
      409,
      'invalid_state',
    );
    expect(refused.error).toContain('activo');
    expect((await api('GET', `/productos/${used.id}`)).res.status).toBe(200);
    expect(await eventTypes(used.id)).toEqual(['product.created']);
  });

  it('deletes a client without documents, with client.deleted; one with a quote stays', async () => {
    const lone = (await api('POST', '/clientes', { empresa: 'Sin Papeles' })).body.data;
    expect((await api('DELETE', `/clientes/${lone.id}`)).body.data).toEqual({
      id: lone.id,
      object: 'client',
      deleted: true,
    });
    await expectError(await t.call('GET', `/api/v1/clientes/${lone.id}`, { key: sk }), 404, 'not_found');
    const events = (await api('GET', `/events?object_id=${lone.id}`)).body.data;
    expect(events.map((e: Json) => [e.type, e.data])).toEqual([
      ['client.deleted', { object: 'client', id: lone.id, empresa: 'Sin Papeles' }],
      ['client.created', expect.any(Object)],
    ]);
    const quote = await api('POST', '/cotizaciones', {
      cliente: { empresa: 'Con Papeles' },
      items: [{ descripcion: 'Servicio', cantidad: 1, precio_unitario: 10 }],
    });
    const clientId = (await api('GET', `/cotizaciones/${quote.body.data.id}`)).body.data.cliente_id;
    await expectError(
      await t.call('DELETE', `/api/v1/clientes/${clientId}`, { key: sk }),
      409,
      'invalid_state',
    );
    expect((await api('GET', `/clientes/${clientId}`)).res.status).toBe(200);
  });

  it('records client.updated only when a patch changes something', async () => {
    const client = (await api('POST', '/clientes', { empresa: 'Igual SA', email: 'igual@example.com' })).body
      .data;
    const same = await api('PATCH', `/clientes/${client.id}`, {
      email: 'igual@example.com',
      empresa: 'Igual SA',
    });
    // Not even written: the record is as it was, its updated_at included.
    expect(same.body.data).toEqual(client);
    expect(await eventTypes(client.id)).toEqual(['client.created']);
    await api('PATCH', `/clientes/${client.id}`, { contacto: 'Eva' });
    expect(await eventTypes(client.id)).toEqual(['client.updated', 'client.created']);
  });
});

describe('GET /events', () => {
  it('pages newest first with a stable cursor and filters by type', async () => {
    for (let i = 0; i < 5; i++)
      await t.call('POST', '/api/v1/clientes', { key: sk, body: { empresa: `Evento ${i}` } });
    const first = await json(await t.call('GET', '/api/v1/events?limit=2&type=client.created', { key: sk }));
    expect(first.data).toHaveLength(2);
    expect(first.data[0].created_at >= first.data[1].created_at).toBe(true);
    expect(first.data[0].created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    await t.call('POST', '/api/v1/clientes', { key: sk, body: { empresa: 'Nuevo durante la paginación' } });
    const second = await json(
      await t.call('GET', `/api/v1/events?limit=2&type=client.created&cursor=${first.meta.next_cursor}`, {
        key: sk,
      }),
    );
    const all = await json(await t.call('GET', '/api/v1/events?limit=200&type=client.created', { key: sk }));
    const ids = all.data.map((e: Json) => e.id);
    const at = ids.indexOf(first.data[1].id);
    expect(second.data.map((e: Json) => e.id)).toEqual(ids.slice(at + 1, at + 3));
    expect(all.data.every((e: Json) => e.actor.startsWith('api:'))).toBe(true);
  });

  it('shows a restricted key only the events of what it may read, as its webhooks receive them', async () => {
    const { key } = await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'restricted',
      mode: 'test',
      scope: 'write',
      permissions: { cotizaciones: 'write', events: 'read' },
    });
    await t.call('POST', '/api/v1/clientes', {
      key: sk,
      body: { empresa: 'Privada SA', email: 'privada@example.com' },
    });
    await t.call('POST', '/api/v1/cotizaciones', {
      key: sk,
      body: {
        items: [{ descripcion: 'X', cantidad: 1, precio_unitario: 10 }],
        cliente: { empresa: 'Visible SA' },
      },
    });
    const seen = await json(await t.call('GET', '/api/v1/events?limit=200', { key }));
    const types = new Set(seen.data.map((e: Json) => e.type.split('.')[0]));
    expect(types.has('quote')).toBe(true);
    expect(
      [...types].filter((family) => family !== 'quote' && family !== 'payment' && family !== 'promise'),
    ).toEqual([]);
    expect(JSON.stringify(seen.data)).not.toContain('privada@example.com');
    // Its pages are full pages of what it may read.
    const page = await json(await t.call('GET', '/api/v1/events?limit=1', { key }));
    expect(page.data[0].type).toMatch(/^quote\./);
    await expectError(
      await t.call('GET', '/api/v1/events?type=client.created', { key }),
      403,
      'insufficient_scope',
    );
    // The secret key still reads everything.
    const all = await json(await t.call('GET', '/api/v1/events?limit=200', { key: sk }));
    expect(JSON.stringify(all.data)).toContain('privada@example.com');
  });

  it('refuses bad parameters and never shows live events to test keys', async () => {
    for (const q of ['limit=201', 'type=quote.exploded', 'object_id=1', 'cursor=zzz']) {
      await expectError(await t.call('GET', `/api/v1/events?${q}`, { key: sk }), 400, 'invalid_request');
    }
    await t.call('POST', '/api/v1/clientes', {
      key: t.seed.keys.sk_live_write,
      body: { empresa: 'Solo en vivo' },
    });
    const test = await json(await t.call('GET', '/api/v1/events?limit=200', { key: sk }));
    expect(JSON.stringify(test.data)).not.toContain('Solo en vivo');
  });
});
