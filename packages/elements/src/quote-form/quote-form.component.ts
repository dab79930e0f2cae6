// biome-ignore-all assist/source/organizeImports: the script-tag bundle takes its modules in this order, which
// compresses (brotli) 25–70 B better than the sorted one in its 24 KB budget; see docs/performance.md.
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { ApiClient, SvcApiError } from '../internal/api-client.js';
import { errorTemplate, format, type Locale, messagesFor, pickLocale } from '../internal/i18n/index.js';
import {
  type ClientFieldsState,
  clientFields,
  fiscalRequired,
  type QuoteClient,
  readClient,
  validateClient,
} from '../client-fields/client-fields.js';
import { brandColors, computeTotals, convertPrice, formatMoney } from '@svc/core';
import {
  type BasketLine,
  customLine,
  lineList,
  type QuoteLine,
  quantityError,
} from '../line-list/line-list.js';
import {
  type CouponState,
  couponField,
  couponReason,
  type Figures,
  idleCoupon,
  totalsPanel,
} from '../totals-panel/totals-panel.js';
import { svcEvent } from '../events/svc-event.js';
import styles from './quote-form.styles.js';
import { type DraftState, draftBox, idleDraft, skippedLine } from '../draft-box/draft-box.js';
import type { SvcDraftItemDetail } from '../events/svc-draft-item.js';
import type { SvcQuoteCreatedDetail } from '../events/svc-quote-created.js';
import { said, type Text, type View } from '../internal/view.js';
import type { PickerProduct } from '../product-picker/product-picker.component.js';

export type { QuoteClient, QuoteLine };

/** The configuration the service gives the widget (GET /elements/config). */
export interface ElementsConfig {
  org: { nombre: string; color: string | null; logo_url: string | null; country: string };
  mode: 'test' | 'live';
  locale: string;
  locales?: string[];
  currency: string;
  currencies: string[];
  /** What 1 unit of each currency is worth in `currency`. */
  fx_rates?: Record<string, number>;
  iva_incluido: boolean;
  default_tax_rate: number;
  terminos: string | null;
  terminos_codigos?: string[];
  catalog: (PickerProduct & { tax_rate: number | null; fraccionable: boolean })[];
  features: { ai_draft: boolean; coupons: boolean; custom_items: boolean };
  required_client_fields: string[];
  /** The merchant's usual payment plan, with its line in each language; null for cash. */
  plan_pagos?: { texto: Record<string, string> } | null;
}

/** What `submit()` resolves with: the service's creation result. */
export interface QuoteCreated extends SvcQuoteCreatedDetail {
  token: string;
  motivo: string | null;
  status: string;
  total: number;
  moneda: string;
}

type Phase = 'loading' | 'error' | 'ready' | 'success';

let defaultApiBase = '';
/** Where the script-tag build was served from: the default `api-base`. */
export const setDefaultApiBase = (base: string): void => {
  defaultApiBase = base;
};

let keys = 0;
const asError = (error: unknown) =>
  error instanceof SvcApiError ? error : new SvcApiError('network', String(error));

/**
 * @summary An embeddable quote request form: catalog picker, streamed drafting from plain words,
 * coupon, live totals with tax, client data, and a submission that becomes a quote with a folio.
 *
 * @event svc-ready - the configuration loaded and the form is on screen; `detail`: locale, currency
 * @event svc-change - the basket changed; `detail`: items, total, moneda
 * @event svc-draft-item - a drafted line arrived; `detail`: the line as the service streamed it
 * @event svc-quote-created - the quote exists; `detail`: id, folio, link_publico, needs_approval
 * @event svc-error - something failed; `detail`: code and the localized message
 *
 * @csspart base - the card around everything (also carries `error` or `success` in those views)
 * @csspart header - brand name and logo
 * @csspart draft - the "describe what you need" box
 * @csspart picker - the product search and the custom item
 * @csspart picker-input - the search input of the product picker
 * @csspart picker-listbox - the popup list of the product picker
 * @csspart lines - the list of lines
 * @csspart line - one line
 * @csspart coupon - the coupon field
 * @csspart totals - subtotal, discount, tax and total
 * @csspart plan - the merchant's usual payment plan, under the totals
 * @csspart client - the client fields
 * @csspart submit - the submit button
 * @csspart success - the view after the quote is created
 * @csspart error - the view when the form cannot load
 *
 * @cssproperty --svc-color-primary - main colour (default: the merchant's brand colour)
 * @cssproperty --svc-color-on-primary - text on the main colour (default: white, or near black on a light brand colour)
 * @cssproperty --svc-color-primary-text - links, outlined buttons and focus rings in the main colour (default: the brand colour darkened until it reads at 4.5:1 on white, or lightened in dark mode)
 * @cssproperty --svc-color-text - text colour
 * @cssproperty --svc-color-muted - secondary text colour
 * @cssproperty --svc-color-surface - card background
 * @cssproperty --svc-color-field - input background
 * @cssproperty --svc-color-border - borders
 * @cssproperty --svc-color-danger - errors
 * @cssproperty --svc-color-success - the text of a coupon that applies
 * @cssproperty --svc-font - font family (default: inherited from the page)
 * @cssproperty --svc-radius - corner radius (default: 10px)
 * @cssproperty --svc-spacing - base spacing (default: 16px)
 * @cssproperty --svc-density - multiplies spacing and control heights (0.8 compact, 1.2 roomy)
 */
