-- Quotes, their lines, the event history (a transactional outbox) and the e-mail outbox.

CREATE TABLE folio_counters (
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  mode text NOT NULL,
  last integer NOT NULL,
  PRIMARY KEY (org_id, mode)
);

CREATE TABLE quotes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Insertion order: stable cursors under concurrent inserts.
  seq bigserial UNIQUE,
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  folio text NOT NULL,
  cliente_id uuid NOT NULL REFERENCES clients (id),
  cliente_nombre text NOT NULL,
  status text NOT NULL CHECK (status IN ('draft', 'sent', 'viewed', 'approved', 'rejected', 'expired', 'paid', 'invoiced')),
  moneda text NOT NULL,
  fiscal_currency text,
  iva_incluido boolean NOT NULL DEFAULT false,
  terminos_codigo text,
  vigencia_dias integer NOT NULL,
  vigencia date,
  notas text,
  descuento_solicitado jsonb,
  cupon text,
  coupon_id uuid REFERENCES coupons (id),
  subtotal numeric NOT NULL,
  descuento numeric NOT NULL,
  impuestos numeric NOT NULL,
  total numeric NOT NULL,
  token text NOT NULL UNIQUE,
  -- Language the draft follows; `language` is set from it when the quote is sent.
  draft_language text NOT NULL,
  language text,
  needs_approval boolean NOT NULL DEFAULT false,
  approval_status text CHECK (approval_status IN ('pending', 'approved', 'rejected')),
  motivo text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, mode, folio)
);
CREATE INDEX quotes_list ON quotes (org_id, mode, seq DESC);
CREATE INDEX quotes_client ON quotes (org_id, mode, cliente_id);
CREATE INDEX quotes_expiry ON quotes (vigencia) WHERE status IN ('sent', 'viewed');

CREATE TABLE quote_items (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  quote_id uuid NOT NULL REFERENCES quotes (id) ON DELETE CASCADE,
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
  impuesto numeric NOT NULL
);
CREATE INDEX quote_items_quote ON quote_items (quote_id, position);

CREATE TABLE events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigserial UNIQUE,
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  type text NOT NULL,
  object text NOT NULL,
  object_id uuid NOT NULL,
  data jsonb NOT NULL,
  actor text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_list ON events (org_id, mode, seq DESC);
CREATE INDEX events_object ON events (org_id, mode, object_id, seq DESC);

CREATE TABLE email_outbox (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  mode text NOT NULL,
  quote_id uuid,
  to_email text,
  subject text NOT NULL,
  body text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'sent', 'skipped', 'failed')),
  skipped_reason text,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);
CREATE INDEX email_outbox_org ON email_outbox (org_id, mode, created_at DESC);
