import { clienteSchema, maxChars } from '@svc/core';
import * as v from 'valibot';
import { INVOICE_STATES } from '../repositories/invoices.js';
import { QUOTE_STATUSES } from '../repositories/quotes.js';

const TERMS = ['contado', 'net7', 'net15', 'net30', 'net45', 'net60', 'net90'] as const;
const text = (max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    maxChars(max, `at most ${max} characters`),
  );
/** An e-mail address as every form of the service takes it: trimmed, at most 254 characters. */
export const emailAddress = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.email('must be an e-mail address'),
  v.maxLength(254, 'at most 254 characters'),
);
const nullableText = (max: number) =>
  v.nullish(v.pipe(v.string('must be a string'), v.trim(), maxChars(max, `at most ${max} characters`)));

/** PATCH /clientes/{id}: contact data; every field optional, unknown fields refused. */
export const clientPatchSchema = v.strictObject({
  empresa: v.optional(text(200)),
  // As creation takes them (not empty once trimmed); null clears one.
  contacto: v.nullish(clienteSchema.entries.contacto.wrapped),
  email: v.nullish(emailAddress),
  // The same rule as creation's (`clienteSchema`): with its international prefix.
  telefono: v.nullish(clienteSchema.entries.telefono.wrapped),
  rfc: v.nullish(clienteSchema.entries.rfc.wrapped),
  terminos: v.nullish(v.picklist(TERMS, `must be one of ${TERMS.join(', ')}`)),
});

/** An amount of money as a product carries it: 0 or more, at most 10^12 (as every amount). */
const productAmount = v.pipe(
  v.number('must be a number'),
  v.finite('must be a number of 0 or more'),
  v.minValue(0, 'must be a number of 0 or more'),
  v.maxValue(1e12, 'must be at most 1e12'),
);

/** POST /productos: a catalog product. */
export const productCreateSchema = v.strictObject({
  sku: v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.regex(
      /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
      'must be 1 to 64 letters, digits, dots, dashes or underscores',
    ),
  ),
  nombre: text(200),
  descripcion: nullableText(2000),
  unidad: v.optional(text(40), 'pieza'),
  precio_lista: productAmount,
  moneda: v.optional(
    v.pipe(v.string('must be a string'), v.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code like MXN')),
  ),
  tax_rate: v.nullish(
    v.pipe(
      v.number('must be a number from 0 to 1'),
      v.minValue(0, 'must be from 0 to 1'),
      v.maxValue(1, 'must be from 0 to 1'),
    ),
  ),
  costo: v.nullish(productAmount),
  aliases: v.optional(
    v.pipe(v.array(text(100), 'must be a list of texts'), v.maxLength(50, 'at most 50 aliases')),
    [],
  ),
  clave_sat: v.nullish(v.pipe(v.string('must be a string'), v.regex(/^\d{8}$/, 'must be 8 digits'))),
  clave_unidad_sat: v.nullish(
    v.pipe(v.string('must be a string'), v.regex(/^[A-Z0-9]{1,5}$/, 'must be a unit key like H87')),
  ),
  fraccionable: v.optional(v.boolean('must be true or false'), false),
});

/** PATCH /productos/{id}: any field of creation but the SKU, and `activo`; unknown fields refused. */
export const productPatchSchema = v.strictObject({
  ...v.omit(productCreateSchema, ['sku']).entries,
  nombre: v.optional(productCreateSchema.entries.nombre),
  precio_lista: v.optional(productCreateSchema.entries.precio_lista),
  unidad: v.optional(text(40)),
  aliases: v.optional(productCreateSchema.entries.aliases.wrapped),
  fraccionable: v.optional(v.boolean('must be true or false')),
  activo: v.optional(v.boolean('must be true or false')),
});

/** POST /test_helpers/cotizaciones/{id}. */
export const testHelperSchema = v.strictObject({
  action: v.picklist(['open', 'expire', 'break_promises'], 'must be open, expire or break_promises'),
});

/**
 * Whether `day` (`YYYY-MM-DD`) is a day of the calendar: not 2026-02-30, and not in the year 0000,
 * which JavaScript's dates accept and PostgreSQL's do not.
 */
export const dayExists = (day: string): boolean => {
  const date = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(day) && !day.startsWith('0000');
};

/** An ISO calendar date (`YYYY-MM-DD`) that exists. */
export const isoDate = v.pipe(
  v.string('must be a date like 2026-12-31'),
  v.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date like 2026-12-31'),
  v.check(dayExists, 'must be a date that exists, like 2026-12-31'),
);

