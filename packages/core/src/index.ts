// biome-ignore-all assist/source/organizeImports: the widget's bundle takes modules in this order; brand and decimal last compress better (brotli) by ~140 B of its 24 KB budget.
export { isCountryCode } from './countries.js';
export { isCurrencyCode } from './currencies.js';
export { docUrl, ERROR_CODES, type ErrorCode } from './error-codes.js';
export {
  convertPrice,
  currencyExponent,
  formatMoney,
  fromMinor,
  roundHalfAwayFromZero,
  toMinor,
} from './money.js';
export {
  classifyPayment,
  type PaymentPlan,
  paymentSchedule,
  planFitsTotal,
  type ScheduledPayment,
} from './payment-plan.js';
export {
  type ClienteRequest,
  clienteSchema,
  descuentoSchema,
  EU_EXEMPTION_REASONS,
  EXEMPTION_REASONS,
  fiscalSchema,
  MAX_LINES,
  type PreviewRequest,
  paymentPlanSchema,
  previewRequestSchema,
  type QuoteLineRequest,
  type QuoteRequest,
  quoteLineSchema,
  quoteRequestSchema,
  SPAIN_EXEMPTION_REASONS,
} from './schemas/quote-request.js';
export { countChars, maxChars } from './schemas/max-chars.js';
export { type Validation, validate } from './schemas/validate.js';
export { LANGUAGES, type Language, TERM_CODES, type TermCode, termLabel } from './terms.js';
export {
  computeTotals,
  type Discount,
  spread,
  type Totals,
  type TotalsInput,
  type TotalsLine,
  type TotalsLineInput,
} from './totals.js';

export { brandColors } from './brand.js';
export { parseDecimal, readNumber } from './decimal.js';
