// Classes and types only: importing this registers nothing and touches no browser global, so it
// is safe during server-side rendering. Import '@svc/elements/define' to register the tags.
export type { QuoteClient } from './client-fields/client-fields.js';
export type { SvcChangeDetail, SvcChangeItem } from './events/svc-change.js';
export type { SvcDraftItemDetail } from './events/svc-draft-item.js';
export type { SvcErrorDetail } from './events/svc-error.js';
export type { SvcEventMap } from './events/svc-event.js';
export type { SvcQuoteCreatedDetail } from './events/svc-quote-created.js';
export type { SvcReadyDetail } from './events/svc-ready.js';
export { SvcApiError } from './internal/api-client.js';
export { LOCALES, type Locale } from './internal/i18n/index.js';
export type { QuoteLine } from './line-list/line-list.js';
export { type PickerProduct, SvcProductPicker } from './product-picker/product-picker.component.js';
export {
  type ElementsConfig,
  type QuoteCreated,
  SvcQuoteForm,
  setDefaultApiBase,
} from './quote-form/quote-form.component.js';
export { defineQuoteForm } from './quote-form/quote-form.js';
