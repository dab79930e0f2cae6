import { clienteSchema } from '@svc/core';
import { Hono } from 'hono';
import * as v from 'valibot';
import { notFound } from '../errors.js';
import { readJson } from '../http/json-body.js';
import { parse, readNoFields } from '../http/parse.js';
import { offsetMeta, offsetPaging } from '../http/query.js';
import { isUuid } from '../ids.js';
import { endpoint } from '../middleware/endpoint.js';
import { clientRecord, findClientById, listClients } from '../repositories/clients.js';
import { listProducts, productRecord } from '../repositories/products.js';
import { clientPatchSchema, productCreateSchema, productPatchSchema } from '../schemas/requests.js';
import { createClient, deleteClient, patchClient } from '../services/clients.js';
import { createProduct, deleteProduct, getProduct, patchProduct } from '../services/products.js';
import type { AppDeps, AppEnv } from '../types.js';

export const clientCreateSchema = v.strictObject({
  ...clienteSchema.entries,
  terminos: clientPatchSchema.entries.terminos,
});

/** The client directory (`/clientes`) and the catalog (`/productos`). */
export function directoryRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get('/clientes', endpoint(deps, { resource: 'clientes', level: 'read' }), async (c) => {
      const auth = c.get('auth');
      const page = offsetPaging(c.req.query());
      const { records, total } = await listClients(
        deps.db,
        { orgId: auth.org.id, mode: auth.key.mode },
        page,
      );
      return c.json({ data: records.map(clientRecord), meta: offsetMeta(page, total) });
    })
    .post('/clientes', endpoint(deps, { resource: 'clientes', level: 'write' }), async (c) => {
      const body = parse(clientCreateSchema, await readJson(c));
      return c.json({ data: clientRecord(await createClient(deps, c.get('auth'), body)) });
    })
    .get('/clientes/:id', endpoint(deps, { resource: 'clientes', level: 'read' }), async (c) => {
      const auth = c.get('auth');
      const id = c.req.param('id');
      const client = isUuid(id)
        ? await findClientById(deps.db, { orgId: auth.org.id, mode: auth.key.mode }, id)
        : undefined;
      if (!client) throw notFound('Client');
      return c.json({ data: clientRecord(client) });
    })
    .patch('/clientes/:id', endpoint(deps, { resource: 'clientes', level: 'write' }), async (c) => {
      const id = c.req.param('id');
      const body = parse(clientPatchSchema, await readJson(c));
      if (!isUuid(id)) throw notFound('Client');
      return c.json({ data: clientRecord(await patchClient(deps, c.get('auth'), id, body)) });
    })
    .delete('/clientes/:id', endpoint(deps, { resource: 'clientes', level: 'write' }), async (c) => {
      const id = c.req.param('id');
      await readNoFields(c);
      if (!isUuid(id)) throw notFound('Client');
      return c.json({ data: await deleteClient(deps, c.get('auth'), id) });
    })
    .get('/productos', endpoint(deps, { resource: 'productos', level: 'read' }), async (c) => {
      const auth = c.get('auth');
      const page = offsetPaging(c.req.query());
      const { records, total } = await listProducts(
        deps.db,
        { orgId: auth.org.id, mode: auth.key.mode },
        page,
      );
      return c.json({
        data: records.map((p) => productRecord(p, auth.key.kind === 'secret')),
        meta: offsetMeta(page, total),
      });
    })
    .post('/productos', endpoint(deps, { resource: 'productos', level: 'write' }), async (c) => {
      const body = parse(productCreateSchema, await readJson(c));
      return c.json({ data: await createProduct(deps, c.get('auth'), body) });
    })
    .get('/productos/:id', endpoint(deps, { resource: 'productos', level: 'read' }), async (c) => {
      const id = c.req.param('id');
      if (!isUuid(id)) throw notFound('Product');
      return c.json({ data: await getProduct(deps, c.get('auth'), id) });
    })
    .patch('/productos/:id', endpoint(deps, { resource: 'productos', level: 'write' }), async (c) => {
      const id = c.req.param('id');
      const body = parse(productPatchSchema, await readJson(c));
      if (!isUuid(id)) throw notFound('Product');
      return c.json({ data: await patchProduct(deps, c.get('auth'), id, body) });
    })
    .delete('/productos/:id', endpoint(deps, { resource: 'productos', level: 'write' }), async (c) => {
      const id = c.req.param('id');
      await readNoFields(c);
      if (!isUuid(id)) throw notFound('Product');
      return c.json({ data: await deleteProduct(deps, c.get('auth'), id) });
    });
}
