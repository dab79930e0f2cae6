import type * as v from 'valibot';
import { invalidRequest } from '../errors.js';
import { insertEvent } from '../repositories/events.js';
import { countProducts, insertProduct, productEventData, productRecord } from '../repositories/products.js';
import type { productCreateSchema } from '../schemas/requests.js';
import type { AppDeps } from '../types.js';
import { checkTaxRate } from './fiscal/tax-catalog.js';
import type { KeyWithOrg } from './key-store.js';
import { announceOrgChanged } from './orgs.js';
import { exactMinor } from './payments.js';
import { PLANS, planLimitError } from './plans.js';
import { apiActor } from './quotes.js';

/** POST /productos: adds a product to the catalog of the key's mode. */
export async function createProduct(
  deps: AppDeps,
  auth: KeyWithOrg,
  body: v.InferOutput<typeof productCreateSchema>,
) {
  const scope = { orgId: auth.org.id, mode: auth.key.mode };
  const moneda = body.moneda ?? auth.org.currency;
  if (!auth.org.currencies.includes(moneda)) {
    throw invalidRequest(
      `moneda: ${moneda} is not a currency of this business (${auth.org.currencies.join(', ')})`,
    );
  }
  exactMinor(body.precio_lista, moneda, 'precio_lista');
  checkTaxRate(auth.org.country, body.tax_rate, 'tax_rate');
  const created = await deps.db.transaction(async (tx) => {
    const limit = PLANS[auth.org.plan].maxProducts;
    if ((await countProducts(tx, scope)) >= limit) throw planLimitError('products', auth.org.plan, limit);
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
