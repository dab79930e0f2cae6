-- The `total` of an unfiltered GET /cotizaciones without counting every quote on each call: every
-- quote takes a folio from its counter, so the quotes an organization has in a mode are the folios
-- taken (`last`) less the drafts deleted since. A filter by status counts through its own index.
ALTER TABLE folio_counters ADD COLUMN deleted integer NOT NULL DEFAULT 0;
CREATE INDEX quotes_status ON quotes (org_id, mode, status, seq DESC);
