// The one side effect of the package: registers <svc-quote-form> and <svc-product-picker>.
import { defineQuoteForm } from './quote-form/quote-form.js';

export type { SvcQuoteForm } from './quote-form/quote-form.component.js';

defineQuoteForm();