export class SvcQuoteForm extends LitElement {
  static override styles = styles;
  static override properties = {
    publishableKey: { attribute: 'publishable-key' },
    apiBase: { attribute: 'api-base' },
    locale: { reflect: true },
    currency: {},
    theme: { reflect: true },
    cliente: { attribute: false },
    items: { attribute: false },
    phase: { state: true },
    config: { state: true },
    lines: { state: true },
    failure: { state: true },
    drafting: { state: true },
    coupon: { state: true },
    confirmed: { state: true },
    errors: { state: true },
    submitting: { state: true },
    refused: { state: true },
    notice: { state: true },
    created: { state: true },
    log: { state: true },
    fiscalOpen: { state: true },
    fiscalCountry: { state: true },
  };

  /** The merchant's publishable key (`pk_live_…` or `pk_test_…`). Required. */
  declare publishableKey: string;
  /** Base URL of the API. @defaultValue the origin of the script + `/api/v1` */
  declare apiBase: string;
  /** `es`, `en`, `pt`, `fr` or `de`. @defaultValue the merchant's language, then the browser's */
  declare locale: string | undefined;
  /** ISO 4217 currency among the merchant's. @defaultValue the merchant's currency */
  declare currency: string | undefined;
  /** `light`, `dark`, or `auto` (follows the system). @defaultValue 'light' */
  declare theme: 'light' | 'dark' | 'auto';
  /** Prefills the client fields. */
  declare cliente: QuoteClient;
  /** Prefills the basket. */
  declare items: QuoteLine[];
  /** The lines of the basket as they are now. */
  declare lines: BasketLine[];

  declare protected phase: Phase;
  declare protected config: ElementsConfig | undefined;
  declare protected failure: SvcApiError | undefined;
  declare protected drafting: DraftState;
  declare protected coupon: CouponState;
  /** The server's preview of the basket at `version`: its figures win over the local ones. */
  declare protected confirmed: { version: number; figures: Figures } | undefined;
  /** What is wrong with each field (client fields, `price`, `lines`), by name. */
  declare protected errors: Record<string, Text | undefined>;
  declare protected submitting: boolean;
  /** The server's refusal of the basket at `version`. */
  declare protected refused: { version: number; text: Text } | undefined;
  declare protected notice: { text: Text; error: boolean } | undefined;
  declare protected created: QuoteCreated | undefined;
  /** What the screen reader log has said (each drafted line, and outcomes). */
  declare protected log: string[];
  declare protected fiscalOpen: boolean;
  declare protected fiscalCountry: string;

  #api: ApiClient | undefined;
  #draft: AbortController | undefined;
  #submission: { key: string; body: string } | undefined;
  #pending: Promise<QuoteCreated> | undefined;
  #version = 0;
  /** The total the page was last told in `svc-change`. */
  #told = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #loads = 0;

  constructor() {
    super();
    this.publishableKey = '';
    this.apiBase = '';
    this.theme = 'light';
    this.cliente = { empresa: '' };
    this.items = [];
    this.lines = [];
    this.phase = 'loading';
    this.drafting = idleDraft;
    this.coupon = idleCoupon;
    this.errors = {};
    this.submitting = false;
    this.log = [];
    this.fiscalOpen = false;
    this.fiscalCountry = '';
  }

  /** The language in use: the attribute, else the merchant's, else the browser's. */
  get activeLocale(): Locale {
    return pickLocale(
      this.locale,
      this.config?.locale,
      typeof navigator === 'undefined' ? undefined : navigator.language,
    );
  }

