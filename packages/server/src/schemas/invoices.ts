import { clienteSchema, descuentoSchema, maxChars, quoteRequestSchema } from '@svc/core';
import * as v from 'valibot';
import { INVOICE_ACTIONS, PAYMENT_METHODS } from '../services/invoices.js';
import { isoDate } from './requests.js';

const amount = v.pipe(
  v.number('must be a number'),
  v.finite('must be a number'),
  v.gtValue(0, 'must be greater than 0'),
  v.maxValue(1e12, 'must be at most 1e12'),
);
const note = (max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    maxChars(max, `must be at most ${max} characters`),
  );

/** POST /facturas: a draft invoice (design.md section 11); unknown properties refused at every level. */
export const invoiceCreateSchema = v.strictObject({
  cliente_id: v.optional(v.pipe(v.string('must be a string'), v.minLength(1), v.maxLength(64))),
  cliente: v.optional(clienteSchema),
  items: quoteRequestSchema.entries.items,
  moneda: quoteRequestSchema.entries.base_currency,
  iva_incluido: v.optional(v.boolean('must be true or false')),
  descuento: v.optional(v.nullable(descuentoSchema)),
  vence: v.optional(isoDate),
  dias_credito: v.optional(
    v.pipe(
      v.number('must be a number'),
      v.integer('must be an integer'),
      v.minValue(0, 'must be from 0 to 365'),
      v.maxValue(365, 'must be from 0 to 365'),
    ),
  ),
  metodo_pago: v.optional(v.picklist(['PUE', 'PPD'], 'must be PUE or PPD')),
  notas: v.optional(v.pipe(v.string('must be a string'), maxChars(5000, 'must be at most 5000 characters'))),
});

/** POST /facturas/{id}: `{ action, … }` with the fields of the payment and credit-note actions. */
export const invoiceActionSchema = v.strictObject({
  action: v.picklist(INVOICE_ACTIONS, `must be one of ${INVOICE_ACTIONS.join(', ')}`),
  monto: v.optional(amount),
  fecha: v.optional(isoDate),
  metodo: v.optional(v.picklist(PAYMENT_METHODS, `must be one of ${PAYMENT_METHODS.join(', ')}`)),
  referencia: v.optional(note(200)),
  motivo: v.optional(note(500)),
});

/** POST /test_helpers/fiscal. */
export const fiscalHelperSchema = v.strictObject({
  result: v.picklist(['stamped', 'rejected', 'unavailable'], 'must be stamped, rejected or unavailable'),
  motivo: v.optional(note(500)),
});

/** POST /test_helpers/facturas/{id}. */
export const invoiceHelperSchema = v.strictObject({
  action: v.picklist(['overdue', 'payment_failed'], 'must be overdue or payment_failed'),
  motivo: v.optional(note(500)),
});
