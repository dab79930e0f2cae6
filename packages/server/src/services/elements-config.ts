import { LANGUAGES, type PaymentPlan } from '@svc/core';
import type { Database } from '../db/database.js';
import { sha256 } from '../ids.js';
import { listProducts } from '../repositories/products.js';
import type { KeyStore, KeyWithOrg } from './key-store.js';
import { planText } from './payments.js';

/** A serialised configuration response and its entity tag. */
export interface CachedConfig {
  /**
   * The JSON, serialised and encoded once: encoding 5 KB of text to UTF-8 on every page view was
   * the largest single cost of answering it.
   */
  body: Uint8Array<ArrayBuffer>;
  /** Its length in bytes, as the Content-Length header wants it. */
  length: string;
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
  // Bumped on every change message: a build that started before one must not fill the cache.
  #generation = 0;

  constructor(db: Database, keys: KeyStore) {
    this.#db = db;
    keys.subscribe((message) => {
      this.#generation++;
      const [kind, id] = message.split(':');
      if (kind === 'org' && id) {
        this.#cache.delete(`${id}:test`);
        this.#cache.delete(`${id}:live`);
      } else if (!id) {
        this.#cache.clear();
      }
    });
  }

  /** The configuration when memory holds a fresh one, without a query; undefined otherwise. */
  peek({ key, org }: KeyWithOrg): CachedConfig | undefined {
    const hit = this.#cache.get(`${org.id}:${key.mode}`);
    return hit && Date.now() - hit.at < TTL_MS ? hit : undefined;
  }

  async get(auth: KeyWithOrg): Promise<CachedConfig> {
    const hit = this.peek(auth);
    if (hit) return hit;
    const { key, org } = auth;
    const id = `${org.id}:${key.mode}`;
    const generation = this.#generation;
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
      plan_pagos: widgetPlan(widget.plan_pagos),
    };
    const json = JSON.stringify({ data });
    const body = new TextEncoder().encode(json);
    const entry = {
      body,
      length: String(body.length),
      etag: `"${sha256(json).slice(0, 32)}"`,
      at: Date.now(),
    };
    if (generation === this.#generation) this.#cache.set(id, entry);
    return entry;
  }
}

/**
 * The merchant's usual payment plan for the widget's line under the totals, with its text in the
 * five languages (the strings stay here, out of the widget's size budget); null for cash.
 */
function widgetPlan(plan: PaymentPlan | null | undefined) {
  if (!plan || plan.tipo === 'contado') return null;
  return { ...plan, texto: Object.fromEntries(LANGUAGES.map((lang) => [lang, planText(plan, lang)])) };
}