  /**
   * The document currency: the `currency` attribute when the merchant quotes in it and has the
   * exchange rates to price its whole catalog in it, else the merchant's own.
   */
  get activeCurrency(): string {
    const config = this.config;
    if (!config) return 'MXN';
    const wanted = this.currency?.toUpperCase();
    const known = this.#currencyFor;
    if (known?.config === config && known.wanted === wanted) return known.currency;
    // Worked out once per configuration and attribute, not per amount formatted: checking a
    // catalog of thousands of products for every price on screen made each render quadratic.
    const priced =
      wanted &&
      config.currencies.includes(wanted) &&
      config.catalog.every((p) => this.#price(p, wanted) !== null);
    const currency = priced ? wanted : config.currency;
    this.#currencyFor = { config, wanted, currency };
    return currency;
  }

  /** {@link activeCurrency} and the configuration and `currency` attribute it was worked out for. */
  #currencyFor?: { config: ElementsConfig; wanted: string | undefined; currency: string };

  /** A catalog product's price in `currency`, converted as the server converts it. */
  #price(product: PickerProduct, currency = this.activeCurrency): number | null {
    const config = this.config;
    if (!config) return null;
    return convertPrice(
      product.precio_lista,
      product.moneda,
      currency,
      config.currency,
      config.fx_rates ?? {},
    );
  }

  /** Whether the totals on screen are the server's preview of the current basket. */
  get totalsConfirmed(): boolean {
    return this.confirmed?.version === this.#version;
  }

  get #view(): View {
    const locale = this.activeLocale;
    const region = `${locale}-${this.config?.org.country ?? 'MX'}`;
    return {
      t: messagesFor(locale),
      locale,
      money: (amount) => formatMoney(amount, this.activeCurrency, region),
      number: (value) => new Intl.NumberFormat(region).format(value),
      say: (template, values) => format(locale, template, values),
    };
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Moved back into the page after a failed load: try again (the first load waits for the
    // first update, so attributes set right after insertion count).
    if (this.hasUpdated && this.phase === 'error') void this.#load();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#draft?.abort();
    clearTimeout(this.#timer);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // The first update, and a new key or API base later (the error view's retry uses them too).
    if (changed.has('publishableKey') || changed.has('apiBase')) void this.#load();
    // Another language: what is on screen is said in it at this render (messages are kept as
    // Text); the screen reader's log of what was announced in the old one is emptied.
    if (changed.has('locale')) this.log = [];
    // Tax data given with the client: its section opens, in its country, so it is shown and sent.
    // A page may set null or anything else: the form keeps working with nothing prefilled.
    if (changed.has('cliente') && !(this.cliente instanceof Object)) this.cliente = { empresa: '' };
    if (changed.has('items') && !Array.isArray(this.items)) this.items = [];
    if (changed.has('cliente') && (this.cliente.fiscal || this.cliente.rfc)) {
      this.fiscalOpen = true;
      if (this.cliente.fiscal?.country) this.fiscalCountry = this.cliente.fiscal.country.toUpperCase();
    }
    if (changed.has('items') && this.items.length > 0) {
      this.lines = this.items.map((item) => ({ ...item, key: ++keys }));
      this.#repriceCatalogLines();
      // Before the configuration, the lines are not priced yet: told once the form is ready.
      if (this.config) this.#changed();
    } else if (changed.has('currency') && this.config && this.lines.length > 0) {
      // Another document currency: new prices, and totals (and a coupon) the server must confirm again.
      this.#repriceCatalogLines();
      this.#applyCoupon(this.coupon.code, true);
    }
  }

  /**
   * Catalog lines carry the catalog's price in the document currency (the server refuses any
   * other from a publishable key): priced again when the configuration or the currency arrives.
   */
  #repriceCatalogLines(): void {
    const catalog = this.config?.catalog;
    if (!catalog) return;
    this.lines = this.lines.map((line) => {
      const product = line.producto_id ? catalog.find((p) => p.id === line.producto_id) : undefined;
      const price = product && this.#price(product);
      return price == null || price === line.precio_unitario ? line : { ...line, precio_unitario: price };
    });
  }

