import { readNumber } from '@svc/core';
import { html, nothing, type TemplateResult } from 'lit';
import type { Text, View } from '../internal/view.js';

/** A line of the basket. */
export interface QuoteLine {
  descripcion: string;
  cantidad: number;
  precio_unitario: number;
  producto_id?: string;
  sku?: string;
  unidad?: string;
  tax_rate?: number | null;
  /** Whether the unit may be split (hours, metres): decimal quantities. */
  fraccionable?: boolean;
}

/** A line as the form keeps it: with a stable key, whether it just arrived, and its quantity's error. */
export interface BasketLine extends QuoteLine {
  key: number;
  fresh?: boolean;
  /** What is wrong with the quantity as typed (or as the service refused it). */
  error?: Text | undefined;
  /** A quantity typed that the line does not take, left in its field while `error` says why. */
  typed?: string | undefined;
}

/** What the line list does when the person acts on it. */
export interface LineListActions {
  quantity(key: number, cantidad: number): void;
  /**
   * The quantity typed (`typed`) is not one the line takes: `error` says why, and the line goes
   * back to `was`, what it held before this edit, so no amount of a quantity typed on the way
   * (the "2" of "2.5") stays.
   */
  invalid(key: number, error: Text, typed: string, was: number): void;
  remove(key: number): void;
}

/** The locale's decimal separator. */
export const decimalMark = (view: View): string => view.number(1.5)[1]!;

/**
 * The quantities a line takes: from one unit (a thousandth of a divisible one) up to what keeps
 * its amount within the service's limit of 10,000,000,000 a line (`MAX_LINE_AMOUNT` in @svc/core).
 */
export function quantityLimits(line: QuoteLine): [min: number, max: number] {
  const k = line.fraccionable ? 1000 : 1;
  return [1 / k, Math.min(1e9, Math.floor((1e10 / line.precio_unitario) * k) / k)];
}

/**
 * A typed quantity as the line takes it (whole units, or up to 3 decimals for divisible ones,
 * within {@link quantityLimits}); null when it does not qualify.
 */
export const cleanQuantity = (view: View, raw: string, line: QuoteLine): number | null =>
  readNumber(raw, decimalMark(view), ...quantityLimits(line), !line.fraccionable);

/** Why a quantity does not qualify, in the form's language: the range it must be in. */
export function quantityError(view: View, line: QuoteLine): string {
  const [min, max] = quantityLimits(line);
  return view.say(line.fraccionable ? view.t.numberRange : view.t.wholeRange, {
    min: view.number(min),
    max: view.number(max),
  });
}

/** A line's quantity field, with what the line held when the field took the focus. */
type QuantityInput = HTMLInputElement & { was?: number };

/** A number as typed back into an input: the locale's decimal mark, no grouping. */
const plain = (view: View, value: number) => String(value).replace('.', decimalMark(view));

/**
 * The lines of the basket: name, read-only unit price and a remove button, then quantity and amount
 * (the order they are seen and tabbed through, wide or narrow; the amounts end where the totals do).
 * Renders into the form's own shadow root (one stylesheet, and ARIA references stay in one tree).
 */
