import { defineProductPicker } from '../product-picker/product-picker.js';
import { SvcQuoteForm } from './quote-form.component.js';

export { SvcQuoteForm };

declare global {
  interface HTMLElementTagNameMap {
    'svc-quote-form': SvcQuoteForm;
  }
}

/** Registers `<svc-quote-form>` (and the picker it uses) once. */
export function defineQuoteForm(): void {
  defineProductPicker();
  if (!customElements.get('svc-quote-form')) customElements.define('svc-quote-form', SvcQuoteForm);
}
