import { clienteSchema, validate } from '@svc/core';
import { assert } from 'chai';
import { format, messagesFor } from '../internal/i18n/index.js';
import type { View } from '../internal/view.js';
import { type QuoteClient, validateClient } from './client-fields.js';

const view: View = {
  t: messagesFor('en'),
  locale: 'en',
  money: String,
  number: String,
  say: (template, values) => format('en', template, values),
};

const SAMPLES: QuoteClient[] = [
  { empresa: 'Acme' },
  { empresa: '' },
  { empresa: 'Acme', email: 'ana@acme.example' },
  { empresa: 'Acme', email: 'ana@acme' },
  { empresa: 'Acme', email: 'ana acme@x.example' },
  { empresa: 'Acme', email: 'a@b.co' },
  { empresa: 'Acme', telefono: '+52 55 1234 5678' },
  { empresa: 'Acme', telefono: '55 1234 5678' },
  { empresa: 'Acme', telefono: '+1 (212) 555-0100' },
  { empresa: 'Acme', fiscal: { country: 'MX', tax_id: 'AAA010101AAA' } },
  { empresa: 'Acme', fiscal: { country: 'XX', tax_id: 'AAA010101AAA' } },
  { empresa: 'Acme', fiscal: { country: 'ES', tax_id: '' } },
  {
    empresa: 'Acme',
    fiscal: {
      country: 'MX',
      tax_id: 'AAA010101AAA',
      regimen_fiscal: '601',
      uso_cfdi: 'G03',
      cp_fiscal: '06600',
    },
  },
  { empresa: 'Acme', fiscal: { country: 'MX', tax_id: 'AAA010101AAA', regimen_fiscal: '60' } },
  { empresa: 'Acme', fiscal: { country: 'MX', tax_id: 'AAA010101AAA', uso_cfdi: 'G0' } },
  { empresa: 'Acme', fiscal: { country: 'MX', tax_id: 'AAA010101AAA', cp_fiscal: '0660' } },
];

describe('client validation', () => {
  it('accepts and refuses exactly what @svc/core’s clienteSchema does', () => {
    for (const client of SAMPLES) {
      const server = validate(clienteSchema, client).ok;
      const widget = Object.keys(validateClient(view, client, [])).length === 0;
      assert.equal(widget, server, JSON.stringify(client));
    }
  });

  it('requires what the merchant requires, in the form’s language', () => {
    const errors = validateClient(view, { empresa: 'Acme' }, ['email', 'telefono']);
    const said = Object.fromEntries(Object.entries(errors).map(([name, text]) => [name, text(view)]));
    assert.deepEqual(said, { email: 'This is required.', telefono: 'This is required.' });
  });
});
