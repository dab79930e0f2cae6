import { autoUpdate, computePosition, flip, offset, shift, size } from '@floating-ui/dom';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';

/** A catalog product as the picker lists it. */
export interface PickerProduct {
  id: string;
  sku: string;
  nombre: string;
  unidad: string;
  precio_lista: number;
  moneda: string;
}

const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();

let instances = 0;

/**
 * @summary A searchable combobox over the catalog (WAI-ARIA combobox with a listbox popup).
 * Typing filters; ArrowDown/ArrowUp move; Enter picks; Escape closes. The list is positioned
 * with Floating UI: it flips above the input near the bottom of the viewport, shifts to stay on
 * screen, and follows scrolling.
 *
 * @event svc-pick - internal: a product was chosen (`detail` is the product)
 * @csspart input - the search input
 * @csspart listbox - the popup list
 */
export class SvcProductPicker extends LitElement {
  static override properties = {
    products: { attribute: false },
    label: {},
    placeholder: {},
    emptyText: { attribute: false },
    formatPrice: { attribute: false },
    open: { state: true },
    query: { state: true },
    active: { state: true },
  };

  static override styles = css`
    :host { display: block; position: relative; }
    label { display: block; font-weight: 600; margin-bottom: var(--_gap-s); }
    input {
      box-sizing: border-box; width: 100%; font: inherit; color: inherit; background: var(--_field);
      border: 1px solid var(--_border); border-radius: var(--_radius); padding: var(--_pad);
      min-height: 44px;
    }
    input:focus-visible { outline: 2px solid var(--_primary); outline-offset: 1px; }
    [role='listbox'] {
      position: fixed; top: 0; left: 0; z-index: 10; margin: 0; padding: 4px; list-style: none;
      background: var(--_surface); color: var(--_text); border: 1px solid var(--_border);
      border-radius: var(--_radius); box-shadow: 0 8px 24px rgb(0 0 0 / 0.18); overflow: auto; max-height: 280px;
    }
    [role='option'] {
      display: flex; justify-content: space-between; gap: 12px; padding: 10px; border-radius: calc(var(--_radius) - 2px);
      cursor: pointer; min-height: 24px;
    }
    [role='option'][aria-selected='true'] { background: var(--_primary-soft); }
    .sku { color: var(--_muted); font-size: 0.85em; }
    .price { white-space: nowrap; color: var(--_muted); }
    .empty { padding: 10px; color: var(--_muted); }
  `;

  declare products: PickerProduct[];
  declare label: string;
  declare placeholder: string;
  declare emptyText: string;
  declare formatPrice: (product: PickerProduct) => string;
  declare open: boolean;
  declare query: string;
  declare active: number;
  readonly #id = `svc-picker-${++instances}`;
  #cleanup: (() => void) | undefined;

  constructor() {
    super();
    this.products = [];
    this.label = '';
    this.placeholder = '';
    this.emptyText = '';
    this.formatPrice = (p) => String(p.precio_lista);
    this.open = false;
    this.query = '';
    this.active = 0;
  }

  get results(): PickerProduct[] {
    const words = fold(this.query).split(/\s+/).filter(Boolean);
    const list =
      words.length === 0
        ? this.products
        : this.products.filter((p) => {
            const text = fold(`${p.nombre} ${p.sku}`);
            return words.every((w) => text.includes(w));
          });
    return list.slice(0, 50);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#cleanup?.();
  }

  protected override updated(changed: PropertyValues): void {
    if (!changed.has('open')) return;
    this.#cleanup?.();
    this.#cleanup = undefined;
    const input = this.renderRoot.querySelector('input');
    const list = this.renderRoot.querySelector<HTMLElement>('[role="listbox"]');
    if (!this.open || !input || !list) return;
    this.#cleanup = autoUpdate(input, list, () => {
      void computePosition(input, list, {
        strategy: 'fixed',
        placement: 'bottom-start',
        middleware: [
          offset(4),
          flip({ padding: 8 }),
          shift({ padding: 8 }),
          size({
            padding: 8,
            apply({ rects, availableHeight, elements }) {
              Object.assign(elements.floating.style, {
                width: `${rects.reference.width}px`,
                maxHeight: `${Math.max(120, Math.min(320, availableHeight))}px`,
              });
            },
          }),
        ],
      }).then(({ x, y }) => {
        Object.assign(list.style, { left: `${x}px`, top: `${y}px` });
      });
    });
  }

  #pick(product: PickerProduct | undefined) {
    if (!product) return;
    this.dispatchEvent(new CustomEvent('svc-pick', { detail: product }));
    this.query = '';
    this.open = false;
    this.active = 0;
  }

  #onKeydown(event: KeyboardEvent) {
    const count = this.results.length;
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      if (!this.open) this.open = true;
      else this.active = count ? (this.active + 1) % count : 0;
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      this.open = true;
      this.active = count ? (this.active - 1 + count) % count : 0;
    } else if (event.key === 'Enter' && this.open) {
      event.preventDefault();
      this.#pick(this.results[this.active]);
    } else if (event.key === 'Escape' && this.open) {
      event.preventDefault();
      event.stopPropagation();
      this.open = false;
    } else if (event.key === 'Home' && this.open) {
      this.active = 0;
    } else if (event.key === 'End' && this.open) {
      this.active = Math.max(0, count - 1);
    }
  }

  protected override render() {
    const matches = this.results;
    const active = matches[this.active] ? `${this.#id}-opt-${this.active}` : '';
    return html`
      <label for="${this.#id}-input">${this.label}</label>
      <input
        id="${this.#id}-input"
        part="input"
        type="text"
        role="combobox"
        autocomplete="off"
        aria-autocomplete="list"
        aria-expanded=${this.open ? 'true' : 'false'}
        aria-controls="${this.#id}-list"
        aria-activedescendant=${this.open && active ? active : nothing}
        placeholder=${this.placeholder}
        .value=${this.query}
        @input=${(e: Event) => {
          this.query = (e.target as HTMLInputElement).value;
          this.active = 0;
          this.open = true;
        }}
        @keydown=${this.#onKeydown}
        @focus=${() => {
          this.open = true;
        }}
        @blur=${() => {
          // Let a click on an option land first.
          setTimeout(() => {
            this.open = false;
          }, 150);
        }}
      />
      <ul id="${this.#id}-list" part="listbox" role="listbox" aria-label=${this.label} ?hidden=${!this.open}>
        ${
          matches.length === 0
            ? html`<li class="empty" role="presentation">${this.emptyText}</li>`
            : matches.map(
                (p, i) => html`<li
                id="${this.#id}-opt-${i}"
                role="option"
                aria-selected=${i === this.active ? 'true' : 'false'}
                @mousedown=${(e: Event) => e.preventDefault()}
                @click=${() => this.#pick(p)}
              >
                <span>${p.nombre} <span class="sku">${p.sku}</span></span><span class="price">${this.formatPrice(p)}</span>
              </li>`,
              )
        }
      </ul>
    `;
  }
}
