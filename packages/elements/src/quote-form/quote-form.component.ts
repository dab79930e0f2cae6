import { computeTotals, formatMoney, type Totals } from '@svc/core';
import { html, LitElement, nothing, type PropertyValues } from 'lit';
import { type ChangeDetail, type QuoteCreatedDetail, svcEvent } from '../events/events.js';
import { ApiClient, type DraftItem, SvcApiError } from '../internal/api-client.js';
import { type Locale, type Messages, messagesFor, pickLocale } from '../internal/i18n/index.js';
import type { PickerProduct } from '../product-picker/product-picker.component.js';
import styles from './quote-form.styles.js';

/** The configuration the service gives the widget (GET /elements/config). */
export interface ElementsConfig {
  org: { nombre: string; color: string | null; logo_url: string | null; country: string };
  mode: 'test' | 'live';
  locale: string;
  currency: string;
  currencies: string[];
  default_tax_rate: number;
  terminos: string | null;
  catalog: (PickerProduct & { tax_rate: number | null; fraccionable: boolean })[];
  features: { ai_draft: boolean; coupons: boolean; custom_items: boolean };
  required_client_fields: string[];
}

/** A line of the basket. */
export interface QuoteLine {
  descripcion: string;
  cantidad: number;
  precio_unitario: number;
  producto_id?: string;
  sku?: string;
  unidad?: string;
  tax_rate?: number | null;
  fraccionable?: boolean;
}

/** The client data of the form. */
export interface QuoteClient {
  empresa: string;
  email?: string;
  contacto?: string;
  telefono?: string;
  rfc?: string;
  fiscal?: {
    country: string;
    tax_id: string;
    legal_name?: string;
    regimen_fiscal?: string;
    uso_cfdi?: string;
    cp_fiscal?: string;
  };
}

/** What `submit()` resolves with: the service's creation result. */
export interface QuoteCreated extends QuoteCreatedDetail {
  token: string;
  motivo: string | null;
  status: string;
}

type Line = QuoteLine & { key: number; fresh?: boolean };
type Phase = 'loading' | 'error' | 'ready' | 'success';

let defaultApiBase = '';
/** Where the script-tag build was served from; the default `api-base`. */
export const setDefaultApiBase = (base: string) => {
  defaultApiBase = base;
};

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+[0-9][0-9 ()-]{5,24}$/;
let keys = 0;

