import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { LANGUAGES, type PaymentPlan } from '@svc/core';
import type { Database } from '../db/database.js';
import { sha256 } from '../ids.js';
import { listProducts } from '../repositories/products.js';
import type { KeyStore, KeyWithOrg } from './key-store.js';
import { requiredClientFields } from './orgs.js';
import { planText } from './payments.js';
import { fxRates } from './pricing.js';

/** A content coding the configuration is also kept in, as `Content-Encoding` names it. */
export type ConfigEncoding = 'br' | 'gzip';

/** One representation of the configuration: its bytes as sent, and its own entity tag. */
export interface ConfigRepresentation {
  /** Null for the JSON as is (no `Content-Encoding`). */
  encoding: ConfigEncoding | null;
  body: Uint8Array<ArrayBuffer>;
  /** Its length in bytes, as the Content-Length header wants it. */
  length: string;
  /** Strong, and different for each encoding (the JSON's tag with `-br` or `-gzip` inside the quotes). */
  etag: string;
}

/**
 * A serialised configuration response and its entity tag, with the same JSON compressed once
 * with brotli and gzip for the browsers that accept them (every browser does): a fifth of the
 * bytes to write on every page view.
 */
export interface CachedConfig extends ConfigRepresentation {
  /**
   * The JSON, serialised and encoded once: encoding 5 KB of text to UTF-8 on every page view was
   * the largest single cost of answering it.
   */
  body: Uint8Array<ArrayBuffer>;
  encoding: null;
  /** The compressed representations, only those smaller than the JSON itself. */
  encoded: Partial<Record<ConfigEncoding, ConfigRepresentation>>;
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
  readonly #building = new Map<string, { generation: number; build: Promise<CachedConfig> }>();

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
    const id = `${auth.org.id}:${auth.key.mode}`;
    const generation = this.#generation;
    // One build at a time per configuration: when an entry expires, every page view in flight
    // misses it at once, and each building (and compressing) its own copy made a burst of
    // identical work. A build started before a change message is not joined.
    const pending = this.#building.get(id);
    if (pending?.generation === generation) return pending.build;
    const build = this.#build(auth, id, generation).finally(() => {
      if (this.#building.get(id)?.build === build) this.#building.delete(id);
    });
    this.#building.set(id, { generation, build });
    return build;
  }

  async #build(auth: KeyWithOrg, id: string, generation: number): Promise<CachedConfig> {
    const { key, org } = auth;
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
      // What 1 unit of each currency is worth in `currency`: the widget converts catalog prices
      // into the visitor's currency with them, exactly as the server prices the quote.
      fx_rates: fxRates(org),
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
      required_client_fields: requiredClientFields(widget),
      plan_pagos: widgetPlan(widget.plan_pagos),
    };
    const json = JSON.stringify({ data });
    const body = new TextEncoder().encode(json);
    const tag = sha256(json).slice(0, 32);
    const entry = {
      encoding: null,
      body,
      length: String(body.length),
      etag: `"${tag}"`,
      encoded: await compressed(body, tag),
      at: Date.now(),
    };
    if (generation === this.#generation) this.#cache.set(id, entry);
    return entry;
  }
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * The JSON compressed once per cached configuration, off the event loop (in libuv's pool). An
 * encoding that does not make the body smaller is left out, and the JSON is sent as is.
 */
async function compressed(
  body: Uint8Array<ArrayBuffer>,
  tag: string,
): Promise<Partial<Record<ConfigEncoding, ConfigRepresentation>>> {
  const [br, gz] = await Promise.all([
    brotli(body, {
      params: {
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        // Quality 6: 0.17 ms for the demo's 5.8 KB, 1,014 B; the maximum (11) took 7.6 ms for
        // 949 B, paid every 30 s by every organization's configuration in use.
        [constants.BROTLI_PARAM_QUALITY]: 6,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
    // Level 9: 0.06 ms, 1,122 B for the same JSON.
    gzipped(body, { level: constants.Z_BEST_COMPRESSION }),
  ]);
  const encoded: Partial<Record<ConfigEncoding, ConfigRepresentation>> = {};
  for (const [encoding, bytes] of [
    ['br', br],
    ['gzip', gz],
  ] as const) {
    if (bytes.length >= body.length) continue;
    // A Buffer may be a view of a larger pooled one: copy into bytes of its own.
    const own = new Uint8Array(bytes);
    encoded[encoding] = { encoding, body: own, length: String(own.length), etag: `"${tag}-${encoding}"` };
  }
  return encoded;
}

/**
 * The merchant's usual payment plan for the widget's line under the totals, with its text in the
 * five languages (the strings stay here, out of the widget's size budget); null for cash.
 */
function widgetPlan(plan: PaymentPlan | null | undefined) {
  if (!plan || plan.tipo === 'contado') return null;
  return { ...plan, texto: Object.fromEntries(LANGUAGES.map((lang) => [lang, planText(plan, lang)])) };
}
