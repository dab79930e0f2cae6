import { readFileSync } from 'node:fs';
import type { Database } from '../db/database.js';
import { upsertWorkflow } from '../repositories/workflows.js';
import { createApiKey, type KeyMode, normalizeOrigin } from './api-keys.js';
import { DEMO_WORKFLOWS } from './demo-workflows.js';
import { createOrg, findOrg, type Org } from './orgs.js';
import { exactMinor } from './payments.js';

/** The demo catalog file (`demo/catalog.json`, a copy of the shared fixture). */
export interface DemoCatalog {
  org: {
    nombre: string;
    country: string;
    plan: string;
    currency: string;
    currencies: string[];
    default_tax_rate: number;
    locale: string;
    brand_color: string;
    terminos: string[];
    vigencia_dias: number;
    fx_rates_to_mxn?: Record<string, number>;
  };
  products: {
    sku: string;
    nombre: string;
    aliases: string[];
    unidad: string;
    precio_lista: number;
    tax_rate: number;
    clave_sat: string;
    clave_unidad_sat: string;
  }[];
  coupons: {
    code: string;
    tipo: 'porcentaje' | 'monto';
    valor: number;
    moneda?: string;
    max_uses: number | null;
    uses?: number;
    expires_at: string | null;
    active: boolean;
  }[];
}

/** The output of `svc-server seed --json` (design.md section 3). */
export interface SeedResult {
  org: { id: string; nombre: string; plan: string };
  keys: {
    sk_test_write: string;
    sk_test_read: string;
    pk_test: string;
    sk_live_write: string;
    pk_live: string;
  };
  free_org: { id: string; plan: string; keys: { sk_live_write: string; sk_test_write: string } };
  publishable_origins: string[];
  /** Each catalog product: `id` in test mode, `live_id` the same SKU's id in live mode. */
  products: { id: string; sku: string; live_id: string }[];
  coupons: string[];
}

const DEMO_SLUG = 'demo-estudio-nopal';
const FREE_SLUG = 'demo-free';
// Units whose quantities may be fractional.
const FRACTIONAL_UNITS = new Set(['hora', 'mes', 'año', 'metro', 'kg', 'litro']);

export function readCatalog(path: string): DemoCatalog {
  return JSON.parse(readFileSync(path, 'utf8')) as DemoCatalog;
}

/**
 * Creates the demo organization (catalog and coupons in both modes) and a free-plan organization
 * the first time; every run issues a fresh set of keys and prints them, so running it twice is
 * safe and earlier keys keep working. Keys are only ever stored as hashes.
 */
export async function seedDemo(
  db: Database,
  catalog: DemoCatalog,
  options: { origins: string[] },
): Promise<SeedResult> {
  // Checked before anything is written: a bad --origin leaves the database as it was. Printed as
  // the keys store them (https://Shop.Example/ and https://shop.example are one origin).
  const origins = [...new Set(options.origins.map(normalizeOrigin))];
  const org = (await findOrg(db, { slug: DEMO_SLUG })) ?? (await createDemoOrg(db, catalog));
  const free =
    (await findOrg(db, { slug: FREE_SLUG })) ??
    (await createOrg(db, {
      slug: FREE_SLUG,
      nombre: 'Imprenta Colibrí',
      plan: 'free',
      widget: { custom_items: false },
    }));

  // Every run: a demo organization made before workflows existed gets them too.
  for (const mode of ['test', 'live'] as const)
    for (const workflow of DEMO_WORKFLOWS) await upsertWorkflow(db, { orgId: org.id, mode }, workflow);

  const key = async (o: Org, kind: 'secret' | 'publishable', mode: KeyMode, scope: 'read' | 'write') =>
    (
      await createApiKey(
        db,
        { orgId: o.id, kind, mode, scope, origins: kind === 'publishable' ? origins : [] },
        { enforceLimit: false },
      )
    ).key;

  const products = await db.query<{ id: string; sku: string; mode: KeyMode }>(
    `SELECT id, sku, mode FROM products WHERE org_id = $1 ORDER BY created_at, sku`,
    [org.id],
  );
  const ids = { test: new Map<string, string>(), live: new Map<string, string>() };
  for (const p of products) ids[p.mode].set(p.sku, p.id);
  return {
    org: { id: org.id, nombre: org.nombre, plan: org.plan },
    keys: {
      sk_test_write: await key(org, 'secret', 'test', 'write'),
      sk_test_read: await key(org, 'secret', 'test', 'read'),
      pk_test: await key(org, 'publishable', 'test', 'write'),
      sk_live_write: await key(org, 'secret', 'live', 'write'),
      pk_live: await key(org, 'publishable', 'live', 'write'),
    },
    free_org: {
      id: free.id,
      plan: free.plan,
      keys: {
        sk_live_write: await key(free, 'secret', 'live', 'write'),
        sk_test_write: await key(free, 'secret', 'test', 'write'),
      },
    },
    publishable_origins: origins,
    products: catalog.products.map((p) => ({
      id: ids.test.get(p.sku)!,
      sku: p.sku,
      live_id: ids.live.get(p.sku)!,
    })),
    coupons: catalog.coupons.map((c) => c.code),
  };
}