  async #load(): Promise<void> {
    const load = ++this.#loads;
    this.phase = 'loading';
    const base = (this.apiBase || defaultApiBase || `${location.origin}/api/v1`).replace(/\/+$/, '');
    const api = new ApiClient(base, this.publishableKey, () => this.activeLocale);
    this.#api = api;
    try {
      // A secret key pasted by mistake never leaves the page: only publishable keys (pk_) are sent.
      if (!this.publishableKey?.startsWith('pk_'))
        throw new SvcApiError('missing_key', 'publishable-key is missing');
      const data = await api.send<ElementsConfig>('/elements/config');
      if (load !== this.#loads) return;
      this.config = data;
      this.#repriceCatalogLines();
      const brand = data.org.color;
      if (brand) this.style.setProperty('--svc-brand', brand);
      // Text on the brand and a darker ink that read at 4.5:1, unless the page sets its own main colour.
      const readable =
        brand && !getComputedStyle(this).getPropertyValue('--svc-color-primary') && brandColors(brand);
      if (readable) {
        this.style.setProperty('--svc-brand-on', readable[0]);
        this.style.setProperty('--svc-brand-ink', readable[1]);
      }
      this.fiscalCountry ||= (this.cliente.fiscal?.country ?? data.org.country ?? '').toUpperCase();
      this.phase = 'ready';
      await this.updateComplete;
      this.dispatchEvent(svcEvent('svc-ready', { locale: this.activeLocale, currency: this.activeCurrency }));
      // A page's first Intl.NumberFormat costs Chromium 25–80 ms (its locale data, whatever the
      // locale). An empty basket shows no amounts, so the form is on screen first and that cost is
      // paid after its frame, long before a person picks a product.
      requestAnimationFrame(() => setTimeout(Intl.NumberFormat, 0));
      if (this.lines.length > 0) this.#changed();
    } catch (error) {
      let failure = asError(error);
      if (failure.code === 'network' && (await api.answers('/elements/config')))
        failure = new SvcApiError('origin_not_allowed', 'This origin is not allowed for the key');
      if (load !== this.#loads) return;
      this.failure = failure;
      this.phase = 'error';
      this.#emitError(failure);
    }
  }

  #emitError(error: SvcApiError): void {
    this.dispatchEvent(svcEvent('svc-error', { code: error.code, error: this.#describe(error) }));
  }

  /** The error in the person's language. */
  #describe(error: SvcApiError): string {
    const { t } = this.#view;
    const reason = error.detail.reason;
    if (typeof reason === 'string' && t.couponReasons[reason]) return t.couponReasons[reason];
    return errorTemplate(t, error.code);
  }

  /**
   * The server refused the basket or the client: the field its message names (`items[0].cantidad:
   * …`, `cliente.email: …`) is marked with the reason in the person's language, which is returned,
   * prefixed with the line's name.
   */
  #refuse(error: SvcApiError): Text {
    const text: Text = () => this.#describe(error);
    const [, index, field = ''] = /^(?:items\[(\d+)\]|cliente(?:\.fiscal)?)\.(\w+)/.exec(error.message) ?? [];
    const line = index && this.lines[Number(index)];
    if (line) {
      const reason: Text = field === 'cantidad' ? (view) => quantityError(view, line) : text;
      this.lines = this.lines.map((l) => (l === line ? { ...l, error: reason } : l));
      return (view) => `${line.descripcion}: ${reason(view)}`;
    }
    if (field in this.#view.t.fields) this.errors = { ...this.errors, [field]: text };
    return text;
  }

  /** The figures on screen: the server's preview when it matches the basket, else computed here. */
  get #figures(): Figures {
    if (this.confirmed && this.totalsConfirmed) return this.confirmed.figures;
    return computeTotals({
      currency: this.activeCurrency,
      default_tax_rate: this.config?.default_tax_rate ?? 0,
      iva_incluido: this.config?.iva_incluido ?? false,
      lines: this.lines.map((l) => ({
        cantidad: l.cantidad,
        precio_unitario: l.precio_unitario,
        tax_rate: l.tax_rate ?? null,
      })),
      // A coupon's value is known to the server only: its discount shows once the preview answers.
      discount: null,
    });
  }

  #requestItems() {
    return this.lines.map((l) => ({
      descripcion: l.descripcion,
      cantidad: l.cantidad,
      precio_unitario: l.precio_unitario,
      ...(l.producto_id ? { producto_id: l.producto_id } : {}),
    }));
  }

