import { fromMinor, spread, toMinor } from '@svc/core';
import { create } from 'xmlbuilder2';
import { memoize } from '../../memo.js';
import { alpha3 } from './countries.js';
import type { StampRequest } from './provider.js';

/** Whether a concept's base (its amount less its discount) is above 0 in the currency's units: only then is it taxed. */
export const hasTaxBase = (base: number, currency: string): boolean => toMinor(base, currency) > 0;

/** The SAT's generic RFC for the public at large: a receiver without a tax id. */
export const PUBLIC_RFC = 'XAXX010101000';
/** The SAT's generic RFC for a receiver abroad (with `ResidenciaFiscal` and `NumRegIdTrib`). */
export const FOREIGN_RFC = 'XEXX010101000';
/** The number of the certificate the SAT publishes for tests: the sandbox's `NoCertificado`. */
export const SANDBOX_CERTIFICATE = '30001000000500003416';
/** Where a Mexican CFDI is dated: its `Fecha` is the local time of the place of issue. */
export const CFDI_TIME_ZONE = 'America/Mexico_City';

const amount = (value: number, currency: string) => fromMinor(toMinor(value, currency), currency).toFixed(2);
const rate = (value: number) => value.toFixed(6);

/** A Mexican RFC: 3 (a company) or 4 (a person) letters, the date, then 3 characters. */
const RFC = /^[A-ZÑ&]{3,4}\d{6}[A-Z\d]{3}$/;

/**
 * A formatter of a time zone's wall clock, made once: making one costs ~120 µs against ~8 µs to
 * use it, and finalization calls it under the invoice number's lock.
 */
const clockOf = memoize(
  (timeZone: string) =>
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }),
  64,
);

/**
 * A moment as a CFDI writes it, `YYYY-MM-DDTHH:mm:ss` without offset, in the local time of the
 * place of issue (Anexo 20: `Fecha` "debe corresponder con la hora local donde se expide").
 */
