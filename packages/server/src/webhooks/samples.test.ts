import { describe, expect, it } from 'vitest';
import type { Org } from '../services/orgs.js';
import { sampleEventData, sampleLink } from './samples.js';

const org = { country: 'MX', currency: 'MXN' } as Org;
const keys = (type: string) => {
  const data = sampleEventData(type, org);
  const link = sampleLink(data, 'https://svc.example');
  return Object.keys(link ? { ...data, link_publico: link } : data).sort();
};

describe('sampleEventData', () => {
  it('gives each family the spec’s fields', () => {
    const quote = ['cliente', 'cliente_id', 'folio', 'id', 'link_publico', 'moneda', 'status', 'total'];
    expect(keys('quote.created')).toEqual(quote.sort());
    expect(keys('payment.partial')).toEqual(
      [...quote, 'tipo', 'monto', 'numero_cuota', 'saldo_pendiente', 'payment_method'].sort(),
    );
    expect(keys('invoice.overdue')).toEqual(
      [
        'id',
        'object',
        'numero',
        'folio_fiscal',
        'estado',
        'estado_fiscal',
        'pais',
        'tipo',
        'moneda',
        'total',
        'pagado',
        'saldo',
        'vence',
        'cliente',
        'cotizacion_id',
        'link_publico',
      ].sort(),
    );
    expect(keys('client.deleted')).toEqual(['empresa', 'id', 'object']);
    expect(keys('product.created')).toEqual([
      'activo',
      'id',
      'nombre',
      'object',
      'precio_lista',
      'sku',
      'unidad',
    ]);
    expect(keys('task.completed')).toEqual(['cotizacion_id', 'done', 'due_date', 'id', 'object', 'titulo']);
    expect(keys('promise.kept')).toEqual([
      'cotizacion_id',
      'estado',
      'fecha_promesa',
      'id',
      'monto',
      'object',
    ]);
    expect(keys('ping')).toEqual(['mensaje']);
  });
});