  /** The basket changed: tell the page, and have the server confirm the totals shortly. */
  #changed(emit = true): void {
    this.#version++;
    if (this.errors.lines && this.lines.length > 0) this.errors = { ...this.errors, lines: undefined };
    // An empty basket keeps its coupon, to be checked once there are lines (the note says so).
    const { code } = this.coupon;
    if (!this.lines.length && code) this.coupon = { code, status: 'idle' };
    if (emit) this.#emitChange();
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#preview(), 200);
  }

  #emitChange(): void {
    this.#told = this.#figures.total;
    this.dispatchEvent(
      svcEvent('svc-change', {
        items: this.#requestItems(),
        total: this.#told,
        moneda: this.activeCurrency,
      }),
    );
  }

  async #preview(): Promise<void> {
    const api = this.#api;
    if (!api || this.phase !== 'ready') return;
    const items = this.#requestItems();
    const code = this.coupon.code;
    // A code the service refused is not sent again with each edit of the basket: every refusal
    // counts against the visitor's failed attempts. Applying it again checks it again.
    const sent = this.coupon.status !== 'invalid' && code;
    const version = this.#version;
    if (items.length === 0) return;
    try {
      const data = await api.send<
        Figures & { cupon: { code: string; valid: boolean; reason: string | null } | null }
      >('/elements/preview', {
        method: 'POST',
        body: {
          items,
          base_currency: this.activeCurrency,
          ...(sent ? { cupon: sent } : {}),
        },
      });
      // A new coupon is a new version too (see #applyCoupon).
      if (version !== this.#version) return;
      this.confirmed = { version, figures: data };
      // The page was told the local total; a coupon's discount is known only now.
      if (data.total !== this.#told) this.#emitChange();
      if (sent && data.cupon) {
        this.coupon = {
          code,
          status: data.cupon.valid ? 'valid' : 'invalid',
          reason: couponReason(data.cupon.reason ?? ''),
        };
      }
      // The new total in the screen reader's log, once the basket has stood still for a second:
      // a burst of edits is one announcement (the next change cancels it, as it does a preview).
      this.#timer = setTimeout(() => {
        const { t, money } = this.#view;
        this.#say(`${t.total}: ${money(data.total)}`);
      }, 1000);
    } catch (error) {
      if (version !== this.#version) return;
      const failure = asError(error);
      this.#emitError(failure);
      if (sent) {
        this.coupon = { code, status: 'invalid', reason: () => this.#describe(failure) };
        // Too many refused codes from this visitor (429): said at the coupon, which is left out,
        // and the basket is confirmed without it.
        if (failure.status === 429) return void this.#preview();
      }
      // Said under the totals, which are no longer awaited (and on the line it names).
      this.refused = { version, text: this.#refuse(failure) };
    }
  }

  /** The basket is the same: the page hears of a new total once the preview has priced the coupon. */
  #applyCoupon(code: string, emit = false): void {
    this.coupon = { code, status: code && this.lines.length ? 'checking' : 'idle' };
    this.#changed(emit);
  }

  #addLine(line: QuoteLine, fresh = false): void {
    const same = line.producto_id ? this.lines.find((l) => l.producto_id === line.producto_id) : undefined;
    this.lines = same
      ? this.lines.map((l) =>
          l === same
            ? { ...l, cantidad: l.cantidad + line.cantidad, fresh, error: undefined, typed: undefined }
            : l,
        )
      : [...this.lines, { ...line, key: ++keys, fresh }];
    this.#changed();
  }

  #say(message: string): void {
    this.log = [...this.log.slice(-4), message];
  }

  #pick(product: ElementsConfig['catalog'][number]): void {
    this.#addLine({
      descripcion: product.nombre,
      cantidad: 1,
      precio_unitario: this.#price(product) ?? product.precio_lista,
      producto_id: product.id,
      sku: product.sku,
      unidad: product.unidad,
      tax_rate: product.tax_rate,
      fraccionable: product.fraccionable,
    });
    const view = this.#view;
    this.#say(view.say(view.t.draftAdded, { q: '1', name: product.nombre }));
  }

  /**
   * Streams drafted lines for `text` into the basket, as the "describe what you need" box does.
   * Resolves with how many lines arrived (also when stopped or cut off: those lines stay).
   * @param text - what the client needs, in their words (up to 2000 characters)
   */
  async draft(text: string): Promise<number> {
    const api = this.#api;
    const config = this.config;
    if (!api || !config || this.phase !== 'ready' || this.drafting.running || !text.trim()) return 0;
    const box = this.renderRoot.querySelector<HTMLTextAreaElement>('#svc-draft');
    if (box && box.value !== text) box.value = text;
    const view = this.#view;
    const controller = new AbortController();
    this.#draft = controller;
    let count = 0;
    this.drafting = { running: true, count, message: said('drafting', { n: 0 }), error: false };
    const products = new Map(config.catalog.map((p) => [p.id, p]));
    try {
      const skipped = await api.draft(
        { prompt: text.slice(0, 2000), locale: this.activeLocale, currency: this.activeCurrency },
        (item: SvcDraftItemDetail) => {
          count++;
          this.#addLine(
            {
              descripcion: item.descripcion,
              cantidad: item.cantidad,
              precio_unitario: item.precio_unitario,
              producto_id: item.producto_id,
              sku: item.sku,
              unidad: item.unidad,
              tax_rate: item.tax_rate,
              fraccionable: products.get(item.producto_id)?.fraccionable ?? false,
            },
            true,
          );
          this.drafting = { running: true, count, message: said('drafting', { n: count }), error: false };
          this.#say(view.say(view.t.draftAdded, { q: view.number(item.cantidad), name: item.descripcion }));
          this.dispatchEvent(svcEvent('svc-draft-item', item));
        },
        controller.signal,
      );
      this.drafting = {
        running: false,
        count,
        message: count ? said('drafted', { n: count }) : said('draftNothing'),
        error: false,
        skipped,
      };
    } catch (error) {
      if ((error as Error).name === 'AbortError') {
        this.drafting = { running: false, count, message: said('draftStopped', { n: count }), error: false };
      } else {
        const failure = asError(error);
        const failed = said('draftFailed', { n: count });
        this.drafting = {
          running: false,
          count,
          message: (v) => `${count ? `${failed(v)} ` : ''}${this.#describe(failure)}`,
          error: true,
        };
        this.#emitError(failure);
      }
    } finally {
      if (this.#draft === controller) this.#draft = undefined;
    }
    // The outcome is said by the draft's own status line; the log adds only what was not found.
    const skipped = this.drafting.skipped;
    if (skipped?.length) this.#say(`${view.t.notFound} ${skipped.join(', ')}`);
    return count;
  }

  /** Stops a running draft; the lines already received stay. */
  stopDraft(): void {
    this.#draft?.abort();
  }

  /**
   * Sends the quote request. One `Idempotency-Key` is kept for the same submission, so retries
   * (automatic on network errors, 5xx and 429, or the person's own) never create two quotes;
   * while it runs, further calls return the same promise.
   * @returns the creation result; rejects with an {@link SvcApiError} (code `invalid_request`
   * when the form itself is not valid yet).
   */
  submit(): Promise<QuoteCreated> {
    this.#pending ??= this.#submit().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  async #submit(): Promise<QuoteCreated> {
    const api = this.#api;
    if (!api || !this.config || this.phase !== 'ready') {
      throw new SvcApiError('service_unavailable', 'The form is not ready');
    }
    // A quantity still being typed (submit() called with its field focused) is taken, or refused,
    // as leaving the field would: never the value typed on the way ("2" of "2.5").
    const editing = this.renderRoot.querySelector<HTMLInputElement>('.qty:focus');
    if (editing) {
      editing.dispatchEvent(new Event('change'));
      await this.updateComplete;
    }
    const view = this.#view;
    const required = this.config.required_client_fields;
    const fiscalOpen =
      fiscalRequired(required) ||
      !!this.renderRoot.querySelector<HTMLDetailsElement>('[part="client"] details')?.open;
    const cliente = readClient(this.renderRoot, fiscalOpen);
    // In the form's order, so that the focus goes to the first: the lines, the coupon, the client.
    const errors: Record<string, Text> = {};
    if (this.lines.length === 0) errors.lines = said('needLines');
    // A coupon the service refused is not sent (the whole quote would be refused for it): its
    // field, which says why, takes the focus, and the person clears it or types another.
    if (this.coupon.status === 'invalid') errors['svc-coupon'] = this.coupon.reason!;
    Object.assign(errors, validateClient(view, cliente, required));
    this.errors = errors;
    this.notice = undefined;
    // A quantity typed wrong is not what the basket holds: the line's field comes first.
    const line = this.lines.find((l) => l.error);
    const invalid = line ? [`svc-q-${line.key}`] : Object.keys(errors);
    if (invalid.length > 0) {
      await this.updateComplete;
      const first = invalid[0]!;
      // A client field by its name; the others by their ids (`svc-…`).
      this.renderRoot
        .querySelector<HTMLElement>(
          first === 'lines' ? '#svc-lines-empty' : first.includes('-') ? `#${first}` : `[name="${first}"]`,
        )
        ?.focus();
      const refusal = new SvcApiError(
        'invalid_request',
        `${first}: ${(line?.error ?? errors[first])!(view)}`,
      );
      this.#emitError(refusal);
      throw refusal;
    }
    const code = this.coupon.code;
    const body = {
      items: this.#requestItems(),
      cliente,
      base_currency: this.activeCurrency,
      // Never iva_incluido: catalog prices are before tax, and the server refuses it from the widget.
      ...(code ? { cupon: code } : {}),
    };
    const signature = JSON.stringify(body);
    if (this.#submission?.body !== signature)
      this.#submission = { key: crypto.randomUUID(), body: signature };
    const { key } = this.#submission;
    this.submitting = true;
    this.notice = { text: said('submitting'), error: false };
    try {
      const result = await api.sendWithRetry<QuoteCreated>(
        '/cotizaciones',
        { method: 'POST', body, headers: { 'Idempotency-Key': key } },
        (seconds) => {
          this.notice = { text: said('retrying', { n: seconds }), error: false };
        },
      );
      this.#submission = undefined;
      this.created = result;
      this.phase = 'success';
      this.notice = undefined;
      this.dispatchEvent(
        svcEvent('svc-quote-created', {
          id: result.id,
          folio: result.folio,
          link_publico: result.link_publico,
          needs_approval: result.needs_approval,
        }),
      );
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>('[part~="success"] h2')?.focus();
      return result;
    } catch (error) {
      const failure = asError(error);
      // A reused key means the stored request differs: the next attempt is a new submission.
      if (failure.code === 'idempotency_key_reused') this.#submission = undefined;
      if (failure.detail.reason)
        this.coupon = { code, status: 'invalid', reason: couponReason(String(failure.detail.reason)) };
      this.notice = { text: this.#refuse(failure), error: true };
      this.#emitError(failure);
      throw failure;
    } finally {
      // The button is aria-disabled, not disabled, while sending: it keeps the focus (a disabled
      // one drops it to <body>), and submit() sends once however often it is pressed.
      this.submitting = false;
    }
  }

  /** "New quote" on the success view: the empty form, its first field focused. */
  async #startAgain(): Promise<void> {
    this.reset();
    await this.#focusFirst();
  }

  /**
   * Focuses the form's first field, or the error view's "Try again" when loading failed again:
   * the button that had the focus is gone, and the focus would fall to the page's <body>.
   */
  async #focusFirst(): Promise<void> {
    await this.updateComplete;
    const picker = this.renderRoot.querySelector('svc-product-picker');
    await picker?.updateComplete;
    (
      this.renderRoot.querySelector<HTMLElement>('[part="draft"] textarea') ??
      picker?.renderRoot.querySelector<HTMLElement>('input') ??
      this.renderRoot.querySelector<HTMLElement>('button')
    )?.focus();
  }

  /** Empties the form for a new quote; the configuration stays. */
  reset(): void {
    this.stopDraft();
    this.lines = [];
    this.coupon = idleCoupon;
    this.confirmed = undefined;
    this.errors = {};
    this.created = undefined;
    this.notice = undefined;
    this.drafting = idleDraft;
    this.log = [];
    this.#submission = undefined;
    // Back to the prefilled client (or empty): the fields are not bound to state while typed in.
    // A tax id given as `rfc` fills the tax id field, as the first render does.
    const prefill = {
      tax_id: this.cliente.rfc,
      ...this.cliente,
      ...this.cliente.fiscal,
    } as unknown as Record<string, string | undefined>;
    for (const input of this.renderRoot.querySelectorAll?.<HTMLInputElement>('input, textarea') ?? [])
      if (input.name !== 'country') input.value = prefill[input.name] ?? '';
    this.fiscalOpen = !!(this.cliente.fiscal || this.cliente.rfc);
    this.fiscalCountry = (this.cliente.fiscal?.country ?? this.config?.org.country ?? '').toUpperCase();
    if (this.phase === 'success') this.phase = 'ready';
    this.#changed();
  }

  protected override render(): TemplateResult {
    const view = this.#view;
    const { t } = view;
    if (this.phase === 'loading') {
      return html`<div class="base" part="base" aria-busy="true" lang=${view.locale}>
        <p class="sr-only" role="status">${t.loading}</p>
        <div class="skeleton" aria-hidden="true"><span class="short"></span><span></span><span class="tall"></span><span></span><span class="short end"></span></div>
      </div>`;
    }
    const config = this.config;
    if (this.phase === 'error' || !config) {
      return html`<div class="base" part="base error" role="alert" lang=${view.locale}>
        <p>${this.#describe(this.failure ?? new SvcApiError('network', ''))}</p>
        <div><button type="button" class="primary" @click=${() => void this.#load().then(() => this.#focusFirst())}>${t.retry}</button></div>
      </div>`;
    }
    if (this.phase === 'success' && this.created) return this.#success(view, this.created);
    // A coupon's value is known to the server only: while the preview of a changed basket is on
    // its way, a valid coupon keeps its last confirmed discount and totals on screen (busy), so
    // neither reads −0.00 nor jumps, and its status line says nothing new until the answer.
    const figures =
      (this.coupon.status === 'valid' && this.lines.length && this.confirmed?.figures) || this.#figures;
    const client: ClientFieldsState = {
      cliente: this.cliente,
      errors: this.errors,
      required: config.required_client_fields,
      fiscalOpen: this.fiscalOpen,
      country: this.fiscalCountry,
    };
    return html`<form class="base" part="base" novalidate lang=${view.locale} aria-labelledby="svc-form-title"
      @submit=${(e: Event) => {
        e.preventDefault();
        void this.submit().catch(() => {});
      }}
      @keydown=${(e: KeyboardEvent) => {
        if (e.key === 'Escape' && this.drafting.running) this.stopDraft();
      }}>
      <header part="header">
        ${config.org.logo_url ? html`<img src=${config.org.logo_url} alt="" />` : nothing}
        <h2 id="svc-form-title">${config.org.nombre}</h2>
      </header>
      <div class="sr-only" role="log" aria-live="polite">${this.log.map((line) => html`<p>${line}</p>`)}</div>
      ${
        config.features.ai_draft
          ? draftBox(view, this.drafting, {
              start: (text) => void this.draft(text),
              stop: () => this.stopDraft(),
            })
          : nothing
      }
      <div part="picker" class="field">
        <svc-product-picker
          exportparts="input: picker-input, listbox: picker-listbox"
          .products=${config.catalog}
          .label=${t.pickerLabel}
          .placeholder=${t.pickerPlaceholder}
          .emptyText=${t.noMatches}
          .formatPrice=${(p: PickerProduct) => view.money(this.#price(p) ?? p.precio_lista)}
          @svc-pick=${(e: CustomEvent<ElementsConfig['catalog'][number]>) => this.#pick(e.detail)}
        ></svc-product-picker>
        ${
          config.features.custom_items
            ? customLine(view, this.errors.price, {
                add: (line) => this.#addLine(line),
                invalid: (error) => {
                  this.errors = { ...this.errors, price: error };
                },
              })
            : nothing
        }
      </div>
      ${lineList(view, this.lines, this.errors.lines, {
        quantity: (key, cantidad) => {
          this.lines = this.lines.map((l) =>
            l.key === key ? { ...l, cantidad, fresh: false, error: undefined, typed: undefined } : l,
          );
          this.#changed();
        },
        invalid: (key, error, typed, was) => {
          const moved = this.lines.some((l) => l.key === key && l.cantidad !== was);
          this.lines = this.lines.map((l) => (l.key === key ? { ...l, error, typed, cantidad: was } : l));
          if (moved) this.#changed();
        },
        remove: (key) => {
          const index = this.lines.findIndex((l) => l.key === key);
          this.lines = this.lines.filter((l) => l.key !== key);
          this.#changed();
          // The removed button had the focus: the line now in its place (or the last, or the
          // empty list's message) takes it, not the page.
          void this.updateComplete.then(() => {
            const buttons = this.renderRoot.querySelectorAll<HTMLElement>('.lines .line button');
            (
              buttons[Math.min(index, buttons.length - 1)] ??
              this.renderRoot.querySelector<HTMLElement>('#svc-lines-empty')
            )?.focus();
          });
        },
      })}
      ${skippedLine(view, this.drafting)}
      ${config.features.coupons ? couponField(view, this.coupon, figures.descuento, (code) => this.#applyCoupon(code)) : nothing}
      ${
        this.lines.length
          ? totalsPanel(
              view,
              figures,
              !this.totalsConfirmed && this.refused?.version !== this.#version,
              this.refused?.version === this.#version ? this.refused.text : undefined,
            )
          : nothing
      }
      ${config.plan_pagos ? html`<p part="plan" class="muted small">${config.plan_pagos.texto[view.locale]}</p>` : nothing}
      ${config.terminos ? html`<p class="muted small">${config.terminos}</p>` : nothing}
      ${clientFields(view, client, {
        toggleFiscal: (open) => {
          this.fiscalOpen = open;
        },
        country: (code) => {
          this.fiscalCountry = code;
        },
        edited: (name) => {
          this.errors = { ...this.errors, [name]: undefined };
        },
      })}
      <div class="actions">
        <div>
          <div class="notice" role="status">${this.notice?.error ? nothing : this.notice?.text(view)}</div>
          <div class="notice error" role="alert">${this.notice?.error ? this.notice.text(view) : nothing}</div>
        </div>
        <button class="primary submit" part="submit" type="submit" aria-disabled=${!!this.submitting}>
          ${this.submitting ? t.submitting : t.submit}
        </button>
      </div>
    </form>`;
  }

  #success(view: View, created: QuoteCreated): TemplateResult {
    const { t } = view;
    const total = formatMoney(
      created.total,
      created.moneda,
      `${view.locale}-${this.config?.org.country ?? 'MX'}`,
    );
    return html`<div class="base success" part="base success" lang=${view.locale}>
      <span class="check" aria-hidden="true">✓</span>
      <h2 tabindex="-1" aria-describedby="svc-success-text">${t.successTitle}</h2>
      <p id="svc-success-text">${view.say(t.successText, { folio: created.folio, total })}</p>
      ${created.needs_approval ? html`<p class="muted">${t.awaitingApproval}</p>` : nothing}
      <a class="button primary" href=${created.link_publico} target="_blank" rel="noopener">${t.viewQuote}</a>
      <button type="button" @click=${() => this.#startAgain()}>${t.newQuote}</button>
    </div>`;
  }
}
