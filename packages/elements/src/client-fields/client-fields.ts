import { html, nothing, type TemplateResult } from 'lit';
import { said, type Text, type View } from '../internal/view.js';

/** The client data of the form, as POST /cotizaciones takes it. */
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

// The same rules as @svc/core's clienteSchema, without bundling valibot into the script tag
// (about 4 KB brotli); client-fields.test.ts checks both agree.
const EMAIL = /^[^\s@"(),:;<>[\\\]]+@[^\s@"(),:;<>[\\\]]+\.[^\s@"(),:;<>[\\\].]{2,}$/;
const PHONE = /^\+[0-9][0-9 ()-]{5,24}$/;
const FORMATS: Record<string, [RegExp, string]> = {
  // No-break spaces: the example never breaks across lines.
  telefono: [PHONE, '+52\u00a055\u00a01234\u00a05678'],
  regimen_fiscal: [/^\d{3}$/, '601'],
  uso_cfdi: [/^[A-Z0-9]{3,4}$/, 'G03'],
  cp_fiscal: [/^\d{5}$/, '06600'],
  country: [/^[A-Z]{2}$/, 'MX'],
};
const MEXICAN = ['regimen_fiscal', 'uso_cfdi', 'cp_fiscal'] as const;

/**
 * Whether the browser knows `code` as a region. Its own data, not @svc/core's list of ISO codes
 * (~260 B brotli of the script's budget): the two differ only on codes that are no country, such
 * as EU or ZZ, which the service then refuses, naming the field.
 */
const isRegion = (code: string) =>
  new Intl.DisplayNames('en', { type: 'region', fallback: 'none' }).of(code) !== undefined;

/** The client form's state that lives in the host. */
export interface ClientFieldsState {
  cliente: QuoteClient;
  /** What is wrong with each field, by name. */
  errors: Record<string, Text | undefined>;
  /** Field names the merchant requires besides `empresa`. */
  required: string[];
  fiscalOpen: boolean;
  /** The tax country as typed: decides whether the Mexican fields show. */
  country: string;
}

/** Whether tax data is required by the merchant (then the tax section stays open). */
export const fiscalRequired = (required: string[]) =>
  required.includes('rfc') || required.includes('tax_id') || required.includes('fiscal');

/**
 * Reads the client from the form's inputs: trimmed, empty fields left out, tax data only when the
 * tax section is open and filled in.
 */
export function readClient(root: ParentNode, fiscalOpen: boolean): QuoteClient {
  const value = (name: string) =>
    (root.querySelector<HTMLInputElement>(`[name="${name}"]`)?.value ?? '').trim();
  const client: QuoteClient = { empresa: value('empresa') };
  for (const name of ['email', 'contacto', 'telefono'] as const) if (value(name)) client[name] = value(name);
  if (fiscalOpen && (value('tax_id') || value('legal_name'))) {
    const fiscal: NonNullable<QuoteClient['fiscal']> = {
      country: value('country').toUpperCase(),
      tax_id: value('tax_id').toUpperCase(),
    };
    if (value('legal_name')) fiscal.legal_name = value('legal_name');
    if (fiscal.country === 'MX')
      for (const name of MEXICAN) if (value(name)) fiscal[name] = value(name).toUpperCase();
    client.fiscal = fiscal;
  }
  return client;
}

/**
 * Checks the client the way the service will, and says what is wrong per field (in the form's
 * language at each render). An empty result means it can be sent.
 */
export function validateClient(view: View, client: QuoteClient, required: string[]): Record<string, Text> {
  const errors: Record<string, Text> = {};
  const flat = { ...client, ...client.fiscal } as unknown as Record<string, string | undefined>;
  for (const name of ['empresa', ...required.map((n) => (n === 'rfc' ? 'tax_id' : n))]) {
    if (name in view.t.fields && !flat[name]) errors[name] = said('required');
  }
  if (client.email && !EMAIL.test(client.email)) errors.email = said('invalidEmail');
  for (const [name, [pattern, example]] of Object.entries(FORMATS)) {
    const value = flat[name];
    if (value && !errors[name] && (!pattern.test(value) || (name === 'country' && !isRegion(value))))
      errors[name] = said('invalidFormat', { example });
  }
  if (client.fiscal && !client.fiscal.tax_id) errors.tax_id = said('required');
  return errors;
}

/** The client fields: `empresa`, contact data, and the tax data behind a disclosure. */
export function clientFields(
  view: View,
  state: ClientFieldsState,
  act: { toggleFiscal(open: boolean): void; country(code: string): void; edited(name: string): void },
): TemplateResult {
  const { t } = view;
  const c = state.cliente;
  const mustFiscal = fiscalRequired(state.required);
  const field = (
    name: string,
    value = '',
    type = 'text',
    autocomplete = 'off',
    extra: Partial<Record<'inputmode' | 'maxlength', string>> = {},
  ) => {
    const error = state.errors[name];
    const required = name === 'empresa' || state.required.includes(name) || (name === 'tax_id' && mustFiscal);
    return html`<div class="field">
      <label for="svc-f-${name}">${t.fields[name]}${required ? html`<span aria-hidden="true"> *</span>` : nothing}</label>
      <input id="svc-f-${name}" name=${name} type=${type} autocomplete=${autocomplete}
        inputmode=${extra.inputmode ?? nothing} maxlength=${extra.maxlength ?? '200'}
        ?required=${required} aria-invalid=${!!error}
        aria-describedby=${error ? `svc-e-${name}` : nothing} .value=${value}
        @input=${(e: Event) => {
          if (name === 'country') act.country((e.target as HTMLInputElement).value.trim().toUpperCase());
          if (error) act.edited(name);
        }} />
      ${error ? html`<span id="svc-e-${name}" class="error-text">${error(view)}</span>` : nothing}
    </div>`;
  };
  const fiscal = c.fiscal;
  return html`<fieldset part="client" class="plain">
    <legend><h3>${t.clientTitle}</h3></legend>
    <div class="grid2">
      ${field('empresa', c.empresa, 'text', 'organization')}
      ${field('contacto', c.contacto, 'text', 'name')}
      ${field('email', c.email, 'email', 'email')}
      ${field('telefono', c.telefono, 'tel', 'tel')}
    </div>
    <details ?open=${state.fiscalOpen || mustFiscal} @toggle=${(e: Event) => act.toggleFiscal((e.target as HTMLDetailsElement).open)}>
      <summary>${t.fiscalToggle}</summary>
      <div class="grid2">
        ${field('country', state.country, 'text', 'country', { maxlength: '2' })}
        ${field('tax_id', fiscal?.tax_id ?? c.rfc, 'text', 'off', { maxlength: '40' })}
        ${field('legal_name', fiscal?.legal_name, 'text', 'organization', { maxlength: '300' })}
        ${
          state.country === 'MX'
            ? html`${field('regimen_fiscal', fiscal?.regimen_fiscal, 'text', 'off', { inputmode: 'numeric', maxlength: '3' })}
              ${field('uso_cfdi', fiscal?.uso_cfdi, 'text', 'off', { maxlength: '4' })}
              ${field('cp_fiscal', fiscal?.cp_fiscal, 'text', 'postal-code', { inputmode: 'numeric', maxlength: '5' })}`
            : nothing
        }
      </div>
    </details>
  </fieldset>`;
}
