-- The catalog (products), coupons and the client directory. Each row belongs to one mode of one
-- organization: test and live data never mix.

CREATE TABLE products (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  sku text NOT NULL,
  nombre text NOT NULL,
  descripcion text,
  unidad text NOT NULL DEFAULT 'pieza',
  precio_lista numeric NOT NULL CHECK (precio_lista >= 0),
  moneda text NOT NULL,
  tax_rate numeric CHECK (tax_rate >= 0 AND tax_rate <= 1),
  costo numeric,
  aliases text[] NOT NULL DEFAULT '{}',
  clave_sat text,
  clave_unidad_sat text,
  activo boolean NOT NULL DEFAULT true,
  -- Decimal quantities make sense for this unit (hours, metres…).
  fraccionable boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, mode, sku)
);

CREATE TABLE coupons (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  code text NOT NULL,
  tipo text NOT NULL CHECK (tipo IN ('porcentaje', 'monto')),
  valor numeric NOT NULL CHECK (valor >= 0),
  moneda text,
  max_uses integer,
  uses integer NOT NULL DEFAULT 0,
  -- Uses the seed or the merchant started with; a test-data reset goes back to it.
  initial_uses integer NOT NULL DEFAULT 0,
  expires_at timestamptz,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, mode, code),
  CHECK (max_uses IS NULL OR uses <= max_uses)
);

CREATE TABLE clients (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  empresa text NOT NULL,
  contacto text,
  email text,
  telefono text,
  rfc text,
  fiscal jsonb,
  terminos text,
  country_code text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX clients_lookup_email ON clients (org_id, mode, lower(email));
CREATE INDEX clients_lookup_empresa ON clients (org_id, mode, lower(empresa));
