import { computePosition, flip, offset, shift } from '@floating-ui/core';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { viewportPlatform } from './viewport-platform.js';

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
 * Focus opens the list with no option active (Enter then picks nothing); typing filters and makes
 * the first match active; ArrowDown/ArrowUp move; Enter picks; Escape closes. The list is positioned
 * with Floating UI: it flips above the input near the bottom of the viewport, shifts to stay on
 * screen, and follows scrolling and resizing.
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
      border: 1px solid var(--_muted); border-radius: var(--_radius); padding: var(--_pad);
      min-height: 44px;
    }
    input:focus-visible { outline: 2px solid var(--_primary); outline-offset: 1px; }
    ::placeholder { color: var(--_muted); opacity: 1; }
    [role='listbox'] {
      position: fixed; inset: 0 auto auto 0; z-index: 10; margin: 0; padding: 4px; list-style: none;
      background: var(--_surface); color: var(--_text); border: 1px solid var(--_border);
      border-radius: var(--_radius); box-shadow: 0 8px 24px rgb(0 0 0 / 0.18); overflow: auto;
      max-height: min(280px, 45vh); box-sizing: border-box;
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
  /** The option the person has reached (typing or arrows), or -1 for none. */
  declare active: number;
  readonly #id = `svc-picker-${++instances}`;

  constructor() {
    super();
    this.products = [];
    this.label = '';
    this.placeholder = '';
    this.emptyText = '';
    this.formatPrice = (p) => String(p.precio_lista);
    this.open = false;
    this.query = '';
    this.active = -1;
  }

  get results(): PickerProduct[] {
    const words = fold(this.query).split(/\s+/).filter(Boolean);
    const list =
      words.length === 0
        ? [...this.products]
        : this.products.filter((p) => {
            const text = fold(`${p.nombre} ${p.sku}`);
            return words.every((w) => text.includes(w));
          });
    // Names that start with the first word come first, then names with a word that starts with
    // it ("la" → Laptop before "Respaldo en la nube"); the catalog's order otherwise.
    const first = words[0] ?? '';
    const rank = (p: PickerProduct) => {
      const name = fold(p.nombre);
      return name.startsWith(first) ? 0 : name.includes(` ${first}`) ? 1 : 2;
    };
    return list.sort((a, b) => rank(a) - rank(b)).slice(0, 50);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#follow(false);
  }

  /**
   * Follows scrolling and resizing while open. Floating UI's `autoUpdate` would do it too, for
   * 0.6 KB of the script budget; a capturing listener on the window sees every scrolling ancestor.
   */
  #follow(on: boolean): void {
    const method = on ? 'addEventListener' : 'removeEventListener';
    window[method]('scroll', this.#place, { capture: true, passive: true });
    window[method]('resize', this.#place);
  }

  /** Places the list below the input, or above it when there is no room, within the viewport. */
  #place = (): void => {
    const input = this.renderRoot.querySelector('input');
    const list = this.renderRoot.querySelector<HTMLElement>('[role="listbox"]');
    if (!this.open || !input || !list) return;
    list.style.width = `${input.offsetWidth}px`;
    void computePosition(input, list, {
      platform: viewportPlatform,
      strategy: 'fixed',
      placement: 'bottom-start',
      middleware: [offset(4), flip({ padding: 8 }), shift({ padding: 8 })],
    }).then(({ x, y }) => {
      Object.assign(list.style, { left: `${x}px`, top: `${y}px` });
    });
  };

  protected override updated(changed: PropertyValues): void {
    if (changed.has('active'))
      this.renderRoot.querySelector('[aria-selected="true"]')?.scrollIntoView?.({ block: 'nearest' });
    if (changed.has('open')) {
      this.#follow(this.open);
      // The top layer: above the page's stacking contexts, positioned against the viewport.
      const list = this.renderRoot.querySelector<HTMLElement>('[role="listbox"]');
      try {
        if (this.open) list?.showPopover?.();
        else list?.hidePopover?.();
      } catch {}
    }
    // Every update: the list's height changes as the search narrows it.
    this.#place();
  }

  #pick(product: PickerProduct | undefined) {
    if (!product) return;
    this.dispatchEvent(new CustomEvent('svc-pick', { detail: product }));
    this.query = '';
    this.open = false;
    this.active = -1;
  }

  #onKeydown(event: KeyboardEvent) {
    const count = this.results.length;
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      if (!this.open) this.open = true;
      else this.active = count ? (this.active + 1) % count : -1;
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      this.open = true;
      // From none (or the first), the last.
      this.active = (this.active < 1 ? count : this.active) - 1;
    } else if (event.key === 'Enter') {
      // Enter picks the active option (none: nothing), or opens the list; it never sends the form
      // around the picker.
      event.preventDefault();
      if (this.open) this.#pick(this.results[this.active]);
      else this.open = true;
    } else if (event.key === 'Escape' && (this.open || this.query)) {
      // First Escape closes the list, the next one clears the search (and the option that was
      // active among its matches: the next ArrowDown opens the whole list with none).
      event.preventDefault();
      event.stopPropagation();
      if (this.open) this.open = false;
      else {
        this.query = '';
        this.active = -1;
      }
    } else if (event.key === 'Home' && this.open) {
      this.active = 0;
    } else if (event.key === 'End' && this.open) {
      this.active = count - 1;
    }
  }

  protected override render() {
    // Options exist only while the list is open: the closed form renders faster.
    const matches = this.open ? this.results : [];
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
        aria-expanded=${!!this.open}
        aria-controls="${this.#id}-list"
        aria-activedescendant=${this.open && active ? active : nothing}
        placeholder=${this.placeholder}
        .value=${this.query}
        @input=${(e: Event) => {
          this.query = (e.target as HTMLInputElement).value;
          // What was typed makes its first match active (Enter takes it); nothing typed, none.
          this.active = this.query.trim() ? 0 : -1;
          this.open = true;
        }}
        @keydown=${this.#onKeydown}
        @focus=${() => {
          // The list opens with nothing chosen: a person tabbing in has picked nothing yet (ARIA
          // combobox pattern: an active option only after typing or the arrow keys).
          this.open = true;
          this.active = -1;
        }}
        @blur=${() => {
          // Options keep the focus here (mousedown is prevented), so a blur means leaving.
          this.open = false;
        }}
      />
      <ul id="${this.#id}-list" part="listbox" role="listbox" popover="manual" tabindex="-1" aria-label=${this.label} ?hidden=${!this.open}>
        ${
          !this.open
            ? nothing
            : matches.length === 0
              ? html`<li class="empty" role="option" aria-disabled="true" aria-selected="false">${this.emptyText}</li>`
              : matches.map(
                  (p, i) => html`<li
                id="${this.#id}-opt-${i}"
                role="option"
                aria-selected=${i === this.active}
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
