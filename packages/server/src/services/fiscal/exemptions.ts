import { EU_EXEMPTION_REASONS, SPAIN_EXEMPTION_REASONS } from '@svc/core';
import { invalidRequest } from '../../errors.js';

/** The member states of the European Union (ISO 3166-1 alpha-2; Greece as `GR`). */
const EU = new Set(
  'AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' '),
);

/**
 * The `exemption_reason` of a line taxed at 0 that names none, derived from the client as the
 * spec asks ("when absent it is derived from the client"), or null when the client does not
 * tell it. Only a sale across a border does:
 * - from Spain, Spain's causes: to a business elsewhere in the EU `E5` (exempt by article 25 of
 *   the VAT law, intra-Community supply), outside the EU `E2` (article 21, export);
 * - from another EU country, the European classification: `VATEX-EU-IC` and `VATEX-EU-G`.
 * A domestic sale, a client without a fiscal country and a business outside the EU get none:
 * which cause applies there depends on what is sold, which the service cannot know.
 */
export function derivedExemption(orgCountry: string, clientCountry: string | null): string | null {
  if (!clientCountry || clientCountry === orgCountry || !EU.has(orgCountry)) return null;
  const intraEu = EU.has(clientCountry);
  if (orgCountry === 'ES') return intraEu ? 'E5' : 'E2';
  return intraEu ? 'VATEX-EU-IC' : 'VATEX-EU-G';
}

/**
 * 400 `invalid_request` naming `field` unless `reason` is one of the organization's country's list
 * (the spec gives two): Spain's causes in Spain, the European classification elsewhere in the EU.
 * Outside the EU neither list is a country's own, and either is taken.
 */
export function checkExemptionReason(
  orgCountry: string,
  reason: string | null | undefined,
  field: string,
): void {
  if (reason == null || !EU.has(orgCountry)) return;
  const [allowed, name]: [readonly string[], string] =
    orgCountry === 'ES'
      ? [SPAIN_EXEMPTION_REASONS, "Spain's causes"]
      : [EU_EXEMPTION_REASONS, 'the European classification'];
  if (allowed.includes(reason)) return;
  throw invalidRequest(
    `${field}: an organization in ${orgCountry} takes ${name} (${allowed.join(', ')}), not ${reason}`,
  );
}
