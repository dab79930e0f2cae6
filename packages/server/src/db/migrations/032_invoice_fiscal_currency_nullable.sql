-- A process of the previous release, still running during a rolling deploy, inserts invoices
-- without moneda_fiscal: a missing one reads as the sale currency (the invoices of that release
-- declared no rate), rather than failing the insert.
ALTER TABLE invoices ALTER COLUMN moneda_fiscal DROP NOT NULL;
