import type { Queryable } from '../db/database.js';
import { inScope } from './scope-sql.js';

/** A catalog product as stored. `costo` is internal and never leaves through events or the widget. */
export interface ProductRow {
  id: string;
  sku: string;
  nombre: string;
  descripcion: string | null;
  unidad: string;
  precio_lista: number;
  moneda: string;
  tax_rate: number | null;
  costo: number | null;
  aliases: string[];
  clave_sat: string | null;
  clave_unidad_sat: string | null;
  activo: boolean;
  fraccionable: boolean;
}

type Scope = { orgId: string; mode: string };

const COLUMNS =
  'id, sku, nombre, descripcion, unidad, precio_lista, moneda, tax_rate, costo, aliases, clave_sat, clave_unidad_sat, activo, fraccionable';

export async function findProductsByIds(
  db: Queryable,
  scope: Scope,
  ids: string[],
): Promise<Map<string, ProductRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<ProductRow>(productsByIdsSql('$1', '$2', '$3'), [scope.orgId, scope.mode, ids]);
  return productMap(rows);
}

/**
 * The SELECT of products by their ids (a uuid[]): every preview and creation runs it. Placeholders
 * as SQL; `extra` adds columns to the select list.
 */
export const productsByIdsSql = (org: string, mode: string, ids: string, extra = '') =>
  `SELECT ${COLUMNS}${extra} FROM products WHERE id = ANY(${ids}::uuid[]) AND ${inScope(org, mode)}`;

/** Products by id. */
export const productMap = (rows: ProductRow[]): Map<string, ProductRow> =>
  new Map(rows.map((row) => [row.id, row]));

export async function listProducts(
  db: Queryable,
  scope: Scope,
  page: { limit: number; offset: number; activeOnly?: boolean },
): Promise<{ records: ProductRow[]; total: number }> {
  const records = await db.query<ProductRow>(
    `SELECT ${COLUMNS} FROM products WHERE org_id = $1 AND mode = $2 AND ($5::boolean IS NOT TRUE OR activo)
     ORDER BY created_at, sku LIMIT $3 OFFSET $4`,
    [scope.orgId, scope.mode, page.limit, page.offset, page.activeOnly ?? false],
  );
  const [count] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM products WHERE org_id = $1 AND mode = $2 AND ($3::boolean IS NOT TRUE OR activo)`,
    [scope.orgId, scope.mode, page.activeOnly ?? false],
  );
  return { records, total: count?.n ?? 0 };
}

export async function countProducts(db: Queryable, scope: Scope): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM products WHERE org_id = $1 AND mode = $2',
    [scope.orgId, scope.mode],
  );
  return row?.n ?? 0;
}

export async function insertProduct(
  db: Queryable,
  scope: Scope,
  p: Omit<ProductRow, 'id' | 'activo' | 'descripcion'> & { descripcion?: string | null },
): Promise<ProductRow | undefined> {
  const [row] = await db.query<ProductRow>(
    `INSERT INTO products (org_id, mode, sku, nombre, descripcion, unidad, precio_lista, moneda, tax_rate, costo, aliases,
       clave_sat, clave_unidad_sat, fraccionable)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
     ON CONFLICT (org_id, mode, sku) DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      scope.orgId,
      scope.mode,
      p.sku,
      p.nombre,
      p.descripcion ?? null,
      p.unidad,
      p.precio_lista,
      p.moneda,
      p.tax_rate,
      p.costo,
      p.aliases,
      p.clave_sat,
      p.clave_unidad_sat,
      p.fraccionable,
    ],
  );
  return row;
}

/** One product of the scope, or undefined; `lock` holds its row until the transaction ends. */
export async function findProduct(
  db: Queryable,
  scope: Scope,
  id: string,
  lock = false,
): Promise<ProductRow | undefined> {
  const [row] = await db.query<ProductRow>(
    `SELECT ${COLUMNS} FROM products WHERE id = $3 AND ${inScope('$1', '$2')}${lock ? ' FOR UPDATE' : ''}`,
    [scope.orgId, scope.mode, id],
  );
  return row;
}

/** The fields of a product a PATCH may change (its SKU names it and stays). */
export type ProductChanges = Partial<Omit<ProductRow, 'id' | 'sku'>>;

const CHANGEABLE: readonly (keyof ProductChanges)[] = [
  'nombre',
  'descripcion',
  'unidad',
  'precio_lista',
  'moneda',
  'tax_rate',
  'costo',
  'aliases',
  'clave_sat',
  'clave_unidad_sat',
  'activo',
  'fraccionable',
];

/** Writes the changed fields of a product (the row locked by the caller) and returns it. */
export async function updateProduct(
  db: Queryable,
  scope: Scope,
  id: string,
  changes: ProductChanges,
): Promise<ProductRow> {
  const names = CHANGEABLE.filter((name) => Object.hasOwn(changes, name));
  const sets = names.map((name, i) => `${name} = $${i + 4}`);
  const [row] = await db.query<ProductRow>(
    `UPDATE products SET ${[...sets, 'updated_at = now()'].join(', ')}
     WHERE id = $3 AND ${inScope('$1', '$2')} RETURNING ${COLUMNS}`,
    [scope.orgId, scope.mode, id, ...names.map((name) => changes[name] ?? null)],
  );
  return row!;
}

/**
 * Whether any quote or invoice line names the product: such a product stays (its lines keep
 * pointing at it), and is deactivated instead of deleted. Rare enough to read without an index.
 */
export async function productInUse(db: Queryable, id: string): Promise<boolean> {
  const [row] = await db.query<{ used: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM quote_items WHERE producto_id = $1)
         OR EXISTS (SELECT 1 FROM invoice_items WHERE producto_id = $1) AS used`,
    [id],
  );
  return row?.used ?? false;
}

/** The product as the API returns it: no cost or margin unless `withCost` (secret keys). */
export function productRecord(p: ProductRow, withCost = false) {
  const { costo, aliases, ...rest } = p;
  const record = { object: 'product' as const, ...rest, aliases };
  return withCost ? { ...record, costo } : record;
}

/** The product's summary carried by `product.*` events: never cost or margin. */
export function productEventData(p: ProductRow) {
  return {
    object: 'product',
    id: p.id,
    sku: p.sku,
    nombre: p.nombre,
    unidad: p.unidad,
    precio_lista: p.precio_lista,
    activo: p.activo,
  };
}
