import { fromMinor, toMinor } from '@svc/core';
import {
  creditDescription,
  creditNoteParts,
  emisorOf,
  formaPagoOf,
  hasTaxBase,
  QUANTITY_DECIMALS,
  receptorOf,
} from './cfdi.js';
import type { FiscalProvider, StampRequest, StampResult } from './provider.js';

/** How to reach Facturama's API Web (`FISCAL_PROVIDER=facturama`). */
export interface FacturamaOptions {
  /** `https://api.facturama.mx`, or `https://apisandbox.facturama.mx` for their sandbox. */
  baseUrl: string;
  user: string;
  password: string;
  /** @defaultValue 15 000 */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const RETRY_AFTER_SECONDS = 30;

/**
 * An adapter for Facturama's REST API Web (CFDI 4.0): `POST /3/cfdis` with the document as JSON
 * and HTTP Basic authentication, then `GET /cfdi/xml/issued/{id}` for the stamped XML (base64).
 * A 4xx answer is the SAT's or the provider's refusal (its `Message` and `ModelState` become the
 * reason); a 5xx, a timeout or a network failure is `unavailable`, and nothing is recorded.
 */
export function facturamaProvider(options: FacturamaOptions): FiscalProvider {
  const doFetch = options.fetch ?? fetch;
  const auth = `Basic ${Buffer.from(`${options.user}:${options.password}`).toString('base64')}`;
  const call = async (path: string, init: RequestInit = {}) =>
    doFetch(new URL(path, options.baseUrl), {
      ...init,
      headers: { Authorization: auth, 'Content-Type': 'application/json', ...(init.headers ?? {}) },
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
  return {
    name: 'facturama',
    async stamp(request: StampRequest): Promise<StampResult> {
      try {
        const created = await call('/3/cfdis', {
          method: 'POST',
          body: JSON.stringify(facturamaCfdi(request)),
        });
        if (created.status >= 500) return { status: 'unavailable', retryAfterSeconds: RETRY_AFTER_SECONDS };
        const body = (await created.json().catch(() => ({}))) as FacturamaAnswer;
        if (!created.ok) return { status: 'rejected', motivo: refusal(body) };
        const uuid = body.Complement?.TaxStamp?.Uuid;
        if (!body.Id || !uuid) return { status: 'unavailable', retryAfterSeconds: RETRY_AFTER_SECONDS };
        const file = await call(`/cfdi/xml/issued/${encodeURIComponent(body.Id)}`);
        if (!file.ok) return { status: 'unavailable', retryAfterSeconds: RETRY_AFTER_SECONDS };
        const { Content } = (await file.json()) as { Content: string };
        return {
          status: 'stamped',
          uuid: uuid.toUpperCase(),
          xml: Buffer.from(Content, 'base64').toString('utf8'),
        };
      } catch {
        return { status: 'unavailable', retryAfterSeconds: RETRY_AFTER_SECONDS };
      }
    },
  };
}

interface FacturamaAnswer {
  Id?: string;
  Message?: string;
  ModelState?: Record<string, string[]>;
  Complement?: { TaxStamp?: { Uuid?: string } };
}

function refusal(body: FacturamaAnswer): string {
  const details = Object.values(body.ModelState ?? {}).flat();
  return [body.Message, ...details].filter(Boolean).join(' ') || 'The fiscal provider refused the document.';
}

/**
 * The document in Facturama's JSON form (its field names), from the invoice's own amounts: the
 * same figures, keys and parties as the sandbox's XML (a credit note split over the invoice's IVA
 * rates, a client abroad as the generic foreign receiver, `FormaPago` from the settling payment).
 */
export function facturamaCfdi(request: StampRequest) {
  const { invoice, kind } = request;
  const round = (value: number) => fromMinor(toMinor(value, invoice.moneda), invoice.moneda);
  const receptor = receptorOf(request);
  const [serie, folio] = request.numero.split('-');
  const tax = (rate: number, base: number, total: number) => ({
    Name: 'IVA',
    Rate: rate,
    Base: round(base),
    Total: round(total),
    IsRetention: false,
  });
  const items =
    kind === 'E'
      ? creditNoteParts(request).map((part, _, parts) => ({
          ProductCode: '84111506',
          Description: creditDescription(invoice.numero, part, parts.length),
          UnitCode: 'ACT',
          Quantity: 1,
          UnitPrice: round(part.base),
          Subtotal: round(part.base),
          TaxObject: '02',
          Taxes: [tax(part.rate, part.base, part.tax)],
          Total: round(part.base + part.tax),
        }))
      : request.items.map((item) => ({
          ProductCode: item.clave_sat ?? '01010101',
          IdentificationNumber: item.sku ?? undefined,
          Description: item.descripcion,
          Unit: item.unidad ?? undefined,
          UnitCode: item.clave_unidad_sat ?? 'H87',
          // Six decimals at most, as the SAT's Cantidad (lines are refused with more).
          Quantity: Number(item.cantidad.toFixed(QUANTITY_DECIMALS)),
          UnitPrice: round(item.cantidad ? item.importe / item.cantidad : 0),
          Subtotal: round(item.importe),
          Discount: item.descuento > 0 ? round(item.descuento) : undefined,
          // Nothing left to tax: "no objeto de impuesto", as the CFDI the sandbox builds.
          ...(hasTaxBase(item.importe - item.descuento, invoice.moneda)
            ? { TaxObject: '02', Taxes: [tax(item.tax_rate, item.importe - item.descuento, item.impuesto)] }
            : { TaxObject: '01' }),
          Total: round(item.importe - item.descuento + item.impuesto),
        }));
  return {
    Serie: serie,
    Folio: folio,
    CfdiType: kind,
    Currency: invoice.moneda,
    ...(request.tipoCambio === null ? {} : { CurrencyExchangeRate: request.tipoCambio }),
    ExpeditionPlace: emisorOf(request).LugarExpedicion,
    PaymentForm: formaPagoOf(request),
    PaymentMethod: kind === 'E' ? 'PUE' : (invoice.metodo_pago ?? 'PUE'),
    Exportation: '01',
    ...(kind === 'E' && invoice.folio_fiscal
      ? { Relations: { Type: '01', Cfdis: [{ Uuid: invoice.folio_fiscal }] } }
      : {}),
    Receiver: {
      Rfc: receptor.Rfc,
      Name: receptor.Nombre,
      CfdiUse: receptor.UsoCFDI,
      FiscalRegime: receptor.RegimenFiscalReceptor,
      TaxZipCode: receptor.DomicilioFiscalReceptor,
      ...(receptor.ResidenciaFiscal ? { TaxResidence: receptor.ResidenciaFiscal } : {}),
      ...(receptor.NumRegIdTrib ? { TaxRegistrationNumber: receptor.NumRegIdTrib } : {}),
    },
    Items: items,
  };
}
