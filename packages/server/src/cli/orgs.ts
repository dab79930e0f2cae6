import { parseArgs } from 'node:util';
import { isCurrencyCode } from '@svc/core';
import * as v from 'valibot';
import { countryLang } from '../i18n/messages.js';
import { emailAddress } from '../schemas/requests.js';
import { createOrg } from '../services/orgs.js';

/** Standard VAT of the markets we serve, the default tax rate of a new organization (else 0). */
const VAT: Record<string, number> = {
  MX: 0.16,
  ES: 0.21,
  PT: 0.23,
  FR: 0.2,
  DE: 0.19,
  AR: 0.21,
  CO: 0.19,
  CL: 0.19,
  PE: 0.18,
  BR: 0,
};

import { withDatabase } from './context.js';

/** `svc-server orgs create --name N --plan P [--json]` */
export async function orgsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'create') {
    process.stderr.write(
      'usage: svc-server orgs create --name NAME --plan free|starter|professional|scale|developer [--country XX] [--currency XXX] [--notify-email ADDRESS] [--json]\n',
    );
    return 1;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      country: { type: 'string' },
      currency: { type: 'string' },
      'notify-email': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!values.name || !values.plan) throw new Error('--name and --plan are required');
  const country = (values.country ?? 'MX').toUpperCase();
  const currency = (values.currency ?? 'MXN').toUpperCase();
  if (!isCountryCode(country)) throw new Error('--country must be an ISO 3166-1 alpha-2 code like MX or ES');
  if (!isCurrencyCode(currency)) throw new Error('--currency must be an ISO 4217 code like MXN or EUR');
  const notifyEmail = values['notify-email'];
  if (notifyEmail !== undefined && !v.is(emailAddress, notifyEmail))
    throw new Error('--notify-email must be an e-mail address');
  const org = await withDatabase((db) =>
    createOrg(db, {
      nombre: values.name!,
      plan: values.plan!,
      country,
      currency,
      currencies: [currency],
      locale: countryLang(country) ?? 'en',
      default_tax_rate: VAT[country] ?? 0,
      email_avisos: notifyEmail ?? null,
    }),
  );
  const out = {
    id: org.id,
    nombre: org.nombre,
    plan: org.plan,
    country: org.country,
    currency: org.currency,
  };
  process.stdout.write(
    values.json
      ? `${JSON.stringify(out)}\n`
      : `Created organization ${org.nombre} (${org.id}), plan ${org.plan}\n`,
  );
  return 0;
}

const REGIONS = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/** A country of ISO 3166-1 alpha-2 (`MX`), not a code that names none (`XX`) or no country (`ZZ`, `EU`). */
function isCountryCode(code: string): boolean {
  return (
    /^[A-Z]{2}$/.test(code) &&
    !['ZZ', 'EU', 'UN', 'EZ', 'QO'].includes(code) &&
    REGIONS.of(code) !== undefined
  );
}
