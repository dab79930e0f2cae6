import { LANGUAGES } from '@svc/core';
import type { Database } from '../db/database.js';
import { sha256 } from '../ids.js';
import { listProducts } from '../repositories/products.js';
import type { KeyStore, KeyWithOrg } from './key-store.js';

/** A serialised configuration response and its entity tag. */
export interface CachedConfig {
  /** UTF-8 bytes, encoded once rather than on every response. */
  body: Uint8Array<ArrayBuffer>;
  etag: string;
}

const TTL_MS = 30_000;

/**
 * The widget configuration of an organization in a mode, built once and served from memory: the
 * hot path of every page view. Entries drop when the organization or its catalog changes (the key
 * store's change messages) and after a short TTL.
 */
export class ElementsConfigCache {
  readonly #db: Database;
  readonly #cache = new Map<string, CachedConfig & { at: number }>();

  constructor(db: Database, keys: KeyStore) {
    this.#db = db;
    keys.subscribe((message) => {
      const [kind, id] = message.split(':');
      if (kind === 'org' && id) {
        this.#cache.delete(`${id}:test`);
        this.#cache.delete(`${id}:live`);
      } else if (!id) {
        this.#cache.clear();
      }
    });
  }

  async get({ key, org }: KeyWithOrg): Promise<CachedConfig> {
    const id = `${org.id}:${key.mode}`;
    const hit = this.#cache.get(id);
    if (hit && Date.now() - hit.at < TTL_MS) return hit;
    const { records } = await listProducts(
      this.#db,
      { orgId: org.id, mode: key.mode },
      { limit: 2000, offset: 0, activeOnly: true },
    );
    const widget = org.widget;
    const data = {
      org: { nombre: org.nombre, color: org.brand_color, logo_url: org.logo_url, country: org.country },
      mode: key.mode,
      locale: org.locale,
      locales: LANGUAGES,
      currency: org.currency,
      currencies: org.currencies,
      iva_incluido: false,
      default_tax_rate: org.default_tax_rate,
      terminos: widget.terms_text ?? null,
      terminos_codigos: org.terminos,
      vigencia_dias: org.vigencia_dias,
      // Public fields only: never cost, margin, aliases or internal descriptions.
      catalog: records.map((p) => ({
        id: p.id,
        sku: p.sku,
        nombre: p.nombre,
        unidad: p.unidad,
        precio_lista: p.precio_lista,
        moneda: p.moneda,
        tax_rate: p.tax_rate,
        fraccionable: p.fraccionable,
      })),
      features: {
        ai_draft: widget.ai_draft ?? true,
        coupons: widget.coupons ?? true,
        custom_items: widget.custom_items ?? false,
      },
      required_client_fields: widget.required_client_fields ?? ['email'],
    };
    const json = JSON.stringify({ data });
    const entry = {
      body: new TextEncoder().encode(json),
      etag: `"${sha256(json).slice(0, 32)}"`,
      at: Date.now(),
    };
    this.#cache.set(id, entry);
    return entry;
  }
}
