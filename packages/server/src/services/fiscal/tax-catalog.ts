import { invalidRequest } from '../../errors.js';
import { QUANTITY_DECIMALS } from './cfdi.js';

/**
 * The tax catalog lines are validated against (the spec: `tax_rate` "validated against the tax
 * catalog"), for the countries whose fiscal documents admit only listed rates: Mexico's IVA as the
 * SAT's `c_TasaOCuota` lists it for a transferred tax, 0 %, 8 % (the border regions) and 16 %. A
 * CFDI declaring any other rate is refused by every stamping service, so such a line is refused
 * when it is written, not when its invoice is finalized. Elsewhere any rate from 0 to 1 is taken:
 * rates there depend on the region and what is sold (Spain's Canary Islands, US sales taxes).
 * The catalog is part of the service, so it is never unavailable (`tax_catalog_unavailable`).
 */
const CATALOGS: Readonly<Record<string, readonly number[]>> = { MX: [0, 0.08, 0.16] };

/** 400 `invalid_request` naming `field` when `rate` is not in `country`'s catalog. */
export function checkTaxRate(country: string, rate: number | null | undefined, field: string): void {
  const catalog = CATALOGS[country];
  if (rate === null || rate === undefined || !catalog || catalog.includes(rate)) return;
  throw invalidRequest(
    `${field}: must be a rate of the ${country} tax catalog (${catalog.join(', ')}), not ${rate}`,
  );
}

/**
 * 400 `invalid_request` naming `field` when a quantity of a Mexican document has more decimals
 * than a CFDI's `Cantidad` takes (six): its line is refused when it is written (a quote's too,
 * which would become such an invoice), not rounded when it is stamped.
 */
export function checkQuantity(country: string, cantidad: number, field: string): void {
  if (country !== 'MX' || Number(cantidad.toFixed(QUANTITY_DECIMALS)) === cantidad) return;
  throw invalidRequest(
    `${field}: at most ${QUANTITY_DECIMALS} decimals in Mexico, as an invoice (CFDI) takes, not ${cantidad}`,
  );
}

/**
 * 400 `invalid_request` naming the field when a Mexican line's SAT keys are not of the catalogs'
 * form: `clave_sat` 8 digits (`c_ClaveProdServ`), `clave_unidad_sat` 1 to 5 letters or digits
 * (`c_ClaveUnidad`, like H87). Outside Mexico the spec has them ignored, whatever they are.
 */
export function checkSatKeys(
  country: string,
  line: { clave_sat?: string | undefined; clave_unidad_sat?: string | undefined },
  field: (name: string) => string,
): void {
  if (country !== 'MX') return;
  if (line.clave_sat !== undefined && !/^\d{8}$/.test(line.clave_sat)) {
    throw invalidRequest(`${field('clave_sat')}: must be 8 digits`);
  }
  if (line.clave_unidad_sat !== undefined && !/^[A-Za-z0-9]{1,5}$/.test(line.clave_unidad_sat)) {
    throw invalidRequest(`${field('clave_unidad_sat')}: must be 1 to 5 letters or digits, like H87`);
  }
}
