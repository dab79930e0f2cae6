import { html, nothing, type TemplateResult } from 'lit';
import type { Text, View } from '../internal/view.js';

/** The four figures of a quote, in major units. */
export interface Figures {
  subtotal: number;
  descuento: number;
  impuestos: number;
  total: number;
}

/** The coupon as last checked. */
export interface CouponState {
  code: string;
  status: 'idle' | 'checking' | 'valid' | 'invalid';
  /** Why it does not apply. */
  reason?: Text;
}

export const idleCoupon: CouponState = { code: '', status: 'idle' };

/** The service's reason (`expired`…) why a coupon does not apply, in the form's language. */
export const couponReason =
  (reason: string): Text =>
  ({ t }) =>
    t.couponReasons[reason] ?? reason;

/** The coupon field: applied with its button or Enter, checked through the server's preview. */
export function couponField(
  view: View,
  state: CouponState,
  discount: number,
  apply: (code: string) => void,
): TemplateResult {
  const { t } = view;
  const read = (from: Element) =>
    from.closest('[part="coupon"]')!.querySelector('input')!.value.trim().toUpperCase();
  const invalid = state.status === 'invalid';
  return html`<div part="coupon" class="field">
    <label for="svc-coupon">${t.coupon}</label>
    <div class="row nowrap">
      <input id="svc-coupon" class="grow" autocomplete="off" autocapitalize="characters" maxlength="64"
        aria-describedby="svc-coupon-status" aria-invalid=${!!invalid}
        @keydown=${(e: KeyboardEvent) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            apply(read(e.target as Element));
          }
        }} />
      <button type="button" @click=${(e: Event) => apply(read(e.target as Element))}>${t.apply}</button>
    </div>
    <p id="svc-coupon-status" role="status" class=${invalid ? 'error-text' : state.status === 'valid' ? 'ok-text' : 'muted'}>${
      state.status === 'valid'
        ? view.say(t.couponApplied, { code: state.code, amount: view.money(discount) })
        : state.status === 'checking'
          ? t.couponChecking
          : invalid
            ? state.reason?.(view)
            : state.code
              ? t.couponLater
              : ''
    }</p>
  </div>`;
}

/**
 * Subtotal, discount, tax and total. `pending` while the server's preview of the current basket
 * has not answered yet (the figures are the local computation, which the preview confirms);
 * `refusal` is why the server refused the basket, said in a live region under the figures.
 */
export function totalsPanel(
  view: View,
  figures: Figures,
  pending: boolean,
  refusal: Text | undefined,
): TemplateResult {
  const { t, money } = view;
  return html`<div><dl class="totals" part="totals" aria-busy=${!!pending}>
    <div><dt>${t.subtotal}</dt><dd>${money(figures.subtotal)}</dd></div>
    ${figures.descuento > 0 ? html`<div><dt>${t.discount}</dt><dd>−${money(figures.descuento)}</dd></div>` : nothing}
    <div><dt>${t.tax}</dt><dd>${money(figures.impuestos)}</dd></div>
    <div class="grand"><dt>${t.total}</dt><dd>${money(figures.total)}</dd></div>
  </dl><p class="error-text" id="svc-totals-error" role="alert">${refusal?.(view)}</p></div>`;
}