/** POST /tareas (design.md section 13). */
export const taskCreateSchema = v.strictObject({
  titulo: v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    maxChars(200, 'must be at most 200 characters'),
  ),
  due_date: v.optional(v.nullable(isoDate)),
  cotizacion_id: v.optional(
    v.nullable(v.pipe(v.string('must be a string'), v.uuid('must be a quote id (UUID)'))),
  ),
  factura_id: v.optional(
    v.nullable(v.pipe(v.string('must be a string'), v.uuid('must be an invoice id (UUID)'))),
  ),
  notas: v.optional(
    v.nullable(v.pipe(v.string('must be a string'), maxChars(5000, 'must be at most 5000 characters'))),
  ),
});

/** POST /tareas/{id}. */
export const taskActionSchema = v.strictObject({
  action: v.picklist(['complete'], 'must be complete'),
});

const stepText = (max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    maxChars(max, `must be at most ${max} characters`),
  );
const days = v.pipe(
  v.number('must be a number'),
  v.integer('must be a whole number of days'),
  v.minValue(0, 'must be 0 or more'),
  v.maxValue(3650),
);

/** One workflow step, from the fixed set of design.md section 13. */
export const workflowStepSchema = v.variant(
  'tipo',
  [
    v.strictObject({ tipo: v.literal('create_task'), titulo: stepText(200), dias: v.optional(days, 0) }),
    v.strictObject({ tipo: v.literal('send_reminder') }),
    v.strictObject({ tipo: v.literal('resend') }),
    v.strictObject({ tipo: v.literal('mark_uncollectible'), dias_vencida: v.optional(days, 0) }),
    v.strictObject({ tipo: v.literal('add_comment'), mensaje: stepText(2000) }),
  ],
  'tipo must be create_task, send_reminder, resend, mark_uncollectible or add_comment',
);
export type WorkflowStep = v.InferOutput<typeof workflowStepSchema>;

const statusesOf = (objeto: 'cotizacion' | 'factura'): readonly string[] =>
  objeto === 'cotizacion' ? QUOTE_STATUSES : INVOICE_STATES;

/**
 * A workflow as an organization defines it (the seed, setup plans). `estados` optionally limits
 * the records it runs on by status; `resend` and `add_comment` are steps of quote workflows,
 * `mark_uncollectible` of invoice workflows.
 */
export const workflowSchema = v.pipe(
  v.strictObject({
    nombre: v.pipe(
      v.string('must be a string'),
      v.regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'must be 1 to 63 lower-case letters, digits, _ or -'),
    ),
    objeto: v.picklist(['cotizacion', 'factura'], 'must be cotizacion or factura'),
    pasos: v.pipe(
      v.array(workflowStepSchema, 'must be a list of steps'),
      v.minLength(1, 'must have at least 1 step'),
      v.maxLength(20, 'must have at most 20 steps'),
    ),
    estados: v.optional(
      v.pipe(
        v.array(stepText(40), 'must be a list of statuses'),
        // Empty, it would refuse every record: leave it out to run on any status.
        v.minLength(1, 'must name at least 1 status, or be left out'),
        v.maxLength(10, 'must name at most 10 statuses'),
      ),
    ),
    activo: v.optional(v.boolean('must be true or false'), true),
  }),
  v.forward(
    v.check(
      (w) => (w.estados ?? []).every((status) => statusesOf(w.objeto).includes(status)),
      `must name statuses of the workflow's records: quotes ${QUOTE_STATUSES.join(', ')}; invoices ${INVOICE_STATES.join(', ')}`,
    ),
    ['estados'],
  ),
  v.forward(
    v.check(
      (w) =>
        w.pasos.every((step) =>
          w.objeto === 'cotizacion'
            ? step.tipo !== 'mark_uncollectible'
            : step.tipo !== 'resend' && step.tipo !== 'add_comment',
        ),
      'resend and add_comment are steps of quote workflows, mark_uncollectible of invoice workflows',
    ),
    ['pasos'],
  ),
);
export type WorkflowDefinition = v.InferOutput<typeof workflowSchema>;

/** POST /workflows/{id}/invoke. */
export const workflowInvokeSchema = v.strictObject({
  ids: v.pipe(
    v.array(
      v.pipe(v.string('must be a string'), v.uuid('must be record ids (UUID)')),
      'must be a list of ids',
    ),
    v.minLength(1, 'must have 1 to 100 ids'),
    v.maxLength(100, 'must have 1 to 100 ids'),
    // Each record is run once: a repeated id would run its steps twice (two tasks, two e-mails).
    v.check((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, 'must not repeat an id'),
  ),
});
