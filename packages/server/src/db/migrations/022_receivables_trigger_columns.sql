-- An invoice's update moves the receivables book's version (migration 021) only when it changes
-- what GET /cobranza reads of it. The overdue job stamps `overdue_at` on every invoice past due;
-- with the book's version moved by each stamp, every process recomputed the report for every
-- request while the job went through a large book (the bench: p99 0.5 to 4 s at 50 connections
-- over 10,000 open invoices, against 5 to 8 ms once the version stays put).
DROP TRIGGER invoices_receivables ON invoices;
CREATE TRIGGER invoices_receivables AFTER UPDATE ON invoices
  FOR EACH ROW WHEN (
    (NEW.estado IN ('open', 'uncollectible') OR OLD.estado IN ('open', 'uncollectible'))
    AND (OLD.estado, OLD.total, OLD.pagado, OLD.acreditado, OLD.vence, OLD.cliente_id, OLD.moneda, OLD.org_id, OLD.mode)
      IS DISTINCT FROM
        (NEW.estado, NEW.total, NEW.pagado, NEW.acreditado, NEW.vence, NEW.cliente_id, NEW.moneda, NEW.org_id, NEW.mode)
  )
  EXECUTE FUNCTION bump_receivables_version();
