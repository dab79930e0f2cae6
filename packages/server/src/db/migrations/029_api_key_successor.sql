-- The key that replaced a rotated one: a key is rotated once (its grace then runs out), and a
-- rotated key makes no new webhook endpoints (they would outlive it with no key to manage them).
ALTER TABLE api_keys ADD COLUMN replaced_by uuid REFERENCES api_keys (id);
