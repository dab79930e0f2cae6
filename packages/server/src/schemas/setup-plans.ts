import { maxChars } from '@svc/core';
import * as v from 'valibot';
import { dayExists, workflowSchema } from './requests.js';

const text = (max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    maxChars(max, `must be at most ${max} characters`),
  );
const currency = v.pipe(
  v.string('must be a string'),
  v.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code like MXN'),
);
const amount = v.pipe(
  v.number('must be a number'),
  v.finite('must be a number'),
  v.minValue(0, 'must be 0 or more'),
  v.maxValue(1e12),
);

const productSchema = v.strictObject({
  sku: v.pipe(
    v.string('must be a string'),
    v.regex(
      /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
      'must be 1 to 64 letters, digits, dots, dashes or underscores',
    ),
  ),
  nombre: text(200),
  unidad: text(40),
  precio_lista: amount,
  moneda: currency,
  tax_rate: v.optional(
    v.nullable(
      v.pipe(
        v.number('must be a number'),
        v.minValue(0, 'must be from 0 to 1'),
        v.maxValue(1, 'must be from 0 to 1'),
      ),
    ),
  ),
  aliases: v.optional(
    v.pipe(v.array(text(100), 'must be a list of words'), v.maxLength(50, 'must have at most 50 aliases')),
  ),
});

const couponSchema = v.pipe(
  v.strictObject({
    code: v.pipe(
      v.string('must be a string'),
      v.regex(/^[A-Za-z0-9_-]{2,64}$/, 'must be 2 to 64 letters, digits, _ or -'),
    ),
    tipo: v.picklist(['porcentaje', 'monto'], 'must be porcentaje or monto'),
    valor: amount,
    moneda: v.optional(v.nullable(currency)),
    max_uses: v.optional(
      v.nullable(
        v.pipe(
          v.number('must be a number'),
          v.integer('must be an integer'),
          v.minValue(1, 'must be at least 1'),
          v.maxValue(2_147_483_647, 'must be at most 2147483647'),
        ),
      ),
    ),
    expires_at: v.optional(
      v.nullable(
        v.pipe(
          v.string('must be a date'),
          v.isoTimestamp('must be an ISO 8601 timestamp'),
          v.check((at) => dayExists(at.slice(0, 10)), 'must be a date that exists'),
        ),
      ),
    ),
    active: v.optional(v.boolean('must be true or false'), true),
  }),
  v.forward(
    v.check((c) => c.tipo !== 'porcentaje' || c.valor <= 100, 'must be at most 100 for a percentage'),
    ['valor'],
  ),
);

/** Whether `elements` names anything to change (`{}` or `{ features: {} }` names nothing). */
export const changesElements = (
  elements: v.InferOutput<typeof elementsSchema> | undefined,
): elements is v.InferOutput<typeof elementsSchema> =>
  !!elements &&
  (elements.origins !== undefined ||
    elements.color !== undefined ||
    Object.keys(elements.features ?? {}).length > 0);

const elementsSchema = v.strictObject({
  origins: v.optional(
    v.pipe(
      v.array(v.pipe(v.string('must be a string'), v.maxLength(200)), 'must be a list of origins'),
      v.maxLength(50),
    ),
  ),
  color: v.optional(
    v.pipe(v.string('must be a string'), v.regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour like #1f7a4d')),
  ),
  features: v.optional(
    v.strictObject({
      ai_draft: v.optional(v.boolean('must be true or false')),
      coupons: v.optional(v.boolean('must be true or false')),
      custom_items: v.optional(v.boolean('must be true or false')),
    }),
  ),
});

const unique = <T>(key: (item: T) => string, what: string) =>
  v.check<T[], string>(
    (items) => new Set(items.map((i) => key(i).toLowerCase())).size === items.length,
    `must not name the same ${what} twice`,
  );

/** POST /setup/plans: the proposal, validated whole before anything is stored. */
export const setupPlanSchema = v.pipe(
  v.strictObject({
    resumen: v.optional(text(2000)),
    productos: v.optional(
      v.pipe(
        v.array(productSchema, 'must be a list of products'),
        v.maxLength(500),
        unique((p) => p.sku, 'sku'),
      ),
    ),
    cupones: v.optional(
      v.pipe(
        v.array(couponSchema, 'must be a list of coupons'),
        v.maxLength(100),
        unique((c) => c.code, 'code'),
      ),
    ),
    workflows: v.optional(
      v.pipe(
        v.array(workflowSchema, 'must be a list of workflows'),
        v.maxLength(20),
        unique((w) => w.nombre, 'nombre'),
      ),
    ),
    elements: v.optional(elementsSchema),
  }),
  v.check(
    (plan) =>
      !!(
        plan.productos?.length ||
        plan.cupones?.length ||
        plan.workflows?.length ||
        changesElements(plan.elements)
      ),
    'a plan must propose at least one change (productos, cupones, workflows or elements)',
  ),
);
export type SetupPlanRequest = v.InferOutput<typeof setupPlanSchema>;