export function lineList(
  view: View,
  lines: BasketLine[],
  error: Text | undefined,
  act: LineListActions,
): TemplateResult {
  const { t } = view;
  return html`<section part="lines" aria-labelledby="svc-lines-title">
    <h3 id="svc-lines-title">${t.linesTitle}</h3>
    ${
      lines.length === 0
        ? html`<p class="muted" id="svc-lines-empty" tabindex="-1" aria-describedby=${error ? 'svc-lines-error' : nothing}>${t.empty}</p>`
        : html`<ul class="lines">
          ${lines.map(
            (line) => html`<li class="line ${line.fresh ? 'new' : ''}" part="line">
              <div class="what">
                <div class="name">${line.descripcion}</div>
                <div class="muted small">${view.money(line.precio_unitario)}${line.unidad ? ` / ${line.unidad}` : ''}</div>
                <button type="button" class="link" aria-label="${t.remove}: ${line.descripcion}" @click=${() => act.remove(line.key)}>
                  ${t.remove}
                </button>
              </div>
              <input
                class="qty"
                id="svc-q-${line.key}"
                inputmode=${line.fraccionable ? 'decimal' : 'numeric'}
                autocomplete="off"
                aria-label="${t.quantity}: ${line.descripcion}"
                aria-invalid=${!!line.error}
                aria-describedby=${line.error ? `svc-qe-${line.key}` : nothing}
                .value=${line.typed ?? plain(view, line.cantidad)}
                @focus=${(e: Event) => {
                  // What the line held before this edit: a quantity typed wrong goes back to it.
                  (e.target as QuantityInput).was = line.cantidad;
                }}
                @input=${(e: Event) => {
                  // Taken while typing only when it reads back the same ("2,5", not "1.5" in German,
                  // which becomes "1,5" on change): the input's text is never rewritten under the caret.
                  const raw = (e.target as HTMLInputElement).value.trim();
                  const value = cleanQuantity(view, raw, line);
                  if (value !== null && plain(view, value) === raw && (value !== line.cantidad || line.error))
                    act.quantity(line.key, value);
                }}
                @keydown=${(e: KeyboardEvent) => {
                  // Enter takes the quantity; it does not send the quote.
                  if (e.key !== 'Enter') return;
                  e.preventDefault();
                  (e.target as HTMLInputElement).dispatchEvent(new Event('change'));
                }}
                @change=${(e: Event) => {
                  const input = e.target as QuantityInput;
                  const value = cleanQuantity(view, input.value, line);
                  if (value === null)
                    act.invalid(
                      line.key,
                      (v) => quantityError(v, line),
                      input.value,
                      input.was ?? line.cantidad,
                    );
                  else {
                    input.value = plain(view, value);
                    if (value !== line.cantidad || line.error) act.quantity(line.key, value);
                  }
                }}
              />
              <span class="amount">${view.money(line.cantidad * line.precio_unitario)}</span>
              ${line.error ? html`<span class="error-text" id="svc-qe-${line.key}">${line.error(view)}</span>` : nothing}
            </li>`,
          )}
        </ul>`
    }
    ${error ? html`<p class="error-text" id="svc-lines-error">${error(view)}</p>` : nothing}
  </section>`;
}

/** The custom line's message when its description is empty. */
const needDescription: Text = (v) => v.t.required;

/**
 * The "custom item" disclosure: a free-text line with its own price (when the merchant allows).
 * `error` is what is wrong with the description or the price typed; `act.invalid` is told what is wrong (nothing: the message goes).
 */
export function customLine(
  view: View,
  error: Text | undefined,
  act: { add(line: QuoteLine): void; invalid(error?: Text): void },
): TemplateResult {
  const { t } = view;
  // Which of the two fields the message is about. (Lit writes a boolean attribute value as "true"
  // or "false", as ARIA wants: hence `${!!x}` in the ARIA states of the form.)
  const desc = error === needDescription;
  const price = error && !desc;
  /** Adds the row's line, or puts the focus on what it still needs. */
  const addFrom = (row: Element) => {
    const [desc, price] = row.querySelectorAll('input');
    // From 0 to the most one line may amount to, to the cent.
    const value = readNumber(price!.value, decimalMark(view), 0, 1e10, false, 2);
    const text = desc!.value.trim();
    if (!text) {
      act.invalid(needDescription);
      return desc!.focus();
    }
    if (value === null) {
      if (price!.value.trim())
        act.invalid((v) => v.say(v.t.numberRange, { min: v.number(0), max: v.number(1e10) }));
      return price!.focus();
    }
    act.add({ descripcion: text, cantidad: 1, precio_unitario: value, fraccionable: true });
    desc!.value = '';
    price!.value = '';
    desc!.focus();
  };
  return html`<details class="custom">
    <summary>${t.addCustom}</summary>
    <div class="row" @input=${() => error && act.invalid()} @keydown=${(e: KeyboardEvent) => {
      // Enter in either field adds the line, as the button does; it does not send the quote.
      if (e.key !== 'Enter' || (e.target as HTMLElement).tagName !== 'INPUT') return;
      e.preventDefault();
      addFrom(e.currentTarget as Element);
    }}>
      <div class="field grow"><label for="svc-custom-desc">${t.customDescription}</label><input id="svc-custom-desc" maxlength="500"
        aria-invalid=${!!desc} aria-describedby=${desc ? 'svc-custom-error' : nothing} /></div>
      <div class="field price"><label for="svc-custom-price">${t.customPrice}</label><input id="svc-custom-price" inputmode="decimal" autocomplete="off"
        aria-invalid=${!!price} aria-describedby=${price ? 'svc-custom-error' : nothing} /></div>
      <button type="button" @click=${(e: Event) => addFrom((e.target as HTMLElement).closest('.row')!)}>${t.add}</button>
    </div>
    ${error ? html`<p class="error-text" id="svc-custom-error">${error(view)}</p>` : nothing}
  </details>`;
}
