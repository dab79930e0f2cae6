import { html, nothing, type TemplateResult } from 'lit';
import type { View } from '../internal/view.js';

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

/** A line as the form keeps it: with a stable key, and whether it just arrived. */
export interface BasketLine extends QuoteLine {
  key: number;
  fresh?: boolean;
}

/** What the line list does when the person acts on it. */
export interface LineListActions {
  quantity(key: number, cantidad: number): void;
  remove(key: number): void;
}

/**
 * A quantity as the unit allows it: whole units, or up to 3 decimals for divisible ones; null
 * when it is not a positive number.
 */
export function cleanQuantity(raw: string, fraccionable: boolean | undefined): number | null {
  const value = Number(raw.replace(',', '.'));
  if (!Number.isFinite(value) || value <= 0 || raw.trim() === '') return null;
  const clean = fraccionable ? Math.round(value * 1000) / 1000 : Math.round(value);
  return clean > 0 ? clean : null;
}

/**
 * The lines of the basket: name, read-only unit price, quantity, amount and a remove button.
 * Renders into the form's own shadow root (one stylesheet, and ARIA references stay in one tree).
 */
export function lineList(
  view: View,
  lines: BasketLine[],
  error: string | undefined,
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
              </div>
              <input
                class="qty"
                type="number"
                inputmode=${line.fraccionable ? 'decimal' : 'numeric'}
                min=${line.fraccionable ? '0.001' : '1'}
                step=${line.fraccionable ? 'any' : '1'}
                aria-label="${t.quantity}: ${line.descripcion}"
                .value=${String(line.cantidad)}
                @input=${(e: Event) => {
                  const value = cleanQuantity((e.target as HTMLInputElement).value, line.fraccionable);
                  if (value !== null && value !== line.cantidad) act.quantity(line.key, value);
                }}
                @keydown=${(e: KeyboardEvent) => {
                  // Enter takes the quantity; it does not send the quote.
                  if (e.key !== 'Enter') return;
                  e.preventDefault();
                  (e.target as HTMLInputElement).dispatchEvent(new Event('change'));
                }}
                @change=${(e: Event) => {
                  const input = e.target as HTMLInputElement;
                  const value = cleanQuantity(input.value, line.fraccionable);
                  if (value === null) input.value = String(line.cantidad);
                  else {
                    input.value = String(value);
                    if (value !== line.cantidad) act.quantity(line.key, value);
                  }
                }}
              />
              <span class="amount">${view.money(line.cantidad * line.precio_unitario)}</span>
              <button type="button" class="link" aria-label="${t.remove}: ${line.descripcion}" @click=${() => act.remove(line.key)}>
                ${t.remove}
              </button>
            </li>`,
          )}
        </ul>`
    }
    ${error ? html`<p class="error-text" id="svc-lines-error">${error}</p>` : nothing}
  </section>`;
}

/** The "custom item" disclosure: a free-text line with its own price (when the merchant allows). */
export function customLine(view: View, add: (line: QuoteLine) => void): TemplateResult {
  const { t } = view;
  /** Adds the row's line, or puts the focus on what it still needs. */
  const addFrom = (row: Element) => {
    const [desc, price] = row.querySelectorAll('input');
    const value = Number(price!.value);
    if (!desc!.value.trim() || price!.value === '' || !Number.isFinite(value) || value < 0) {
      (desc!.value.trim() ? price : desc)!.focus();
      return;
    }
    add({ descripcion: desc!.value.trim(), cantidad: 1, precio_unitario: value, fraccionable: true });
    desc!.value = '';
    price!.value = '';
    desc!.focus();
  };
  return html`<details class="custom">
    <summary>${t.addCustom}</summary>
    <div class="row" @keydown=${(e: KeyboardEvent) => {
      // Enter in either field adds the line, as the button does; it does not send the quote.
      if (e.key !== 'Enter' || (e.target as HTMLElement).tagName !== 'INPUT') return;
      e.preventDefault();
      addFrom(e.currentTarget as Element);
    }}>
      <div class="field grow"><label for="svc-custom-desc">${t.customDescription}</label><input id="svc-custom-desc" maxlength="500" /></div>
      <div class="field price"><label for="svc-custom-price">${t.customPrice}</label><input id="svc-custom-price" type="number" min="0" step="0.01" inputmode="decimal" /></div>
      <button type="button" @click=${(e: Event) => addFrom((e.target as HTMLElement).closest('.row')!)}>${t.add}</button>
    </div>
  </details>`;
}
