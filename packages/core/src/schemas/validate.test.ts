import { describe, expect, it } from 'vitest';
import { quoteRequestSchema } from './quote-request.js';
import { validate } from './validate.js';

const ok = {
  items: [{ descripcion: 'Laptop', cantidad: 1, precio_unitario: 100 }],
  cliente: { empresa: 'Acme' },
};

describe('validate', () => {
  it('returns the value of a valid request', () => {
    expect(validate(quoteRequestSchema, ok)).toMatchObject({ ok: true, value: ok });
  });

  it('names the field of the first problem', () => {
    const cases: [unknown, string][] = [
      [
        { ...ok, items: [{ ...ok.items[0], cantidad: 0 }] },
        'items[0].cantidad: must be a number greater than 0',
      ],
      [{ ...ok, extra: true }, 'extra: unknown field'],
      [{ ...ok, cliente: { empresa: 'A', fiscal: { country: 'MX' } } }, 'cliente.fiscal.tax_id: is required'],
      [
        { ...ok, items: [{ ...ok.items[0], tax_rate: 0.16, exemption_reason: 'E1' }] },
        'items[0].exemption_reason: only allowed on a line with tax_rate 0',
      ],
      [null, 'body:'],
    ];
    for (const [input, message] of cases) {
      const result = validate(quoteRequestSchema, input);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.message).toContain(message);
    }
  });
});
