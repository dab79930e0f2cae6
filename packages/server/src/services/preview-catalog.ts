import type { Database } from '../db/database.js';
import type { CouponRow } from '../repositories/coupons.js';
import type { ProductRow } from '../repositories/products.js';
import type { KeyStore } from './key-store.js';

/** Products and coupons a scope's catalog is kept with at most; a larger one is partly read. */
const MAX_PRODUCTS = 2_000;
const MAX_COUPONS = 1_000;
const TTL_MS = 30_000;
/** Scopes kept before memory starts over; enough for every busy organization of a process. */
const MAX_SCOPES = 1_000;

type Scope = { orgId: string; mode: string };

interface CatalogEntry {
  /** The active products by id. */
  products: Map<string, ProductRow>;
  /** Every active product of the scope is in `products`: an id not there is not an active product. */
  allProducts: boolean;
  /** Coupons by their code in upper case (ASCII codes only). */
  coupons: Map<string, CouponRow>;
  /** Every coupon of the scope is in `coupons`: a code not there does not exist. */
  allCoupons: boolean;
  at: number;
}

/** What a preview is priced with, as `readQuoteInputs` would have read it. */
export interface RememberedInputs {
  products: Map<string, ProductRow>;
  coupon: CouponRow | undefined;
}

/**
 * The active catalog and the coupons of an organization in a mode, read once and kept, so that
 * the widget's basket preview is priced without a statement. A preview is advisory (quote
 * creation checks everything again in its own statement), but a change made through the API must
 * show in the next preview: entries drop on the key store's change messages, which every change
 * of products, coupons or the organization sends after it commits (heard at once by the process
 * that made it, through LISTEN/NOTIFY by the others), and after a short TTL.
 *
 * A coupon with `max_uses` is never answered from here: its uses move with every quote, possibly
 * on another process, and a preview must say `exhausted` right after the last one was taken.
 */
export class PreviewCatalog {
  readonly #db: Database;
  readonly #entries = new Map<string, CatalogEntry>();
  readonly #loading = new Map<string, Promise<CatalogEntry>>();
  // Bumped on every change message: a load that started before one must not fill the memory.
  #generation = 0;

  constructor(db: Database, keys: KeyStore) {
    this.#db = db;
    keys.subscribe((message) => {
      this.#generation++;
      this.#loading.clear();
      const [kind, id] = message.split(':');
      if (kind === 'org' && id) {
        this.#entries.delete(`${id}:test`);
        this.#entries.delete(`${id}:live`);
      } else if (!id) {
        this.#entries.clear();
      }
    });
  }

  /**
   * The products and the coupon a preview names, from memory (read once per scope when missing),
   * or undefined when memory cannot tell: a limited coupon, or a product or code beyond what a
   * large catalog keeps. The caller then reads them.
   */
  async inputs(
    scope: Scope,
    request: { productIds: string[]; couponCode: string | undefined },
  ): Promise<RememberedInputs | undefined> {
    const key = `${scope.orgId}:${scope.mode}`;
    let entry = this.#entries.get(key);
    if (!entry || Date.now() - entry.at >= TTL_MS) entry = await this.#load(key, scope);
    let coupon: CouponRow | undefined;
    if (request.couponCode !== undefined) {
      if (!ASCII.test(request.couponCode)) return undefined;
      coupon = entry.coupons.get(request.couponCode.toUpperCase());
      if (coupon ? coupon.max_uses !== null : !entry.allCoupons) return undefined;
    }
    if (entry.allProducts) return { products: entry.products, coupon };
    const products = new Map<string, ProductRow>();
    for (const id of request.productIds) {
      const product = entry.products.get(id);
      if (!product) return undefined;
      products.set(id, product);
    }
    return { products, coupon };
  }

  #load(key: string, scope: Scope): Promise<CatalogEntry> {
    let loading = this.#loading.get(key);
    if (loading) return loading;
    const generation = this.#generation;
    loading = this.#read(scope).then(
      (entry) => {
        if (this.#loading.get(key) === loading) this.#loading.delete(key);
        if (generation === this.#generation) {
          if (this.#entries.size >= MAX_SCOPES && !this.#entries.has(key)) this.#entries.clear();
          this.#entries.set(key, entry);
        }
        return entry;
      },
      (error: unknown) => {
        if (this.#loading.get(key) === loading) this.#loading.delete(key);
        throw error;
      },
    );
    this.#loading.set(key, loading);
    return loading;
  }

  async #read(scope: Scope): Promise<CatalogEntry> {
    const at = Date.now();
    const [row] = await this.#db.query<{
      products: ProductRow[];
      coupons: (Omit<CouponRow, 'expires_at'> & { expires_at: string | null })[];
    }>(
      `SELECT
         (SELECT coalesce(json_agg(p), '[]') FROM (
            SELECT id, sku, nombre, descripcion, unidad, precio_lista, moneda, tax_rate, costo, aliases,
                   clave_sat, clave_unidad_sat, activo, fraccionable
            FROM products WHERE org_id = $1 AND mode = $2 AND activo ORDER BY id LIMIT $3) p) AS products,
         (SELECT coalesce(json_agg(k), '[]') FROM (
            SELECT id, code, tipo, valor, moneda, max_uses, uses, expires_at, active
            FROM coupons WHERE org_id = $1 AND mode = $2 ORDER BY id LIMIT $4) k) AS coupons`,
      [scope.orgId, scope.mode, MAX_PRODUCTS + 1, MAX_COUPONS + 1],
    );
    const products = row!.products.slice(0, MAX_PRODUCTS);
    const coupons = new Map<string, CouponRow>();
    let allCoupons = row!.coupons.length <= MAX_COUPONS;
    for (const coupon of row!.coupons.slice(0, MAX_COUPONS)) {
      // Codes are matched as upper(code) = upper($code) in SQL; JavaScript agrees on ASCII only.
      if (!ASCII.test(coupon.code)) {
        allCoupons = false;
        continue;
      }
      coupons.set(coupon.code.toUpperCase(), {
        ...coupon,
        expires_at: coupon.expires_at ? new Date(coupon.expires_at) : null,
      });
    }
    return {
      products: new Map(products.map((p) => [p.id, p])),
      allProducts: row!.products.length <= MAX_PRODUCTS,
      coupons,
      allCoupons,
      at,
    };
  }
}

const ASCII = /^[\x20-\x7e]*$/;
