-- Setup plans (design.md section 15): an account configuration proposed through the API (by an
-- assistant, typically) that a person reviews at a token URL and applies whole, or not at all.

CREATE TABLE setup_plans (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  token text NOT NULL UNIQUE,
  status text NOT NULL CHECK (status IN ('pending_review', 'applied', 'rejected', 'expired', 'conflict')),
  resumen text,
  -- The validated proposal, the summary of its changes, and the version (xmin) of every row it
  -- would change as read at proposal time: approving checks them again (`conflict` if edited).
  propuesta jsonb NOT NULL,
  cambios jsonb NOT NULL,
  versiones jsonb NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  decided_at timestamptz
);
CREATE INDEX setup_plans_org ON setup_plans (org_id, mode, created_at DESC);
