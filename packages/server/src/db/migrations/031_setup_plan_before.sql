-- What an applied plan changed, as it was just before: its review page keeps showing "before"
-- and "after" once the rows hold the "after".
ALTER TABLE setup_plans ADD COLUMN antes jsonb;
