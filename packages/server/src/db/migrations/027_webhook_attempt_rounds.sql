-- A delivery requeued by "reactivate and retry" gets a fresh round of retries, but its attempt
-- numbers go on from where they stopped: `X-Service-Attempt` never repeats for one event (the
-- counter went back to 0, so a receiver saw attempt 1 twice). The round's retries are counted from
-- `attempt_base`, the attempts made before it.
ALTER TABLE webhook_jobs ADD COLUMN attempt_base integer NOT NULL DEFAULT 0;
