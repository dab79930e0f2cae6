-- An organization's client count (migration 013) was one row, and every creation that brings a
-- new client adds to it and holds its lock until that transaction commits: an invoice for a new
-- client holds it through the client's event, the invoice, its lines and COMMIT, so all of an
-- organization's such creations queued behind one another (16 ms a wait at 10 connections in the
-- invoice benchmark). The count is now kept in 16 stripes, chosen by the transaction's id:
-- concurrent transactions add to different rows (but for one chance in 16), and the count is their
-- sum.
-- A stripe may go below zero when a client counted in another is deleted; the sum may not.
ALTER TABLE client_counts ADD COLUMN stripe smallint NOT NULL DEFAULT 0;
ALTER TABLE client_counts DROP CONSTRAINT client_counts_n_check;
ALTER TABLE client_counts DROP CONSTRAINT client_counts_pkey;
ALTER TABLE client_counts ADD PRIMARY KEY (org_id, mode, stripe);

CREATE OR REPLACE FUNCTION count_inserted_clients() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO client_counts (org_id, mode, stripe, n)
  SELECT org_id, mode, txid_current() % 16, count(*) FROM inserted GROUP BY org_id, mode
  ON CONFLICT (org_id, mode, stripe) DO UPDATE SET n = client_counts.n + EXCLUDED.n;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION count_deleted_clients() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO client_counts (org_id, mode, stripe, n)
  SELECT org_id, mode, txid_current() % 16, -count(*) FROM deleted GROUP BY org_id, mode
  ON CONFLICT (org_id, mode, stripe) DO UPDATE SET n = client_counts.n + EXCLUDED.n;
  RETURN NULL;
END
$$;
