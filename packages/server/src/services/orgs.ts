import type { Database, Queryable } from '../db/database.js';
import { invalidRequest } from '../errors.js';
import { AUTH_CHANGED_CHANNEL } from './api-keys.js';
import { isPlan, type Plan } from './plans.js';

/** Widget settings of an organization (`orgs.widget`). */
export interface WidgetSettings {
  /** Free-text lines allowed in quotes made through the widget. @defaultValue false */
  custom_items?: boolean;
  /** "Describe what you need" drafting. @defaultValue true */
  ai_draft?: boolean;
  /** Coupon field. @defaultValue true */
  coupons?: boolean;
  /** Client fields the widget requires beside `empresa`. @defaultValue ['email'] */
  required_client_fields?: string[];
  /** Terms shown under the totals. */
  terms_text?: string | null;
  /** Exchange rates: 1 unit of the key's currency is worth N units of the organization's currency. */
  fx_rates?: Record<string, number>;
  /** The merchant's usual payment plan: shown by the widget, given to the quotes it creates. */
  plan_pagos?: import('@svc/core').PaymentPlan | null;
}

/** The client fields the widget requires besides `empresa`: the settings', or the e-mail. */
export const requiredClientFields = (widget: WidgetSettings): string[] =>
  widget.required_client_fields ?? ['email'];

/** An organization as the service reads it. */
export interface Org {
  id: string;
  slug: string | null;
  nombre: string;
  plan: Plan;
  country: string;
  currency: string;
  currencies: string[];
  locale: string;
  default_tax_rate: number;
  brand_color: string | null;
  logo_url: string | null;
  terminos: string[];
  vigencia_dias: number;
  approval_discount_pct: number | null;
  widget: WidgetSettings;
  /** Where the seller is told of a client's message on a quote page (e-mail outbox); null: nowhere. */
  email_avisos: string | null;
  /** Test mode's own brand colour and widget features, over the above ({@link orgInMode}). */
  test_settings?: TestSettings;
  created_at: Date;
}

/** What test mode sets of the organization's widget (`orgs.test_settings`), from setup plans. */
export interface TestSettings {
  brand_color?: string | null;
  widget?: WidgetSettings;
}

/**
 * The organization as a key or page of `mode` sees it: in test mode, the brand colour and widget
 * features a test-mode setup plan set, over the organization's own; in live mode, its own.
 */
export function orgInMode(org: Org, mode: string): Org {
  const test = org.test_settings;
  if (mode !== 'test' || !test || (test.brand_color == null && !test.widget)) return org;
  return {
    ...org,
    brand_color: test.brand_color ?? org.brand_color,
    widget: { ...org.widget, ...test.widget },
  };
}

/** What creating an organization needs; everything but the name and plan has a default. */
export type NewOrg = Partial<Omit<Org, 'id' | 'created_at' | 'nombre' | 'plan'>> & {
  nombre: string;
  plan: string;
};

const COLUMNS =
  'id, slug, nombre, plan, country, currency, currencies, locale, default_tax_rate, brand_color, logo_url, terminos, vigencia_dias, approval_discount_pct, widget, email_avisos, test_settings, created_at';

/** Creates an organization. */
export async function createOrg(db: Queryable, input: NewOrg): Promise<Org> {
  const nombre = input.nombre.trim();
  if (!nombre) throw invalidRequest('name: must not be empty');
  if (!isPlan(input.plan))
    throw invalidRequest(`plan: must be one of free, starter, professional, scale, developer`);
  const [org] = await db.query<Org>(
    `INSERT INTO orgs (slug, nombre, plan, country, currency, currencies, locale, default_tax_rate, brand_color,
       logo_url, terminos, vigencia_dias, approval_discount_pct, widget, email_avisos)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
     RETURNING ${COLUMNS}`,
    [
      input.slug ?? null,
      nombre,
      input.plan,
      input.country ?? 'MX',
      input.currency ?? 'MXN',
      input.currencies ?? [input.currency ?? 'MXN'],
      input.locale ?? 'es',
      input.default_tax_rate ?? 0.16,
      input.brand_color ?? null,
      input.logo_url ?? null,
      input.terminos ?? ['contado'],
      input.vigencia_dias ?? 15,
      input.approval_discount_pct ?? null,
      JSON.stringify(input.widget ?? {}),
      input.email_avisos ?? null,
    ],
  );
  return org!;
}

/**
 * Reads an organization by id or by slug; with `mode`, as keys and pages of that mode see it
 * ({@link orgInMode}).
 */
export async function findOrg(
  db: Queryable,
  by: { id: string } | { slug: string },
  mode?: string,
): Promise<Org | undefined> {
  const [org] =
    'id' in by
      ? await db.query<Org>(`SELECT ${COLUMNS} FROM orgs WHERE id = $1`, [by.id])
      : await db.query<Org>(`SELECT ${COLUMNS} FROM orgs WHERE slug = $1`, [by.slug]);
  return org && mode ? orgInMode(org, mode) : org;
}

/** Tells every process that an organization's settings changed, so caches drop it. */
export async function announceOrgChanged(db: Database, orgId: string): Promise<void> {
  await db.notify(AUTH_CHANGED_CHANNEL, `org:${orgId}`);
}

/** The SQL column list of {@link Org}, for joins. */
export const ORG_COLUMNS = COLUMNS;
