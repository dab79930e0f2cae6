import * as v from 'valibot';
import { isCountryCode } from '../countries.js';
import { isCurrencyCode } from '../currencies.js';
import { TERM_CODES } from '../terms.js';
import { maxChars } from './max-chars.js';

/** Spain's exemption and non-subjection causes, the `exemption_reason` values of a Spanish organization. */
export const SPAIN_EXEMPTION_REASONS = ['E1', 'E2', 'E3', 'E4', 'E5', 'E6', 'N1', 'N2', 'S2'] as const;
/** The European e-invoice classification, the values of an organization elsewhere in the EU. */
export const EU_EXEMPTION_REASONS = [
  'VATEX-EU-AE',
  'VATEX-EU-IC',
  'VATEX-EU-G',
  'VATEX-EU-O',
  'Z',
  'VATEX-EU-132',
  'VATEX-EU-135-1',
  'VATEX-EU-79-C',
  'VATEX-EU-148',
  'VATEX-EU-151',
  'VATEX-EU-309',
  'VATEX-FR-FRANCHISE',
] as const;
/** Allowed `exemption_reason` values: Spain's causes and the EU e-invoice classification. */
export const EXEMPTION_REASONS = [...SPAIN_EXEMPTION_REASONS, ...EU_EXEMPTION_REASONS] as const;

/** Most lines a quote may have. */
export const MAX_LINES = 100;
/** The largest amount of one line, in major units (cantidad × price). */
export const MAX_LINE_AMOUNT = 1e10;

const text = (max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    maxChars(max, `must be at most ${max} characters`),
  );
/** An amount of 0 up to a trillion (`message` says why one below is refused; above, the ceiling is named). */
const money = (message: string) =>
  v.pipe(
    v.number('must be a number'),
    v.finite(message),
    v.minValue(0, message),
    v.maxValue(1e12, 'must be at most 1e12'),
  );
const currency = v.pipe(
  v.string('must be a string'),
  v.check(isCurrencyCode, 'must be an ISO 4217 currency code like MXN'),
);
const rate = v.pipe(
  v.number('must be a number'),
  v.minValue(0, 'must be from 0 to 1'),
  v.maxValue(1, 'must be from 0 to 1'),
);

/** One line of `items`. */
export const quoteLineSchema = v.pipe(
  v.strictObject({
    descripcion: text(500),
    cantidad: v.pipe(
      v.number('must be a number'),
      v.finite('must be a number greater than 0'),
      v.gtValue(0, 'must be a number greater than 0'),
      v.maxValue(1e9, 'must be at most 1000000000'),
    ),
    precio_unitario: money('must be a number of 0 or more'),
    precio_negociado: v.optional(v.nullable(money('must be a number of 0 or more'))),
    costo_unitario: v.optional(money('must be a number of 0 or more')),
    producto_id: v.optional(
      v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(64)),
    ),
    tax_rate: v.optional(rate),
    // null, like an absent one, is derived from the client.
    exemption_reason: v.optional(
      v.nullable(v.picklist(EXEMPTION_REASONS, `must be one of ${EXEMPTION_REASONS.join(', ')}`)),
    ),
    // Mexico only, and "ignored outside Mexico": their form is checked where the organization's
    // country is known (the server's pricing).
    clave_sat: v.optional(
      v.pipe(
        v.string('must be a string'),
        v.maxLength(64),
        v.description('Mexico only: 8 digits (c_ClaveProdServ), default 01010101; ignored elsewhere'),
      ),
    ),
    clave_unidad_sat: v.optional(
      v.pipe(
        v.string('must be a string'),
        v.maxLength(64),
        v.description('Mexico only: 1 to 5 letters or digits (c_ClaveUnidad), like H87; ignored elsewhere'),
      ),
    ),
  }),
  // A line without a rate of its own may still be taxed at 0 (its product's, the organization's):
  // that is checked once the rate is known.
  v.forward(
    v.check(
      (line) => line.exemption_reason == null || line.tax_rate === undefined || line.tax_rate === 0,
      'only allowed on a line with tax_rate 0',
    ),
    ['exemption_reason'],
  ),
  // Totals are computed in integer minor units: 100 lines of this much, taxed, stay exact.
  v.forward(
    v.check(
      (line) => line.cantidad * Math.max(line.precio_unitario, line.precio_negociado ?? 0) <= MAX_LINE_AMOUNT,
      'times the price must be at most 10000000000 a line',
    ),
    ['cantidad'],
  ),
);

/** SAT's `c_RegimenFiscal`: the tax regimes a CFDI's receiver may declare. */
const REGIMENES = [
  '601',
  '603',
  '605',
  '606',
  '607',
  '608',
  '610',
  '611',
  '612',
  '614',
  '615',
  '616',
  '620',
  '621',
  '622',
  '623',
  '624',
  '625',
  '626',
  '628',
  '629',
  '630',
];
/** SAT's `c_UsoCFDI`: what the receiver uses a CFDI for. */
const USOS_CFDI = [
  'G01',
  'G02',
  'G03',
  'I01',
  'I02',
  'I03',
  'I04',
  'I05',
  'I06',
  'I07',
  'I08',
  'D01',
  'D02',
  'D03',
  'D04',
  'D05',
  'D06',
  'D07',
  'D08',
  'D09',
  'D10',
  'S01',
  'CP01',
  'CN01',
];
/** A Mexican RFC: 3 letters (a company) or 4 (a person), the date of 6 digits, 3 characters. */
const RFC = /^[A-ZÑ&]{3,4}\d{6}[A-Z\d]{3}$/;

