-- Listen sessions: a developer without a public URL collects the organization's test events.
CREATE TABLE listen_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  -- Events after this position in the history belong to the session.
  from_seq bigint NOT NULL,
  closed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
