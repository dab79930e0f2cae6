import { invalidRequest } from '../../errors.js';

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