export function cfdiDateTime(now: Date, timeZone = CFDI_TIME_ZONE): string {
  const parts = Object.fromEntries(
    clockOf(timeZone)
      .formatToParts(now)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
}

/** The SAT's decimals for a `Cantidad`: at most 6. */
export const QUANTITY_DECIMALS = 6;

/** A quantity as a CFDI writes it: plain decimals (never `1e-7`), at most six, no trailing zeros. */
export function cfdiQuantity(value: number): string {
  const fixed = value.toFixed(QUANTITY_DECIMALS);
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}

/** The SAT's `c_FormaPago` of each payment method of an invoice payment (`metodo`). */
export const FORMA_PAGO: Readonly<Record<string, string>> = {
  efectivo: '01',
  cheque: '02',
  transferencia: '03',
  tarjeta: '04',
  otro: '99',
};

/**
 * The `FormaPago` of a document: `99` (por definir) when paid in parts (PPD); for one paid at once
 * (PUE), the form of the payment that settles it, or a transfer when none is known when stamped
 * (a standalone invoice is stamped before its payment is registered). A credit note: `15`.
 */
export function formaPagoOf(request: StampRequest): string {
  if (request.kind === 'E') return '15';
  if (request.invoice.metodo_pago !== 'PUE') return '99';
  return (request.settledWith && FORMA_PAGO[request.settledWith]) || '03';
}

/** The emisor of an organization: its fiscal data, or the SAT's test taxpayer in the sandbox. */
export function emisorOf(request: StampRequest) {
  const fiscal = (request.org as { fiscal?: Record<string, string> | null }).fiscal ?? {};
  return {
    Rfc: fiscal.rfc ?? 'EKU9003173C9',
    Nombre: (fiscal.legal_name ?? request.org.nombre).toUpperCase(),
    RegimenFiscal: fiscal.regimen_fiscal ?? '601',
    LugarExpedicion: fiscal.cp_fiscal ?? '06000',
  };
}

/**
 * The receptor from the client's fiscal data (RFC, régimen, uso CFDI, postal code). A client
 * abroad (a fiscal country other than Mexico, without a Mexican RFC) is the SAT's generic foreign
 * receiver, with its country (`ResidenciaFiscal`, alpha-3) and tax id (`NumRegIdTrib`); a client
 * without a tax id, the public at large. Both take régimen 616, uso S01 and the place of issue as
 * their postal code, as the SAT asks of the generic RFCs.
 */
export function receptorOf(request: StampRequest): {
  Rfc: string;
  Nombre: string;
  DomicilioFiscalReceptor: string;
  ResidenciaFiscal?: string;
  NumRegIdTrib?: string;
  RegimenFiscalReceptor: string;
  UsoCFDI: string;
} {
  const fiscal = request.client?.fiscal ?? {};
  const nombre = (fiscal.legal_name ?? request.invoice.cliente_nombre).toUpperCase();
  const lugar = emisorOf(request).LugarExpedicion;
  const taxId = (fiscal.tax_id ?? request.client?.rfc ?? '').trim().toUpperCase();
  const country = (fiscal.country ?? request.client?.country_code ?? '').trim().toUpperCase();
  if (country && country !== 'MX' && country !== 'MEX' && !RFC.test(taxId)) {
    // The tax id as the SAT's c_Pais patterns take it: no spaces, dots or hyphens (12-3456789).
    const registration = taxId.replace(/[\s.-]/g, '');
    return {
      Rfc: FOREIGN_RFC,
      Nombre: nombre,
      DomicilioFiscalReceptor: lugar,
      ResidenciaFiscal: alpha3(country) ?? country,
      ...(registration ? { NumRegIdTrib: registration } : {}),
      RegimenFiscalReceptor: '616',
      UsoCFDI: 'S01',
    };
  }
  if (!taxId || taxId === PUBLIC_RFC) {
    return {
      Rfc: PUBLIC_RFC,
      Nombre: nombre,
      DomicilioFiscalReceptor: lugar,
      RegimenFiscalReceptor: '616',
      UsoCFDI: 'S01',
    };
  }
  return {
    Rfc: taxId,
    Nombre: nombre,
    DomicilioFiscalReceptor: fiscal.cp_fiscal ?? lugar,
    RegimenFiscalReceptor: fiscal.regimen_fiscal ?? '601',
    UsoCFDI: request.kind === 'E' ? 'G02' : (fiscal.uso_cfdi ?? 'G03'),
  };
}

/** One IVA rate of a credit note: its share of the note, before tax (`base`) and its tax. */
export interface CreditPart {
  rate: number;
  base: number;
  tax: number;
}

/**
 * A credit note's amount (tax included) over the invoice's IVA rates, in proportion to what each
 * rate's lines total, by largest remainder to the cent, so the parts add up to the note exactly.
 * Each part is then split into a base and its tax at that rate (the tax the base at the rate,
 * rounded, wherever a base of the part gives it); parts of nothing are left out. Both providers
 * declare these, one concept (and one transferred tax) per rate of the SAT's catalog.
 */
export function creditNoteParts(request: StampRequest): CreditPart[] {
  const { invoice, items } = request;
  const currency = invoice.moneda;
  const minor = (value: number) => toMinor(value, currency);
  const totals = new Map<number, number>();
  for (const item of items) {
    const total = minor(item.importe) - minor(item.descuento) + minor(item.impuesto);
    totals.set(item.tax_rate, (totals.get(item.tax_rate) ?? 0) + total);
  }
  if (totals.size === 0) totals.set(0.16, 1);
  // Higher rates first, the order the concepts read in; the totals' own spread splits the note
  // (ties of the remainders to the larger part, then the higher rate).
  const rates = [...totals.keys()].sort((a, b) => b - a);
  const weights = rates.map((r) => Math.max(totals.get(r)!, 0));
  const shares = spread(minor(request.monto!), weights, rates);
  return rates
    .map((r, i) => ({ rate: r, ...taxIncluded(shares[i]!, r) }))
    .filter((part) => part.base + part.tax > 0)
    .map((part) => ({
      rate: part.rate,
      base: fromMinor(part.base, currency),
      tax: fromMinor(part.tax, currency),
    }));
}

/**
 * A gross amount (minor units, tax included) as a base and its tax at `r`: the base whose tax,
 * rounded, makes up the gross exactly; when no base does (a step of two cents in the tax), the
 * nearest base and the rest as tax, within the SAT's rounding tolerance for `Importe`.
 */
function taxIncluded(gross: number, r: number): { base: number; tax: number } {
  const nearest = Math.round(gross / (1 + r));
  for (const base of [nearest, nearest - 1, nearest + 1]) {
    const tax = Math.round(base * r);
    if (base > 0 && base + tax === gross) return { base, tax };
  }
  return { base: nearest, tax: gross - nearest };
}

/** A stamp to put in the XML's complement. */
export interface Stamp {
  uuid: string;
  fechaTimbrado: string;
  rfcProvCertif: string;
  /** Marks a stamp that has no fiscal validity (the built-in sandbox). */
  sandbox: boolean;
}

/**
 * A CFDI 4.0-shaped document for an invoice (`I`) or a credit note (`E`), with its stamp. The
 * amounts are the invoice's own (computed by `computeTotals`), grouped by tax rate; a credit
 * note's are its amount over the invoice's rates ({@link creditNoteParts}). The sandbox's carries
 * the SAT's test certificate number and placeholders for the seal and certificate, which say so.
 */
export function buildCfdi(request: StampRequest, stamp: Stamp): string {
  const { invoice, items, kind } = request;
  const currency = invoice.moneda;
  const money = (value: number) => amount(value, currency);
  const [serie, folio] = request.numero.split('-') as [string, string];
  const emisor = emisorOf(request);
  const parts = kind === 'E' ? creditNoteParts(request) : [];
  const doc = create({ version: '1.0', encoding: 'UTF-8' });
  const comprobante = doc.ele('http://www.sat.gob.mx/cfd/4', 'cfdi:Comprobante', {
    'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
    'xmlns:tfd': 'http://www.sat.gob.mx/TimbreFiscalDigital',
    'xsi:schemaLocation':
      'http://www.sat.gob.mx/cfd/4 http://www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd http://www.sat.gob.mx/TimbreFiscalDigital http://www.sat.gob.mx/sitio_internet/cfd/TimbreFiscalDigital/TimbreFiscalDigitalv11.xsd',
    Version: '4.0',
    Serie: serie,
    Folio: folio,
    Fecha: cfdiDateTime(request.now),
    ...(stamp.sandbox ? { Sello: SANDBOX_SEAL } : {}),
    FormaPago: formaPagoOf(request),
    ...(stamp.sandbox ? { NoCertificado: SANDBOX_CERTIFICATE, Certificado: SANDBOX_CERTIFICATE_PEM } : {}),
    SubTotal: kind === 'E' ? money(parts.reduce((sum, part) => sum + part.base, 0)) : money(invoice.subtotal),
    ...(kind === 'I' && invoice.descuento > 0 ? { Descuento: money(invoice.descuento) } : {}),
    Moneda: currency,
    // Required by CFDI 4.0 for any currency but MXN (and XXX).
    ...(request.tipoCambio === null ? {} : { TipoCambio: String(request.tipoCambio) }),
    Total: money(kind === 'E' ? request.monto! : invoice.total),
    TipoDeComprobante: kind,
    Exportacion: '01',
    MetodoPago: kind === 'E' ? 'PUE' : (invoice.metodo_pago ?? 'PUE'),
    LugarExpedicion: emisor.LugarExpedicion,
  });
  if (kind === 'E' && invoice.folio_fiscal) {
    comprobante
      .ele('cfdi:CfdiRelacionados', { TipoRelacion: '01' })
      .ele('cfdi:CfdiRelacionado', { UUID: invoice.folio_fiscal });
  }
  comprobante.ele(
    'cfdi:Emisor',
    xmlAttributes({
      Rfc: emisor.Rfc,
      Nombre: emisor.Nombre,
      RegimenFiscal: emisor.RegimenFiscal,
    }),
  );
  comprobante.ele('cfdi:Receptor', xmlAttributes(receptorOf(request)));
  const conceptos = comprobante.ele('cfdi:Conceptos');
  const byRate = new Map<string, { base: number; tax: number }>();
  const concept = (
    attributes: Record<string, string>,
    traslado: { base: number; rate: number; tax: number },
  ) => {
    const r = rate(traslado.rate);
    // A line with nothing left to tax (a 100 % discount, a free line) is "no objeto de impuesto":
    // Anexo 20 wants a Traslado's Base above 0, so a Base="0.00" is refused by every stamping service.
    if (!hasTaxBase(traslado.base, currency)) {
      conceptos.ele('cfdi:Concepto', xmlAttributes({ ...attributes, ObjetoImp: '01' }));
      return;
    }
    conceptos
      .ele('cfdi:Concepto', xmlAttributes(attributes))
      .ele('cfdi:Impuestos')
      .ele('cfdi:Traslados')
      .ele('cfdi:Traslado', {
        Base: money(traslado.base),
        Impuesto: '002',
        TipoFactor: 'Tasa',
        TasaOCuota: r,
        Importe: money(traslado.tax),
      });
    const group = byRate.get(r) ?? { base: 0, tax: 0 };
    byRate.set(r, { base: group.base + traslado.base, tax: group.tax + traslado.tax });
  };
  if (kind === 'E') {
    for (const part of parts) {
      concept(
        {
          ClaveProdServ: '84111506',
          Cantidad: '1',
          ClaveUnidad: 'ACT',
          Descripcion: creditDescription(invoice.numero, part, parts.length),
          ValorUnitario: money(part.base),
          Importe: money(part.base),
          ObjetoImp: '02',
        },
        part,
      );
    }
  } else {
    for (const item of items) {
      concept(
        {
          ClaveProdServ: item.clave_sat ?? '01010101',
          ...(item.sku ? { NoIdentificacion: item.sku } : {}),
          Cantidad: cfdiQuantity(item.cantidad),
          ClaveUnidad: item.clave_unidad_sat ?? 'H87',
          ...(item.unidad ? { Unidad: item.unidad } : {}),
          Descripcion: item.descripcion,
          ValorUnitario: money(item.cantidad ? item.importe / item.cantidad : 0),
          Importe: money(item.importe),
          ...(item.descuento > 0 ? { Descuento: money(item.descuento) } : {}),
          ObjetoImp: '02',
        },
        { base: item.importe - item.descuento, rate: item.tax_rate, tax: item.impuesto },
      );
    }
  }
  // Sums in minor units: no float noise in the totals.
  const sum = (values: number[]) =>
    fromMinor(
      values.reduce((total, value) => total + toMinor(value, currency), 0),
      currency,
    );
  const totalTax = sum([...byRate.values()].map((group) => group.tax));
  // No line with a tax base: no Impuestos at all (it would need a Traslado).
  const traslados =
    byRate.size > 0
      ? comprobante
          .ele('cfdi:Impuestos', { TotalImpuestosTrasladados: money(totalTax) })
          .ele('cfdi:Traslados')
      : undefined;
  for (const [r, group] of byRate) {
    traslados?.ele('cfdi:Traslado', {
      Base: money(group.base),
      Impuesto: '002',
      TipoFactor: 'Tasa',
      TasaOCuota: r,
      Importe: money(group.tax),
    });
  }
  comprobante.ele('cfdi:Complemento').ele('tfd:TimbreFiscalDigital', {
    Version: '1.1',
    UUID: stamp.uuid,
    FechaTimbrado: stamp.fechaTimbrado,
    RfcProvCertif: stamp.rfcProvCertif,
    ...(stamp.sandbox ? { Leyenda: 'SANDBOX: timbre de prueba sin validez fiscal' } : {}),
    NoCertificadoSAT: '00000000000000000000',
    SelloCFD: stamp.sandbox ? SANDBOX_SEAL : '',
    SelloSAT: stamp.sandbox ? SANDBOX_SEAL : '',
  });
  return doc.end({ prettyPrint: true });
}

/** Characters XML 1.0 has no place for (C0 controls but tab and newlines, U+FFFE/FFFF, lone surrogates). */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * Attribute values from the merchant and the client (names, descriptions, units) as the XML can
 * hold them: characters XML has no place for left out, and every `&` escaped. xmlbuilder2 leaves
 * an `&` that starts something shaped like a reference alone (`AT&T;`, `&nbsp;`), which made the
 * document ill-formed, or read back other text than the invoice's; given `&amp;` it writes it as is.
 */
function xmlAttributes<T extends Record<string, string | undefined>>(attributes: T): T {
  const safe: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(attributes)) {
    safe[name] = value?.replace(NOT_XML, '').replaceAll('&', '&amp;');
  }
  return safe as T;
}

/** The sandbox's seal: base64, as a real one, of words saying it is none. */
const SANDBOX_SEAL = Buffer.from('SANDBOX: sello de prueba sin validez fiscal').toString('base64');
/** The sandbox's certificate: base64 of words saying it is a placeholder for the SAT's test one. */
const SANDBOX_CERTIFICATE_PEM = Buffer.from(
  `SANDBOX: certificado de prueba sin validez fiscal (SAT ${SANDBOX_CERTIFICATE})`,
).toString('base64');

/** What a credit note's concept says: the invoice, and the rate when the note has several. */
export function creditDescription(numero: string | null, part: CreditPart, count: number): string {
  const text = `Nota de crédito de ${numero ?? ''}`.trim();
  return count > 1 ? `${text} (IVA ${Math.round(part.rate * 100)} %)` : text;
}
