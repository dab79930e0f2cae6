// Classes and types only: importing this registers nothing and touches no browser global, so it
// is safe during server-side rendering. Import '@svc/elements/define' to register the tags.
export type { ChangeDetail, QuoteCreatedDetail, SvcErrorDetail, SvcEventMap } from './events/events.js';
export { SvcApiError } from './internal/api-client.js';
export { LOCALES, type Locale } from './internal/i18n/index.js';
export { SvcProductPicker } from './product-picker/product-picker.component.js';
export type {
  ElementsConfig,
  QuoteClient,
  QuoteCreated,
  QuoteLine,
} from './quote-form/quote-form.component.js';
export { SvcQuoteForm, setDefaultApiBase } from './quote-form/quote-form.component.js';
export { defineQuoteForm } from './quote-form/quote-form.js';