/**
 * @summary An embeddable quote request form: catalog picker, streamed drafting from plain words,
 * coupon, live totals with tax, client data, and a submission that becomes a quote with a folio.
 *
 * @event svc-ready - the configuration loaded and the form is ready
 * @event svc-change - the basket changed; `detail` has items, total and currency
 * @event svc-draft-item - a drafted line arrived
 * @event svc-quote-created - the quote exists; `detail` has id, folio, link_publico, needs_approval
 * @event svc-error - something failed; `detail` has code and error
 *
 * @csspart base - the card around everything
 * @csspart header - brand name and logo
 * @csspart picker - the product search
 * @csspart draft - the "describe what you need" box
 * @csspart lines - the list of lines
 * @csspart coupon - the coupon field
 * @csspart totals - subtotal, discount, tax and total
 * @csspart client - the client fields
 * @csspart submit - the submit button
 * @csspart success - the view after the quote is created
 * @csspart error - the error view
 *
 * @cssproperty --svc-color-primary - main colour (default: the merchant's brand colour)
 * @cssproperty --svc-font - font family (default: inherited from the page)
 * @cssproperty --svc-radius - corner radius
 * @cssproperty --svc-spacing - base spacing
 * @cssproperty --svc-density - multiplies spacing (0.8 compact, 1.2 roomy)
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
    draftState: { state: true },
    couponState: { state: true },
    serverTotals: { state: true },
    fieldErrors: { state: true },
    submitting: { state: true },
    notice: { state: true },
    created: { state: true },
    announcement: { state: true },
    showFiscal: { state: true },
  };

  declare publishableKey: string;
  declare apiBase: string;
  declare locale: string | undefined;
  declare currency: string | undefined;
  declare theme: 'light' | 'dark' | 'auto';
  declare cliente: QuoteClient;
  declare items: QuoteLine[];
  declare phase: Phase;
  declare config: ElementsConfig | undefined;
  declare lines: Line[];
  declare failure: SvcApiError | undefined;
  declare draftState: { running: boolean; count: number; message: string; error: boolean };
  declare couponState: { code: string; status: 'idle' | 'checking' | 'valid' | 'invalid'; reason: string };
  declare serverTotals:
    | { version: number; totals: Pick<Totals, 'subtotal' | 'descuento' | 'impuestos' | 'total'> }
    | undefined;
  declare fieldErrors: Record<string, string>;
  declare submitting: boolean;
  declare notice: string;
  declare created: QuoteCreated | undefined;
  declare announcement: string;
  declare showFiscal: boolean;

  #client: ApiClient | undefined;
  #draftController: AbortController | undefined;
  #submission: { key: string; signature: string } | undefined;
  #version = 0;
  #previewTimer: ReturnType<typeof setTimeout> | undefined;
  #pendingSubmit: Promise<QuoteCreated> | undefined;

  constructor() {
    super();
    this.publishableKey = '';
    this.apiBase = '';
    this.theme = 'light';
    this.cliente = { empresa: '' };
    this.items = [];
    this.phase = 'loading';
    this.lines = [];
    this.draftState = { running: false, count: 0, message: '', error: false };
    this.couponState = { code: '', status: 'idle', reason: '' };
    this.fieldErrors = {};
    this.submitting = false;
    this.notice = '';
    this.announcement = '';
    this.showFiscal = false;
  }

  /** The language in use: the attribute, else the merchant's, else the browser's. */
  get activeLocale(): Locale {
    return pickLocale(
      this.locale,
      this.config?.locale,
      typeof navigator === 'undefined' ? undefined : navigator.language,
    );
  }

  get #t(): Messages {
    return messagesFor(this.activeLocale);
  }

  get #currency(): string {
    const wanted = this.currency?.toUpperCase();
    return wanted && this.config?.currencies.includes(wanted) ? wanted : (this.config?.currency ?? 'MXN');
  }

  #money(amount: number): string {
    return formatMoney(amount, this.#currency, `${this.activeLocale}-${this.config?.org.country ?? 'MX'}`);
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.#load();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#draftController?.abort();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('items') && this.items.length > 0) {
      this.lines = this.items.map((item) => ({ ...item, key: ++keys }));
      this.#changed();
    }
    if (
      (changed.has('publishableKey') || changed.has('apiBase')) &&
      changed.get('publishableKey') !== undefined
    ) {
      void this.#load();
    }
  }

  async #load(): Promise<void> {
    this.phase = 'loading';
    const base = (this.apiBase || defaultApiBase || `${location.origin}/api/v1`).replace(/\/+$/, '');
    this.#client = new ApiClient(base, this.publishableKey, () => this.activeLocale);
    try {
      if (!this.publishableKey) throw new SvcApiError('missing_key', 'publishable-key is missing');
      const { data } = await this.#client.send<ElementsConfig>('/elements/config');
      this.config = data;
      if (data.org.color) this.style.setProperty('--svc-brand', data.org.color);
      this.phase = 'ready';
      await this.updateComplete;
      this.dispatchEvent(svcEvent('svc-ready', { locale: this.activeLocale, currency: this.#currency }));
    } catch (error) {
      this.failure = error instanceof SvcApiError ? error : new SvcApiError('network', String(error));
      this.phase = 'error';
      this.#emitError(this.failure);
    }
  }

  #emitError(error: SvcApiError) {
    this.dispatchEvent(svcEvent('svc-error', { code: error.code, error: this.#describe(error) }));
  }

  #describe(error: SvcApiError): string {
    const t = this.#t;
    if (error.code === 'invalid_request' && typeof error.detail.reason === 'string') {
      return t.couponReasons[error.detail.reason] ?? error.message;
    }
    const template = t.errors[error.code] ?? t.errors.internal_error!;
    return template.replace('{detail}', error.message);
  }

  /** Local totals from `@svc/core`; the server's preview replaces them when it answers. */
  get totals(): Pick<Totals, 'subtotal' | 'descuento' | 'impuestos' | 'total'> {
    if (this.serverTotals && this.serverTotals.version === this.#version) return this.serverTotals.totals;
    return computeTotals({
      currency: this.#currency,
      default_tax_rate: this.config?.default_tax_rate ?? 0,
      lines: this.lines.map((l) => ({
        cantidad: l.cantidad || 0,
        precio_unitario: l.precio_unitario,
        tax_rate: l.tax_rate ?? null,
      })),
      // A coupon's value is only known to the server: until its preview answers, no discount shows.
      discount: null,
    });
  }

  #requestItems() {
    return this.lines
      .filter((l) => l.cantidad > 0)
      .map((l) => ({
        descripcion: l.descripcion,
        cantidad: l.cantidad,
        precio_unitario: l.precio_unitario,
        ...(l.producto_id ? { producto_id: l.producto_id } : {}),
      }));
  }

  /** Something in the basket changed: tell the page, and reconcile totals with the server soon. */
  #changed() {
    this.#version++;
    const detail: ChangeDetail = {
      items: this.#requestItems(),
      total: this.totals.total,
      moneda: this.#currency,
    };
    this.dispatchEvent(svcEvent('svc-change', detail));
    clearTimeout(this.#previewTimer);
    this.#previewTimer = setTimeout(() => void this.#preview(), 250);
  }

  async #preview(): Promise<void> {
    if (!this.#client || this.phase !== 'ready') return;
    const items = this.#requestItems();
    const code = this.couponState.code.trim();
    if (items.length === 0) {
      this.serverTotals = undefined;
      return;
    }
    const version = this.#version;
    if (code) this.couponState = { ...this.couponState, status: 'checking' };
    try {
      const { data } = await this.#client.send<
        Totals & { cupon: { valid: boolean; reason: string | null } | null }
      >('/elements/preview', {
        method: 'POST',
        body: { items, base_currency: this.#currency, ...(code ? { cupon: code } : {}) },
      });
      if (version !== this.#version) return;
      this.serverTotals = { version, totals: data };
      if (code && data.cupon) {
        this.couponState = {
          code,
          status: data.cupon.valid ? 'valid' : 'invalid',
          reason: data.cupon.reason ?? '',
        };
      }
    } catch (error) {
      if (code) this.couponState = { code, status: 'invalid', reason: '' };
      if (error instanceof SvcApiError && error.code === 'rate_limited') this.notice = this.#describe(error);
    }
  }

  #addLine(line: QuoteLine, fresh = false) {
    const existing = line.producto_id
      ? this.lines.find((l) => l.producto_id === line.producto_id)
      : undefined;
    if (existing) {
      this.lines = this.lines.map((l) =>
        l === existing ? { ...l, cantidad: l.cantidad + line.cantidad, fresh } : l,
      );
    } else {
      this.lines = [...this.lines, { ...line, key: ++keys, fresh }];
    }
    this.#changed();
  }

  #pick(product: ElementsConfig['catalog'][number]) {
    this.#addLine({
      descripcion: product.nombre,
      cantidad: 1,
      precio_unitario: product.precio_lista,
      producto_id: product.id,
      sku: product.sku,
      unidad: product.unidad,
      tax_rate: product.tax_rate,
      fraccionable: product.fraccionable,
    });
    this.announcement = this.#t.draftAdded('1', product.nombre);
  }

  /** Streams drafted lines for `text` into the basket; resolves with how many arrived. */
  async draft(text: string): Promise<number> {
    if (!this.#client || !this.config || this.draftState.running || !text.trim()) return 0;
    const t = this.#t;
    const controller = new AbortController();
    this.#draftController = controller;
    this.draftState = { running: true, count: 0, message: t.drafting(0), error: false };
    const byId = new Map(this.config.catalog.map((p) => [p.id, p]));
    try {
      const count = await this.#client.draft(
        text,
        this.#currency,
        (item: DraftItem) => {
          this.#addLine(
            {
              descripcion: item.descripcion,
              cantidad: item.cantidad,
              precio_unitario: item.precio_unitario,
              producto_id: item.producto_id,
              sku: item.sku,
              unidad: item.unidad,
              tax_rate: item.tax_rate,
              fraccionable: byId.get(item.producto_id)?.fraccionable ?? false,
            },
            true,
          );
          const n = this.draftState.count + 1;
          this.draftState = { running: true, count: n, message: t.drafting(n), error: false };
          this.announcement = t.draftAdded(this.#number(item.cantidad), item.descripcion);
          this.dispatchEvent(
            svcEvent('svc-draft-item', {
              sku: item.sku,
              cantidad: item.cantidad,
              descripcion: item.descripcion,
            }),
          );
        },
        controller.signal,
      );
      this.draftState = {
        running: false,
        count,
        message: count === 0 ? t.draftNothing : t.drafted(count),
        error: false,
      };
      return count;
    } catch (error) {
      const count = this.draftState.count;
      if ((error as Error).name === 'AbortError') {
        this.draftState = { running: false, count, message: t.draftStopped(count), error: false };
        return count;
      }
      const failure = error instanceof SvcApiError ? error : new SvcApiError('network', String(error));
      const message =
        count > 0 ? `${t.draftFailed(count)} ${this.#describe(failure)}` : this.#describe(failure);
      this.draftState = { running: false, count, message, error: true };
      this.#emitError(failure);
      return count;
    } finally {
      this.announcement = this.draftState.message;
      if (this.#draftController === controller) this.#draftController = undefined;
    }
  }

  /** Stops a running draft; the lines already received stay. */
  stopDraft(): void {
    this.#draftController?.abort();
  }

  #number(n: number): string {
    return new Intl.NumberFormat(this.activeLocale).format(n);
  }

  #readClient(): QuoteClient {
    const form = this.renderRoot.querySelector('form');
    const value = (name: string) =>
      ((form?.elements.namedItem(name) as HTMLInputElement | null)?.value ?? '').trim();
    const client: QuoteClient = { empresa: value('empresa') };
    for (const name of ['email', 'contacto', 'telefono'] as const)
      if (value(name)) client[name] = value(name);
    if (this.showFiscal && (value('country') || value('tax_id'))) {
      const fiscal: NonNullable<QuoteClient['fiscal']> = {
        country: value('country').toUpperCase(),
        tax_id: value('tax_id'),
      };
      for (const name of ['legal_name', 'regimen_fiscal', 'uso_cfdi', 'cp_fiscal'] as const)
        if (value(name)) fiscal[name] = value(name);
      client.fiscal = fiscal;
    }
    return client;
  }

  #validate(client: QuoteClient): Record<string, string> {
    const t = this.#t;
    const errors: Record<string, string> = {};
    const required = new Set(['empresa', ...(this.config?.required_client_fields ?? [])]);
    for (const name of required) {
      if (!(client as unknown as Record<string, string | undefined>)[name]) errors[name] = t.required;
    }
    if (client.email && !EMAIL.test(client.email)) errors.email = t.invalidEmail;
    if (client.telefono && !PHONE.test(client.telefono)) errors.telefono = t.invalidPhone;
    if (client.fiscal) {
      // The shape only: the server checks the code against ISO 3166 and says so if it is wrong.
      if (!/^[A-Z]{2}$/.test(client.fiscal.country)) errors.country = t.invalidCountry;
      if (!client.fiscal.tax_id) errors.tax_id = t.required;
    }
    if (this.#requestItems().length === 0) errors.lines = t.needLines;
    return errors;
  }

  /**
   * Sends the quote request. One `Idempotency-Key` is kept for the same submission, so retries
   * (automatic on network errors, 5xx and 429, or the user's) can never create two quotes.
   * Resolves with the creation result; rejects with the error.
   */
  submit(): Promise<QuoteCreated> {
    if (this.#pendingSubmit) return this.#pendingSubmit;
    this.#pendingSubmit = this.#submit().finally(() => {
      this.#pendingSubmit = undefined;
    });
    return this.#pendingSubmit;
  }

  async #submit(): Promise<QuoteCreated> {
    if (!this.#client || !this.config) throw new SvcApiError('service_unavailable', 'The form is not ready');
    const client = { ...this.cliente, ...this.#readClient() };
    const errors = this.#validate(client);
    this.fieldErrors = errors;
    if (Object.keys(errors).length > 0) {
      await this.updateComplete;
      const first = Object.keys(errors)[0];
      this.renderRoot.querySelector<HTMLElement>(`[name="${first}"], #svc-lines-error`)?.focus();
      throw new SvcApiError('invalid_request', Object.values(errors)[0]!);
    }
    const code = this.couponState.code.trim();
    const body = {
      items: this.#requestItems(),
      cliente: client,
      base_currency: this.#currency,
      ...(code ? { cupon: code } : {}),
    };
    const signature = JSON.stringify(body);
    if (!this.#submission || this.#submission.signature !== signature) {
      this.#submission = { key: crypto.randomUUID(), signature };
    }
    this.submitting = true;
    this.notice = this.#t.submitting;
    try {
      const result = await this.#client.sendWithRetry<QuoteCreated>(
        '/cotizaciones',
        { method: 'POST', body, headers: { 'Idempotency-Key': this.#submission.key } },
        (seconds) => {
          this.notice = this.#t.retrying(seconds);
        },
      );
      this.created = result;
      this.phase = 'success';
      this.notice = '';
      this.#submission = undefined;
      this.dispatchEvent(
        svcEvent('svc-quote-created', {
          id: result.id,
          folio: result.folio,
          link_publico: result.link_publico,
          needs_approval: result.needs_approval,
          total: result.total,
          moneda: result.moneda,
        }),
      );
      return result;
    } catch (error) {
      const failure = error instanceof SvcApiError ? error : new SvcApiError('network', String(error));
      this.notice = this.#describe(failure);
      this.#emitError(failure);
      throw failure;
    } finally {
      this.submitting = false;
    }
  }

  /** Empties the form for a new quote (configuration kept). */
  reset(): void {
    this.stopDraft();
    this.lines = [];
    this.couponState = { code: '', status: 'idle', reason: '' };
    this.serverTotals = undefined;
    this.fieldErrors = {};
    this.created = undefined;
    this.notice = '';
    this.draftState = { running: false, count: 0, message: '', error: false };
    this.#submission = undefined;
    this.renderRoot.querySelector('form')?.reset();
    if (this.phase === 'success') this.phase = 'ready';
    this.#changed();
  }

  protected override render() {
    const t = this.#t;
    if (this.phase === 'loading') {
      return html`<div class="base" part="base" aria-busy="true">
        <p class="sr-only" role="status">${t.loading}</p>
        <div class="skeleton" aria-hidden="true"><span class="short"></span><span></span><span></span><span class="tall"></span></div>
      </div>`;
    }
    if (this.phase === 'error' || !this.config) {
      const failure = this.failure ?? new SvcApiError('network', '');
      return html`<div class="base" part="base error" role="alert">
        <p>${failure.code === 'network' ? `${t.unreachable} ${t.errors.network}` : this.#describe(failure)}</p>
        <div><button class="primary" @click=${() => void this.#load()}>${t.retry}</button></div>
      </div>`;
    }
    if (this.phase === 'success' && this.created) return this.#renderSuccess();
    return html`<form class="base" part="base" novalidate lang=${this.activeLocale} @submit=${(e: Event) => {
      e.preventDefault();
      void this.submit().catch(() => {});
    }}>
      ${this.#renderHeader()}
      <p class="sr-only" role="status" aria-live="polite">${this.announcement}</p>
      ${this.config.features.ai_draft ? this.#renderDraft() : nothing}
      <div part="picker">
        <svc-product-picker
          .products=${this.config.catalog}
          .label=${t.pickerLabel}
          .placeholder=${t.pickerPlaceholder}
          .emptyText=${t.noMatches}
          .formatPrice=${(p: PickerProduct) => this.#money(p.precio_lista)}
          @svc-pick=${(e: CustomEvent) => this.#pick(e.detail)}
        ></svc-product-picker>
        ${this.config.features.custom_items ? this.#renderCustom() : nothing}
      </div>
      ${this.#renderLines()}
      ${this.config.features.coupons ? this.#renderCoupon() : nothing}
      ${this.#renderTotals()}
      ${this.#renderClient()}
      ${this.notice ? html`<p class="status ${this.submitting ? '' : 'error'}" role="status">${this.notice}</p>` : nothing}
      <button class="primary" part="submit" type="submit" ?disabled=${this.submitting} aria-busy=${this.submitting ? 'true' : 'false'}>
        ${this.submitting ? t.submitting : t.submit}
      </button>
    </form>`;
  }

  #renderHeader() {
    const org = this.config!.org;
    return html`<header part="header">
      ${org.logo_url ? html`<img src=${org.logo_url} alt="" />` : nothing}
      <h2>${org.nombre}</h2>
    </header>`;
  }

  #renderDraft() {
    const t = this.#t;
    const state = this.draftState;
    return html`<div part="draft" class="field" @keydown=${(e: KeyboardEvent) => {
      if (e.key === 'Escape' && state.running) {
        e.preventDefault();
        this.stopDraft();
      }
    }}>
      <label for="svc-draft">${t.draftLabel}</label>
      <textarea id="svc-draft" maxlength="2000" placeholder=${t.draftPlaceholder} ?disabled=${state.running}></textarea>
      <div class="row">
        ${
          state.running
            ? html`<button type="button" @click=${() => this.stopDraft()}>${t.stop}</button>`
            : html`<button type="button" @click=${() => {
                const text = this.renderRoot.querySelector<HTMLTextAreaElement>('#svc-draft')?.value ?? '';
                void this.draft(text);
              }}>${t.draftButton}</button>`
        }
        ${
          state.message
            ? html`<span class=${state.error ? 'error-text' : 'muted'} role=${state.error ? 'alert' : nothing}>${state.message}</span>`
            : nothing
        }
      </div>
    </div>`;
  }

  #renderCustom() {
    const t = this.#t;
    return html`<details>
      <summary>${t.addCustom}</summary>
      <div class="row">
        <div class="field grow"><label for="svc-custom-desc">${t.customDescription}</label><input id="svc-custom-desc" maxlength="500" /></div>
        <div class="field"><label for="svc-custom-price">${t.customPrice}</label><input id="svc-custom-price" type="number" min="0" step="0.01" inputmode="decimal" /></div>
        <button type="button" @click=${() => {
          const desc = this.renderRoot.querySelector<HTMLInputElement>('#svc-custom-desc');
          const price = this.renderRoot.querySelector<HTMLInputElement>('#svc-custom-price');
          const value = Number(price?.value);
          if (!desc?.value.trim() || !Number.isFinite(value) || value < 0) return;
          this.#addLine({
            descripcion: desc.value.trim(),
            cantidad: 1,
            precio_unitario: value,
            fraccionable: true,
          });
          desc.value = '';
          if (price) price.value = '';
        }}>+</button>
      </div>
    </details>`;
  }

  #renderLines() {
    const t = this.#t;
    return html`<section part="lines" aria-labelledby="svc-lines-title">
      <h3 id="svc-lines-title">${t.linesTitle}</h3>
      ${
        this.lines.length === 0
          ? html`<p class="muted" id="svc-lines-error" tabindex="-1">${t.empty}</p>`
          : html`<ul class="lines">
            ${this.lines.map(
              (line) => html`<li class="line ${line.fresh ? 'new' : ''}">
                <div>
                  <div class="name">${line.descripcion}</div>
                  <div class="price">${this.#money(line.precio_unitario)}${line.unidad ? ` / ${line.unidad}` : ''}</div>
                </div>
                <input
                  class="qty"
                  type="number"
                  inputmode=${line.fraccionable ? 'decimal' : 'numeric'}
                  min=${line.fraccionable ? '0.01' : '1'}
                  step=${line.fraccionable ? '0.01' : '1'}
                  aria-label="${t.quantity}: ${line.descripcion}"
                  .value=${String(line.cantidad)}
                  @change=${(e: Event) => {
                    const raw = Number((e.target as HTMLInputElement).value);
                    const cantidad = line.fraccionable ? raw : Math.round(raw);
                    this.lines = this.lines.map((l) =>
                      l.key === line.key
                        ? { ...l, cantidad: cantidad > 0 ? cantidad : l.cantidad, fresh: false }
                        : l,
                    );
                    this.#changed();
                  }}
                />
                <span class="amount">${this.#money(line.cantidad * line.precio_unitario)}</span>
                <button type="button" class="link" aria-label="${t.remove}: ${line.descripcion}" @click=${() => {
                  this.lines = this.lines.filter((l) => l.key !== line.key);
                  this.#changed();
                }}>${t.remove}</button>
              </li>`,
            )}
          </ul>`
      }
      ${this.fieldErrors.lines ? html`<p class="error-text" role="alert">${this.fieldErrors.lines}</p>` : nothing}
    </section>`;
  }

  #renderCoupon() {
    const t = this.#t;
    const state = this.couponState;
    const apply = () => {
      const code = this.renderRoot.querySelector<HTMLInputElement>('#svc-coupon')?.value.trim() ?? '';
      this.couponState = { code, status: code ? 'checking' : 'idle', reason: '' };
      this.#changed();
    };
    return html`<div part="coupon" class="field">
      <label for="svc-coupon">${t.coupon}</label>
      <div class="row nowrap">
        <input id="svc-coupon" class="grow" autocomplete="off" maxlength="64" aria-describedby="svc-coupon-status"
          aria-invalid=${state.status === 'invalid' ? 'true' : 'false'}
          @keydown=${(e: KeyboardEvent) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              apply();
            }
          }} />
        <button type="button" @click=${apply}>${t.apply}</button>
      </div>
      <p id="svc-coupon-status" role="status" ?hidden=${state.status === 'idle'} class=${state.status === 'invalid' ? 'error-text' : 'muted'}>
        ${
          state.status === 'valid'
            ? t.couponApplied(state.code.toUpperCase(), this.#money(this.totals.descuento))
            : state.status === 'invalid'
              ? (t.couponReasons[state.reason] ?? t.couponReasons.not_found)
              : ''
        }
      </p>
    </div>`;
  }

  #renderTotals() {
    const t = this.#t;
    const totals = this.totals;
    return html`<dl class="totals" part="totals" aria-live="polite">
      <dt>${t.subtotal}</dt><dd>${this.#money(totals.subtotal)}</dd>
      ${totals.descuento > 0 ? html`<dt>${t.discount}</dt><dd>−${this.#money(totals.descuento)}</dd>` : nothing}
      <dt>${t.tax}</dt><dd>${this.#money(totals.impuestos)}</dd>
      <dt class="grand">${t.total}</dt><dd class="grand">${this.#money(totals.total)}</dd>
    </dl>
    ${this.config?.terminos ? html`<p class="muted">${this.config.terminos}</p>` : nothing}`;
  }

  #field(
    name: string,
    options: {
      type?: string;
      autocomplete?: string;
      required?: boolean;
      value?: string;
      inputmode?: string;
    } = {},
  ) {
    const t = this.#t;
    const error = this.fieldErrors[name];
    const required =
      options.required ?? (name === 'empresa' || (this.config?.required_client_fields ?? []).includes(name));
    return html`<div class="field">
      <label for="svc-f-${name}">${t.fields[name]}${required ? ' *' : ''}</label>
      <input id="svc-f-${name}" name=${name} type=${options.type ?? 'text'} autocomplete=${options.autocomplete ?? 'off'}
        inputmode=${options.inputmode ?? nothing}
        ?required=${required} aria-required=${required ? 'true' : 'false'} aria-invalid=${error ? 'true' : 'false'}
        aria-describedby=${error ? `svc-e-${name}` : nothing} .value=${options.value ?? ''}
        @input=${() => {
          if (this.fieldErrors[name]) this.fieldErrors = { ...this.fieldErrors, [name]: '' };
        }} />
      ${error ? html`<span id="svc-e-${name}" class="error-text">${error}</span>` : nothing}
    </div>`;
  }

  #renderClient() {
    const t = this.#t;
    const c = this.cliente;
    const mexican = (this.config?.org.country ?? '') === 'MX';
    return html`<fieldset part="client" class="plain">
      <legend><h3>${t.clientTitle}</h3></legend>
      <div class="grid2">
        ${this.#field('empresa', { autocomplete: 'organization', value: c.empresa })}
        ${this.#field('contacto', { autocomplete: 'name', value: c.contacto ?? '' })}
        ${this.#field('email', { type: 'email', autocomplete: 'email', value: c.email ?? '' })}
        ${this.#field('telefono', { type: 'tel', autocomplete: 'tel', value: c.telefono ?? '' })}
      </div>
      <details ?open=${this.showFiscal} @toggle=${(e: Event) => {
        this.showFiscal = (e.target as HTMLDetailsElement).open;
      }}>
        <summary>${t.fiscalToggle}</summary>
        <div class="grid2">
          ${this.#field('country', { autocomplete: 'country', value: c.fiscal?.country ?? this.config?.org.country ?? '', required: false })}
          ${this.#field('tax_id', { value: c.fiscal?.tax_id ?? c.rfc ?? '', required: false })}
          ${this.#field('legal_name', { value: c.fiscal?.legal_name ?? '', required: false })}
          ${mexican ? this.#field('regimen_fiscal', { value: c.fiscal?.regimen_fiscal ?? '', required: false, inputmode: 'numeric' }) : nothing}
          ${mexican ? this.#field('uso_cfdi', { value: c.fiscal?.uso_cfdi ?? '', required: false }) : nothing}
          ${mexican ? this.#field('cp_fiscal', { value: c.fiscal?.cp_fiscal ?? '', required: false, inputmode: 'numeric' }) : nothing}
        </div>
      </details>
    </fieldset>`;
  }

  #renderSuccess() {
    const t = this.#t;
    const created = this.created!;
    return html`<div class="base success" part="base success" role="status">
      <h2>${t.successTitle}</h2>
      <p>${t.successText(created.folio, formatMoney(created.total, created.moneda, `${this.activeLocale}-${this.config?.org.country ?? 'MX'}`))}</p>
      ${created.needs_approval ? html`<p class="muted">${t.awaitingApproval}</p>` : nothing}
      <a href=${created.link_publico} target="_blank" rel="noopener">${t.viewQuote}</a>
      <button type="button" @click=${() => this.reset()}>${t.newQuote}</button>
    </div>`;
  }
}
