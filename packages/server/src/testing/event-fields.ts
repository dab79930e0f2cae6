/** The spec's "Shape of data": the fields of the quote family's events (webhook deliveries). */
export const QUOTE_EVENT_FIELDS = [
  'id',
  'folio',
  'status',
  'moneda',
  'total',
  'cliente',
  'cliente_id',
  'link_publico',
];

/** The standalone invoice family's fields; `GET /events` leaves out `link_publico`. */
export const INVOICE_EVENT_FIELDS = [
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
];
