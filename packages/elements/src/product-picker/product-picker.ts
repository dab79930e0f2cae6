import { SvcProductPicker } from './product-picker.component.js';

export { SvcProductPicker };

declare global {
  interface HTMLElementTagNameMap {
    'svc-product-picker': SvcProductPicker;
  }
}

/** Registers `<svc-product-picker>` once. */
export function defineProductPicker(): void {
  if (!customElements.get('svc-product-picker'))
    customElements.define('svc-product-picker', SvcProductPicker);
}