/**
 * The catalog's amounts, checked before anything is written, as the API and setup plans check
 * them: a product's price and an amount coupon's value have no more decimals than their currency
 * (a coupon without one applies in each of the organization's), else an error naming the field.
 */
function checkCatalogAmounts(catalog: DemoCatalog): void {
  const { currency, currencies } = catalog.org;
  catalog.products.forEach((p, i) => {
    exactMinor(p.precio_lista, currency, `products[${i}].precio_lista`);
  });
  catalog.coupons.forEach((c, i) => {
    if (c.tipo !== 'monto') return;
    for (const moneda of c.moneda ? [c.moneda] : currencies)
      exactMinor(c.valor, moneda, `coupons[${i}].valor`);
  });
}

async function createDemoOrg(db: Database, catalog: DemoCatalog): Promise<Org> {
  checkCatalogAmounts(catalog);
  return db.transaction(async (tx) => {
    const o = catalog.org;
    const org = await createOrg(tx, {
      slug: DEMO_SLUG,
      nombre: o.nombre,
      plan: o.plan,
      country: o.country,
      currency: o.currency,
      currencies: o.currencies,
      locale: o.locale,
      default_tax_rate: o.default_tax_rate,
      brand_color: o.brand_color,
      terminos: o.terminos,
      vigencia_dias: o.vigencia_dias,
      approval_discount_pct: 30,
      // The seller's inbox for clients' messages on quote pages (test mode keeps them in the outbox).
      email_avisos: 'ventas@estudio-nopal.example',
      widget: {
        custom_items: true,
        ai_draft: true,
        coupons: true,
        required_client_fields: ['email'],
        terms_text: 'Precios en MXN más IVA. Entrega sujeta a disponibilidad.',
        fx_rates: o.fx_rates_to_mxn ?? {},
      },
    });
    for (const mode of ['test', 'live'] as const) {
      for (const p of catalog.products) {
        await tx.query(
          `INSERT INTO products (org_id, mode, sku, nombre, unidad, precio_lista, moneda, tax_rate, aliases, clave_sat,
             clave_unidad_sat, fraccionable)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
          [
            org.id,
            mode,
            p.sku,
            p.nombre,
            p.unidad,
            p.precio_lista,
            o.currency,
            p.tax_rate,
            p.aliases,
            p.clave_sat,
            p.clave_unidad_sat,
            FRACTIONAL_UNITS.has(p.unidad),
          ],
        );
      }
      for (const c of catalog.coupons) {
        await tx.query(
          `INSERT INTO coupons (org_id, mode, code, tipo, valor, moneda, max_uses, uses, initial_uses, expires_at, active)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10)`,
          [
            org.id,
            mode,
            c.code,
            c.tipo,
            c.valor,
            c.moneda ?? null,
            c.max_uses,
            c.uses ?? 0,
            c.expires_at,
            c.active,
          ],
        );
      }
    }
    return org;
  });
}
