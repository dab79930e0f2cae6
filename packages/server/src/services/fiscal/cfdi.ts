import { fromMinor, toMinor } from '@svc/core';
import { create } from 'xmlbuilder2';
import type { StampRequest } from './provider.js';

/** The SAT's generic RFC for the public at large: a receiver without a tax id. */
export const PUBLIC_RFC = 'XAXX010101000';

const amount = (value: number, currency: string) => fromMinor(toMinor(value, currency), currency).toFixed(2);
const rate = (value: number) => value.toFixed(6);

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

/** The receptor from the client's fiscal data (RFC, régimen, uso CFDI, postal code). */
export function receptorOf(request: StampRequest) {
  const fiscal = request.client?.fiscal ?? {};
  const rfc = (fiscal.tax_id ?? request.client?.rfc ?? PUBLIC_RFC).toUpperCase();
  return {
    Rfc: rfc,
    Nombre: (fiscal.legal_name ?? request.invoice.cliente_nombre).toUpperCase(),
    DomicilioFiscalReceptor: fiscal.cp_fiscal ?? emisorOf(request).LugarExpedicion,
    RegimenFiscalReceptor: fiscal.regimen_fiscal ?? (rfc === PUBLIC_RFC ? '616' : '601'),
    UsoCFDI: request.kind === 'E' ? 'G02' : (fiscal.uso_cfdi ?? (rfc === PUBLIC_RFC ? 'S01' : 'G03')),
  };
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
 * amounts are the invoice's own (computed by `computeTotals`), grouped by tax rate.
 */
export function buildCfdi(request: StampRequest, stamp: Stamp): string {
  const { invoice, items, kind } = request;
  const currency = invoice.moneda;
  const money = (value: number) => amount(value, currency);
  const [serie, folio] = request.numero.split('-') as [string, string];
  const fecha = request.now.toISOString().slice(0, 19);
  const emisor = emisorOf(request);
  const doc = create({ version: '1.0', encoding: 'UTF-8' });
  const comprobante = doc.ele('http://www.sat.gob.mx/cfd/4', 'cfdi:Comprobante', {
    'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
    'xmlns:tfd': 'http://www.sat.gob.mx/TimbreFiscalDigital',
    'xsi:schemaLocation':
      'http://www.sat.gob.mx/cfd/4 http://www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd http://www.sat.gob.mx/TimbreFiscalDigital http://www.sat.gob.mx/sitio_internet/cfd/TimbreFiscalDigital/TimbreFiscalDigitalv11.xsd',
    Version: '4.0',
    Serie: serie,
    Folio: folio,
    Fecha: fecha,
    FormaPago: kind === 'E' ? '15' : invoice.metodo_pago === 'PUE' ? '03' : '99',
    SubTotal: kind === 'E' ? money(creditBase(request)) : money(invoice.subtotal),
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
  comprobante.ele('cfdi:Emisor', {
    Rfc: emisor.Rfc,
    Nombre: emisor.Nombre,
    RegimenFiscal: emisor.RegimenFiscal,
  });
  comprobante.ele('cfdi:Receptor', receptorOf(request));
  const conceptos = comprobante.ele('cfdi:Conceptos');
  const byRate = new Map<string, { base: number; tax: number }>();
  if (kind === 'E') {
    const base = creditBase(request);
    const tax = request.monto! - base;
    const concepto = conceptos.ele('cfdi:Concepto', {
      ClaveProdServ: '84111506',
      Cantidad: '1',
      ClaveUnidad: 'ACT',
      Descripcion: `Nota de crédito de ${invoice.numero}`,
      ValorUnitario: money(base),
      Importe: money(base),
      ObjetoImp: '02',
    });
    const r = rate(
      invoice.subtotal > 0 ? invoice.impuestos / (invoice.subtotal - invoice.descuento || 1) : 0,
    );
    concepto
      .ele('cfdi:Impuestos')
      .ele('cfdi:Traslados')
      .ele('cfdi:Traslado', {
        Base: money(base),
        Impuesto: '002',
        TipoFactor: 'Tasa',
        TasaOCuota: r,
        Importe: money(tax),
      });
    byRate.set(r, { base, tax });
  } else {
    for (const item of items) {
      const base = item.importe - item.descuento;
      const concepto = conceptos.ele('cfdi:Concepto', {
        ClaveProdServ: item.clave_sat ?? '01010101',
        ...(item.sku ? { NoIdentificacion: item.sku } : {}),
        Cantidad: String(item.cantidad),
        ClaveUnidad: item.clave_unidad_sat ?? 'H87',
        ...(item.unidad ? { Unidad: item.unidad } : {}),
        Descripcion: item.descripcion,
        ValorUnitario: money(item.cantidad ? item.importe / item.cantidad : 0),
        Importe: money(item.importe),
        ...(item.descuento > 0 ? { Descuento: money(item.descuento) } : {}),
        ObjetoImp: '02',
      });
      const r = rate(item.tax_rate);
      concepto
        .ele('cfdi:Impuestos')
        .ele('cfdi:Traslados')
        .ele('cfdi:Traslado', {
          Base: money(base),
          Impuesto: '002',
          TipoFactor: 'Tasa',
          TasaOCuota: r,
          Importe: money(item.impuesto),
        });
      const group = byRate.get(r) ?? { base: 0, tax: 0 };
      byRate.set(r, { base: group.base + base, tax: group.tax + item.impuesto });
    }
  }
  const totalTax = [...byRate.values()].reduce((sum, group) => sum + group.tax, 0);
  const traslados = comprobante
    .ele('cfdi:Impuestos', { TotalImpuestosTrasladados: money(totalTax) })
    .ele('cfdi:Traslados');
  for (const [r, group] of byRate) {
    traslados.ele('cfdi:Traslado', {
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
    SelloCFD: stamp.sandbox ? 'SANDBOX' : '',
    SelloSAT: stamp.sandbox ? 'SANDBOX' : '',
  });
  return doc.end({ prettyPrint: true });
}

/** A credit note's amount before tax, at the invoice's effective tax rate. */
function creditBase(request: StampRequest): number {
  const { invoice } = request;
  const taxed = invoice.subtotal - invoice.descuento;
  const effective = taxed > 0 ? invoice.impuestos / taxed : 0;
  return fromMinor(toMinor(request.monto! / (1 + effective), invoice.moneda), invoice.moneda);
}
