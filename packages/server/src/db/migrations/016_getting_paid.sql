-- Getting paid (design.md sections 12 and 13): payment plans and payments on quotes, promises to
-- pay, tasks and workflows.

-- plan_pagos null is cash (`contado`), the default; pagado is the sum of the quote's payments,
-- kept on the row so that a payment, under the row's lock, sees what was paid before it.
ALTER TABLE quotes ADD COLUMN plan_pagos jsonb;
ALTER TABLE quotes ADD COLUMN pagado numeric NOT NULL DEFAULT 0;
-- When the quote was approved, whoever approved it (the seller, the client's page, a deposit):
-- collections date an approved quote's receivable from it.
ALTER TABLE quotes ADD COLUMN approved_at timestamptz;
UPDATE quotes SET approved_at = updated_at WHERE status = 'approved';

CREATE FUNCTION stamp_quote_approval() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.approved_at := now();
  RETURN NEW;
END
$$;

CREATE TRIGGER quotes_approved_at BEFORE UPDATE OF status ON quotes
  FOR EACH ROW WHEN (NEW.status = 'approved' AND OLD.status IS DISTINCT FROM 'approved')
  EXECUTE FUNCTION stamp_quote_approval();

-- The quotes part of GET /cobranza (approved quotes with a balance) reads through quotes_status
-- (status, org_id, mode, seq): no index of its own beginning with (org_id, mode) (see migration 008).

CREATE TABLE quote_payments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigserial UNIQUE,
  quote_id uuid NOT NULL REFERENCES quotes (id) ON DELETE CASCADE,
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  tipo text NOT NULL CHECK (tipo IN ('anticipo', 'cuota', 'saldo')),
  numero_cuota integer,
  monto numeric NOT NULL CHECK (monto > 0),
  fecha date NOT NULL,
  payment_method text,
  referencia text,
  actor text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX quote_payments_quote ON quote_payments (quote_id, seq);

CREATE TABLE payment_promises (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigserial UNIQUE,
  quote_id uuid NOT NULL REFERENCES quotes (id) ON DELETE CASCADE,
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  fecha_promesa date NOT NULL,
  monto numeric NOT NULL CHECK (monto > 0),
  -- Paid towards it: payments registered since the promise, dated by its date.
  abonado numeric NOT NULL DEFAULT 0,
  estado text NOT NULL CHECK (estado IN ('pending', 'kept', 'broken')) DEFAULT 'pending',
  actor text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  decided_at timestamptz
);
CREATE INDEX payment_promises_quote ON payment_promises (quote_id, seq);
-- The scheduled job's search: pending promises by date.
CREATE INDEX payment_promises_due ON payment_promises (fecha_promesa) WHERE estado = 'pending';

CREATE TABLE tasks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigserial UNIQUE,
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  titulo text NOT NULL,
  due_date date,
  done boolean NOT NULL DEFAULT false,
  cotizacion_id uuid,
  factura_id uuid,
  notas text,
  actor text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE INDEX tasks_list ON tasks (org_id, mode, seq DESC);

-- Workflows are configuration of the organization (as the catalog is), the same in both modes.
CREATE TABLE workflows (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  nombre text NOT NULL,
  objeto text NOT NULL CHECK (objeto IN ('cotizacion', 'factura')),
  pasos jsonb NOT NULL,
  -- Statuses of the records it runs on; null: any.
  estados text[],
  activo boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, nombre)
);

-- GET /cobranza is a report over the whole receivable book, read far more often than the book
-- changes. Each change to it bumps its organization's and mode's version, whoever makes it (a
-- payment, an approval from the client's page, a promise, a client's new name or terms), so a
-- process can serve the report it computed at that version again from memory, after one primary
-- key read; it recomputes only when the version moved.
CREATE TABLE receivables_versions (
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  version bigint NOT NULL,
  PRIMARY KEY (org_id, mode)
);

CREATE FUNCTION bump_receivables_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed record;
BEGIN
  IF TG_OP = 'DELETE' THEN changed := OLD; ELSE changed := NEW; END IF;
  INSERT INTO receivables_versions (org_id, mode, version) VALUES (changed.org_id, changed.mode, 1)
  ON CONFLICT (org_id, mode) DO UPDATE SET version = receivables_versions.version + 1;
  RETURN NULL;
END
$$;

-- Quotes are receivable while approved: only updates into, within or out of that state count
-- (an insert is never approved), so creating and sending quotes pay nothing for this.
CREATE TRIGGER quotes_receivables AFTER UPDATE ON quotes
  FOR EACH ROW WHEN (NEW.status = 'approved' OR OLD.status = 'approved')
  EXECUTE FUNCTION bump_receivables_version();
CREATE TRIGGER quotes_receivables_delete AFTER DELETE ON quotes
  FOR EACH ROW WHEN (OLD.status = 'approved')
  EXECUTE FUNCTION bump_receivables_version();
CREATE TRIGGER promises_receivables AFTER INSERT OR UPDATE OR DELETE ON payment_promises
  FOR EACH ROW EXECUTE FUNCTION bump_receivables_version();
CREATE TRIGGER clients_receivables AFTER UPDATE OF empresa, terminos ON clients
  FOR EACH ROW WHEN (NEW.empresa IS DISTINCT FROM OLD.empresa OR NEW.terminos IS DISTINCT FROM OLD.terminos)
  EXECUTE FUNCTION bump_receivables_version();
