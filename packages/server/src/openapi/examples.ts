/** A JSON Schema as @valibot/to-json-schema writes it (the parts an example needs). */
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  format?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minItems?: number;
}

/** Values that read as real data where a field's name says what it is. */
const BY_NAME: Record<string, unknown> = {
  descripcion: 'Laptop 14"',
  empresa: 'Ferretería La Tuerca',
  email: 'compras@example.com',
  cupon: 'BIENVENIDA10',
  moneda: 'MXN',
  base_currency: 'MXN',
  sku: 'SERV-1',
  nombre: 'Servicio de instalación',
  titulo: 'Llamar para confirmar',
  motivo: 'Ajuste de precio',
  prompt: '3 laptops y 10 horas de instalación',
  url: 'https://hooks.example.com/svc',
  country: 'MX',
  tax_id: 'FLT010101AB1',
  vence: '2026-12-31',
  fecha: '2026-12-15',
  fecha_promesa: '2026-12-20',
  due_date: '2026-12-20',
  precio_unitario: 1000,
  precio_lista: 1000,
  cantidad: 2,
  monto: 500,
};

/**
 * An example value generated from a request schema: every required field (and, at the top level,
 * the optional ones that say who and what), with plausible values, so that each operation of the
 * reference shows a body that passes its own validation in the common case.
 */
export function exampleOf(schema: Schema, name = '', depth = 0): unknown {
  if (name in BY_NAME && !schema.enum && !schema.anyOf) return BY_NAME[name];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const choice = schema.anyOf ?? schema.oneOf;
  if (choice?.length) return exampleOf(choice.find((s) => s.type !== 'null') ?? choice[0]!, name, depth);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      if (depth > 4) return {};
      const required = new Set(schema.required ?? []);
      const wanted = Object.keys(schema.properties ?? {}).filter(
        (key) => required.has(key) || (depth === 0 && ['cliente', 'cupon'].includes(key)),
      );
      return Object.fromEntries(
        wanted.map((key) => [key, exampleOf(schema.properties![key]!, key, depth + 1)]),
      );
    }
    case 'array':
      return schema.items ? [exampleOf(schema.items, name, depth + 1)] : [];
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'email') return 'compras@example.com';
      if (schema.format === 'uuid') return '3f0c6b4e-8d1a-4c2b-9e7f-1a2b3c4d5e6f';
      if (schema.format === 'date-time') return '2026-12-31T23:59:59Z';
      return name ? `${name}` : 'text';
    default:
      return null;
  }
}
