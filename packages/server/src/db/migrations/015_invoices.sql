-- Invoices (design.md section 11): standalone or from a quote, their lines, payments and credit
-- notes, the per-organization and per-mode numbering of invoices (F-) and credit notes (NC-), and
-- the fiscal data an organization issues with.

ALTER TABLE orgs ADD COLUMN fiscal jsonb;

CREATE TABLE invoice_counters (
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  mode text NOT NULL,
  -- 'F' for invoices, 'NC' for credit notes.
  kind text NOT NULL,
  last integer NOT NULL,
  PRIMARY KEY (org_id, mode, kind)
);

CREATE TABLE invoices (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigserial,
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  -- Taken when the invoice is finalized: a draft has none, so a rejected stamping skips no number.
  numero text,
  token text NOT NULL UNIQUE,
  estado text NOT NULL CHECK (estado IN ('draft', 'open', 'paid', 'void', 'uncollectible')),
  estado_fiscal text NOT NULL CHECK (estado_fiscal IN ('not_applicable', 'pending', 'stamped', 'rejected', 'cancelled')),
  motivo_fiscal text,
  folio_fiscal text,
  cfdi_xml text,
  pais text NOT NULL,
  tipo text NOT NULL CHECK (tipo IN ('cfdi', 'commercial')),
  moneda text NOT NULL,
  iva_incluido boolean NOT NULL DEFAULT false,
  descuento_solicitado jsonb,
  subtotal numeric NOT NULL,
  descuento numeric NOT NULL,
  impuestos numeric NOT NULL,
  total numeric NOT NULL,
  pagado numeric NOT NULL DEFAULT 0,
  acreditado numeric NOT NULL DEFAULT 0,
  emitida date,
  vence date,
  dias_credito integer NOT NULL,
  metodo_pago text CHECK (metodo_pago IN ('PUE', 'PPD')),
  cliente_id uuid NOT NULL REFERENCES clients (id),
  cliente_nombre text NOT NULL,
  cotizacion_id uuid REFERENCES quotes (id) ON DELETE SET NULL,
  language text NOT NULL,
  notas text,
  overdue_at timestamptz,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, mode, numero)
);
-- The only index that begins with the organization and mode (see migration 008): the list's.
CREATE INDEX invoices_list ON invoices (org_id, mode, seq DESC);
CREATE INDEX invoices_client ON invoices (cliente_id, seq DESC);
CREATE INDEX invoices_quote ON invoices (cotizacion_id) WHERE cotizacion_id IS NOT NULL;
-- What is still to be collected, by client and due date (collections, overdue job).
CREATE INDEX invoices_receivable ON invoices (vence, cliente_id) WHERE estado IN ('open', 'uncollectible');

CREATE TABLE invoice_items (
  invoice_id uuid NOT NULL REFERENCES invoices (id) ON DELETE CASCADE,
  position integer NOT NULL,
  descripcion text NOT NULL,
  cantidad numeric NOT NULL,
  unidad text,
  precio_unitario numeric NOT NULL,
  precio_negociado numeric,
  costo_unitario numeric,
  producto_id uuid REFERENCES products (id),
  sku text,
  tax_rate numeric NOT NULL,
  exemption_reason text,
  clave_sat text,
  clave_unidad_sat text,
  importe numeric NOT NULL,
  descuento numeric NOT NULL,
  impuesto numeric NOT NULL,
  PRIMARY KEY (invoice_id, position)
);

CREATE TABLE invoice_payments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  invoice_id uuid NOT NULL REFERENCES invoices (id) ON DELETE CASCADE,
  monto numeric NOT NULL CHECK (monto > 0),
  fecha date NOT NULL,
  metodo text NOT NULL,
  referencia text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invoice_payments_invoice ON invoice_payments (invoice_id, created_at);

CREATE TABLE credit_notes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  invoice_id uuid NOT NULL REFERENCES invoices (id) ON DELETE CASCADE,
  numero text NOT NULL,
  monto numeric NOT NULL CHECK (monto > 0),
  motivo text NOT NULL,
  folio_fiscal text,
  cfdi_xml text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX credit_notes_invoice ON credit_notes (invoice_id, created_at);

-- The forced result of an organization's next sandbox stamping (POST /test_helpers/fiscal), used once.
CREATE TABLE fiscal_overrides (
  org_id uuid PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
  result text NOT NULL CHECK (result IN ('stamped', 'rejected', 'unavailable')),
  motivo text
);
