import type * as v from 'valibot';
import { invalidRequest, invalidState, notFound } from '../errors.js';
import { insertEvent } from '../repositories/events.js';
import {
  countProducts,
  findProduct,
  insertProduct,
  type ProductRow,
  productEventData,
  productInUse,
  productRecord,
  updateProduct,
} from '../repositories/products.js';
import type { productCreateSchema, productPatchSchema } from '../schemas/requests.js';
import type { AppDeps } from '../types.js';
import { checkTaxRate } from './fiscal/tax-catalog.js';
import type { KeyWithOrg } from './key-store.js';
import { announceOrgChanged } from './orgs.js';
import { exactMinor } from './payments.js';
import { assertRoomFor } from './plans.js';
import { apiActor } from './quotes.js';

/** POST /productos: adds a product to the catalog of the key's mode. */
export async function createProduct(
  deps: AppDeps,
  auth: KeyWithOrg,
  body: v.InferOutput<typeof productCreateSchema>,
) {
  const scope = { orgId: auth.org.id, mode: auth.key.mode };
  const moneda = body.moneda ?? auth.org.currency;
  checkProductFields(auth, { moneda, precio_lista: body.precio_lista });
  checkTaxRate(auth.org.country, body.tax_rate, 'tax_rate');
  const created = await deps.db.transaction(async (tx) => {
    // Under the lock, so that two creations at once cannot both pass the limit, or both find their
    // SKU free in another case.
    await assertRoomFor(tx, 'products', scope, auth.org.plan, () => countProducts(tx, scope), {
      always: true,
    });
    // A SKU names one product in any case, as setup plans and people match it: `lap-14` is refused
    // where `LAP-14` exists, like the same SKU.
    const [clash] = await tx.query<{ sku: string }>(
      'SELECT sku FROM products WHERE org_id = $1 AND mode = $2 AND lower(sku) = lower($3) LIMIT 1',
      [scope.orgId, scope.mode, body.sku],
    );
    if (clash) throw invalidRequest(`sku: a product with SKU ${clash.sku} already exists`);
    const product = await insertProduct(tx, scope, {
      sku: body.sku,
      nombre: body.nombre,
      descripcion: body.descripcion ?? null,
      unidad: body.unidad,
      precio_lista: body.precio_lista,
      moneda,
      tax_rate: body.tax_rate ?? null,
      costo: body.costo ?? null,
      aliases: body.aliases,
      clave_sat: body.clave_sat ?? null,
      clave_unidad_sat: body.clave_unidad_sat ?? null,
      fraccionable: body.fraccionable,
    });
    if (!product) throw invalidRequest(`sku: a product with SKU ${body.sku} already exists`);
    await insertEvent(tx, {
      orgId: scope.orgId,
      mode: auth.key.mode,
      type: 'product.created',
      object: 'product',
      objectId: product.id,
      data: productEventData(product),
      actor: apiActor(auth),
    });
    return productRecord(product, auth.key.kind === 'secret');
  });
  // The widget configuration of every process carries the catalog: let them rebuild it.
  await announceOrgChanged(deps.db, auth.org.id);
  return created;
}

/** The checks a product's price and currency pass against its organization. */
function checkProductFields(auth: KeyWithOrg, p: { moneda: string; precio_lista: number }) {
  if (!auth.org.currencies.includes(p.moneda)) {
    throw invalidRequest(
      `moneda: ${p.moneda} is not a currency of this business (${auth.org.currencies.join(', ')})`,
    );
  }
  exactMinor(p.precio_lista, p.moneda, 'precio_lista');
}

/** GET /productos/{id}. */
export async function getProduct(deps: AppDeps, auth: KeyWithOrg, id: string) {
  const product = await findProduct(deps.db, { orgId: auth.org.id, mode: auth.key.mode }, id);
  if (!product) throw notFound('Product');
  return productRecord(product, auth.key.kind === 'secret');
}

/**
 * PATCH /productos/{id}: changes the fields given (every field of creation but the SKU, and
 * `activo`), with `product.updated`; a patch that changes nothing records no event. Every process
 * prices the next preview and quote with the new values.
 */
export async function patchProduct(
  deps: AppDeps,
  auth: KeyWithOrg,
  id: string,
  body: v.InferOutput<typeof productPatchSchema>,
) {
  const scope = { orgId: auth.org.id, mode: auth.key.mode };
  const { changed, product } = await deps.db.transaction(async (tx) => {
    const before = await findProduct(tx, scope, id, true);
    if (!before) throw notFound('Product');
    const after = { ...before, ...body };
    // What the patch sends is checked, with what it leaves as it is: a product of a rate or a
    // currency allowed when it was made can still be renamed or deactivated.
    if (body.moneda !== undefined || body.precio_lista !== undefined) checkProductFields(auth, after);
    if (body.tax_rate !== undefined) checkTaxRate(auth.org.country, body.tax_rate, 'tax_rate');
    const fields = Object.keys(body) as (keyof typeof body)[];
    if (fields.every((name) => sameValue(before[name], after[name]))) {
      return { changed: false, product: before };
    }
    const updated = await updateProduct(tx, scope, id, body);
    await insertEvent(tx, {
      orgId: scope.orgId,
      mode: auth.key.mode,
      type: 'product.updated',
      object: 'product',
      objectId: id,
      data: productEventData(updated),
      actor: apiActor(auth),
    });
    return { changed: true, product: updated };
  });
  if (changed) await announceOrgChanged(deps.db, auth.org.id);
  return productRecord(product, auth.key.kind === 'secret');
}

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * DELETE /productos/{id}: removes a product no quote or invoice line names, with
 * `product.deleted` (id and name only, as the spec gives it). One that is on a line stays, for
 * those documents: 409 `invalid_state`, saying to deactivate it (`activo: false`) instead.
 */
export async function deleteProduct(deps: AppDeps, auth: KeyWithOrg, id: string) {
  const scope = { orgId: auth.org.id, mode: auth.key.mode };
  const product: ProductRow = await deps.db.transaction(async (tx) => {
    const found = await findProduct(tx, scope, id, true);
    if (!found) throw notFound('Product');
    if (await productInUse(tx, id)) {
      throw invalidState(
        `Product ${found.sku} is on quotes or invoices and cannot be deleted; deactivate it with PATCH { "activo": false } instead. Nothing was changed.`,
      );
    }
    await tx.query('DELETE FROM products WHERE id = $1', [id]);
    await insertEvent(tx, {
      orgId: scope.orgId,
      mode: auth.key.mode,
      type: 'product.deleted',
      object: 'product',
      objectId: id,
      data: { object: 'product', id, nombre: found.nombre },
      actor: apiActor(auth),
    });
    return found;
  });
  await announceOrgChanged(deps.db, auth.org.id);
  return { id: product.id, object: 'product' as const, deleted: true };
}
