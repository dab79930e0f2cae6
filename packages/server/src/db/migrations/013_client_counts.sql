-- How many clients each organization has in each mode, kept by triggers on every insert and
-- delete, whoever makes it (the API, a creation with a new client, the seed, a test-data reset).
-- The plan's client limit is checked on every creation that brings a new client, and GET
-- /clientes reports the total: counting the directory each time grew with it (~0.5 ms a count at
-- 2,000 clients, on every widget submission from a new visitor).
CREATE TABLE client_counts (
  org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  n integer NOT NULL CHECK (n >= 0),
  PRIMARY KEY (org_id, mode)
);

INSERT INTO client_counts (org_id, mode, n)
SELECT org_id, mode, count(*) FROM clients GROUP BY org_id, mode;

-- Statement triggers with transition tables: one update of the count per statement, however
-- many clients it inserts or deletes.
CREATE FUNCTION count_inserted_clients() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO client_counts (org_id, mode, n)
  SELECT org_id, mode, count(*) FROM inserted GROUP BY org_id, mode
  ON CONFLICT (org_id, mode) DO UPDATE SET n = client_counts.n + EXCLUDED.n;
  RETURN NULL;
END
$$;

CREATE FUNCTION count_deleted_clients() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE client_counts SET n = client_counts.n - gone.n
  FROM (SELECT org_id, mode, count(*) AS n FROM deleted GROUP BY org_id, mode) gone
  WHERE client_counts.org_id = gone.org_id AND client_counts.mode = gone.mode;
  RETURN NULL;
END
$$;

CREATE TRIGGER clients_count_inserted AFTER INSERT ON clients
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION count_inserted_clients();

CREATE TRIGGER clients_count_deleted AFTER DELETE ON clients
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION count_deleted_clients();
