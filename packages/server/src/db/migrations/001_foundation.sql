-- Organizations, API keys, limits and idempotency: the ground every request stands on.

CREATE TABLE orgs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug text UNIQUE,
  nombre text NOT NULL,
  plan text NOT NULL CHECK (plan IN ('free', 'starter', 'professional', 'scale', 'developer')),
  country text NOT NULL DEFAULT 'MX',
  currency text NOT NULL DEFAULT 'MXN',
  currencies text[] NOT NULL DEFAULT '{MXN}',
  locale text NOT NULL DEFAULT 'es',
  default_tax_rate numeric NOT NULL DEFAULT 0.16,
  brand_color text,
  logo_url text,
  terminos text[] NOT NULL DEFAULT '{contado}',
  vigencia_dias integer NOT NULL DEFAULT 15,
  -- A quote whose discount is above this percentage waits for internal approval; null: never.
  approval_discount_pct numeric,
  -- Widget settings: custom_items, ai_draft, coupons, required_client_fields, terms text.
  widget jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('secret', 'publishable', 'restricted')),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  scope text NOT NULL CHECK (scope IN ('read', 'write')),
  -- Restricted keys: resource name to 'read' or 'write'.
  permissions jsonb,
  -- SHA-256 of the full key; the key itself is never stored.
  secret_hash text NOT NULL UNIQUE,
  display text NOT NULL,
  api_version text NOT NULL,
  allowed_origins text[] NOT NULL DEFAULT '{}',
  allowed_ips text[] NOT NULL DEFAULT '{}',
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_org ON api_keys (org_id);

-- Requests per fixed 60-second window per key, shared by every server process.
CREATE TABLE rate_counters (
  bucket text NOT NULL,
  window_start bigint NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (bucket, window_start)
);

-- Calls per calendar month (UTC) per organization, live keys only.
CREATE TABLE usage_counters (
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  period text NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (org_id, period)
);

CREATE TABLE idempotency_keys (
  key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  idempotency_key text NOT NULL,
  fingerprint text NOT NULL,
  state text NOT NULL CHECK (state IN ('in_progress', 'done')),
  locked_at timestamptz NOT NULL DEFAULT now(),
  response_status integer,
  response_body text,
  response_type text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (key_id, idempotency_key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
