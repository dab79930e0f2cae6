-- Open and uncollectible invoices are receivables (design.md section 12): GET /cobranza reads them
-- with the approved quotes, and any change to them moves the book's version (migration 016) so a
-- report kept in memory is computed again.

-- What GET /cobranza reads of an organization's unpaid invoices, without touching the table: a
-- partial index, so it cannot serve the newest-first list (which has no condition on estado) and
-- invoices_list stays the only index a list could be planned through (see migration 008).
CREATE INDEX invoices_receivable_by_client ON invoices (org_id, mode, cliente_id, moneda)
  INCLUDE (total, pagado, acreditado, vence)
  WHERE estado IN ('open', 'uncollectible');

-- An invoice is receivable while open or uncollectible: inserts into, updates into, within or out
-- of those states, and deletes of such rows count; drafts pay nothing for this.
CREATE TRIGGER invoices_receivables_insert AFTER INSERT ON invoices
  FOR EACH ROW WHEN (NEW.estado IN ('open', 'uncollectible'))
  EXECUTE FUNCTION bump_receivables_version();
CREATE TRIGGER invoices_receivables AFTER UPDATE ON invoices
  FOR EACH ROW WHEN (NEW.estado IN ('open', 'uncollectible') OR OLD.estado IN ('open', 'uncollectible'))
  EXECUTE FUNCTION bump_receivables_version();
CREATE TRIGGER invoices_receivables_delete AFTER DELETE ON invoices
  FOR EACH ROW WHEN (OLD.estado IN ('open', 'uncollectible'))
  EXECUTE FUNCTION bump_receivables_version();
