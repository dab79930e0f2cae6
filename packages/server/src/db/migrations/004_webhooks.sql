-- Webhook endpoints, the delivery jobs fanned out from events in the same transaction, and the
-- log of every attempt.

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  -- The key that created it: only that key sees and deletes it; revoking it deactivates it.
  key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  url text NOT NULL,
  eventos text[] NOT NULL DEFAULT '{}',
  -- Signing secrets must be usable, so they are stored; they never appear in events or logs.
  secret text NOT NULL,
  previous_secret text,
  previous_secret_expires_at timestamptz,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  disabled_reason text,
  failure_streak integer NOT NULL DEFAULT 0,
  warned_at timestamptz,
  api_version text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_org ON webhook_endpoints (org_id, mode, status);

CREATE TABLE webhook_jobs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivering', 'succeeded', 'failed', 'cancelled')),
  attempts integer NOT NULL DEFAULT 0,
  next_at timestamptz NOT NULL DEFAULT now(),
  -- A claim by a worker; an expired lease means the worker died and the attempt is retried.
  lease_until timestamptz,
  manual boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX webhook_jobs_due ON webhook_jobs (next_at) WHERE state IN ('pending', 'delivering');
CREATE INDEX webhook_jobs_endpoint ON webhook_jobs (endpoint_id, created_at DESC);

CREATE TABLE webhook_attempts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  job_id uuid NOT NULL REFERENCES webhook_jobs (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  status_code integer,
  ok boolean NOT NULL,
  duration_ms integer NOT NULL,
  response_excerpt text,
  error text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_attempts_job ON webhook_attempts (job_id, attempt);