/**
 * `cliente.fiscal`: tax data. A Mexican client's tax id is an RFC, and the regime and CFDI use
 * are codes of SAT's catalogs: a CFDI declaring anything else is refused by every stamping
 * service, so such data is refused when it is given, not when an invoice is stamped.
 */
export const fiscalSchema = v.pipe(
  v.strictObject({
    country: v.pipe(
      v.string('must be a string'),
      v.check(isCountryCode, 'must be an ISO 3166-1 alpha-2 country code like MX'),
    ),
    tax_id: text(40),
    legal_name: v.optional(text(300)),
    regimen_fiscal: v.optional(
      v.picklist(REGIMENES, "must be a tax regime code of SAT's catalog, like 601 or 616"),
    ),
    uso_cfdi: v.optional(v.picklist(USOS_CFDI, "must be a CFDI use code of SAT's catalog, like G03 or S01")),
    cp_fiscal: v.optional(
      v.pipe(v.string('must be a string'), v.regex(/^\d{5}$/, 'must be a 5-digit postal code')),
    ),
  }),
  v.forward(
    v.check(
      (fiscal) => fiscal.country !== 'MX' || RFC.test(fiscal.tax_id.toUpperCase()),
      'must be an RFC like XAXX010101000 for a client in Mexico',
    ),
    ['tax_id'],
  ),
);

/** `cliente`: the client addressed, or the data to create it. */
export const clienteSchema = v.strictObject({
  empresa: text(200),
  email: v.optional(
    v.pipe(v.string('must be a string'), v.trim(), v.email('must be an e-mail address'), v.maxLength(254)),
  ),
  contacto: v.optional(text(200)),
  telefono: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.trim(),
      v.regex(
        /^\+[0-9][0-9 ()-]{5,24}$/,
        'must be a telephone number with its international prefix, like +52 55 1234 5678',
      ),
    ),
  ),
  rfc: v.optional(text(20)),
  fiscal: v.optional(fiscalSchema),
});

/** `descuento`: a document discount before tax, or null to remove it. */
export const descuentoSchema = v.variant(
  'tipo',
  [
    v.strictObject({
      tipo: v.literal('porcentaje'),
      valor: v.pipe(
        v.number('must be a number'),
        v.minValue(0, 'must be from 0 to 100'),
        v.maxValue(100, 'must be from 0 to 100'),
      ),
    }),
    v.strictObject({ tipo: v.literal('monto'), valor: money('must be an amount of 0 or more') }),
  ],
  'tipo must be porcentaje or monto',
);

/** `plan_pagos`: cash (the default), a deposit of 1–99 % then the balance, or 2–24 installments. */
export const paymentPlanSchema = v.variant(
  'tipo',
  [
    v.strictObject({ tipo: v.literal('contado') }),
    v.strictObject({
      tipo: v.literal('anticipo'),
      porcentaje: v.pipe(
        v.number('must be a number'),
        v.finite('must be from 1 to 99'),
        v.minValue(1, 'must be from 1 to 99'),
        v.maxValue(99, 'must be from 1 to 99'),
      ),
    }),
    v.strictObject({
      tipo: v.literal('cuotas'),
      numero: v.pipe(
        v.number('must be a number'),
        v.integer('must be a whole number from 2 to 24'),
        v.minValue(2, 'must be from 2 to 24'),
        v.maxValue(24, 'must be from 2 to 24'),
      ),
    }),
  ],
  'tipo must be contado, anticipo or cuotas',
);

const requestEntries = {
  items: v.pipe(
    v.array(quoteLineSchema, 'must be a list of lines'),
    v.minLength(1, 'must have at least 1 line'),
    v.maxLength(MAX_LINES, `must have at most ${MAX_LINES} lines`),
  ),
  cliente_id: v.optional(v.pipe(v.string('must be a string'), v.minLength(1), v.maxLength(64))),
  cliente: v.optional(clienteSchema),
  terminos: v.optional(v.picklist(TERM_CODES, `must be one of ${TERM_CODES.join(', ')}`)),
  vigencia_dias: v.optional(
    v.pipe(
      v.number('must be a number'),
      v.integer('must be an integer'),
      v.minValue(Number.MIN_SAFE_INTEGER),
      v.maxValue(Number.MAX_SAFE_INTEGER),
    ),
  ),
  notas: v.optional(v.pipe(v.string('must be a string'), maxChars(5000, 'must be at most 5000 characters'))),
  base_currency: v.optional(currency),
  fiscal_currency: v.optional(currency),
  iva_incluido: v.optional(v.boolean('must be true or false')),
  descuento: v.optional(v.nullable(descuentoSchema)),
  cupon: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.trim(),
      v.minLength(1, 'must not be empty'),
      maxChars(64, 'must be at most 64 characters'),
    ),
  ),
  send: v.optional(v.boolean('must be true or false')),
  plan_pagos: v.optional(paymentPlanSchema),
};

/** The body of POST /cotizaciones; unknown properties are refused at every level. */
export const quoteRequestSchema = v.strictObject(requestEntries);

/**
 * The body of POST /elements/preview: POST /cotizaciones' body without `cliente` (design.md section
 * 6), so that a basket the widget can create can be previewed as it is. What does not change the
 * totals is checked and left aside.
 */
export const previewRequestSchema = v.strictObject(
  (({ cliente: _cliente, ...entries }) => entries)(requestEntries),
);

export type QuoteRequest = v.InferOutput<typeof quoteRequestSchema>;
export type QuoteLineRequest = v.InferOutput<typeof quoteLineSchema>;
export type ClienteRequest = v.InferOutput<typeof clienteSchema>;
export type PreviewRequest = v.InferOutput<typeof previewRequestSchema>;
