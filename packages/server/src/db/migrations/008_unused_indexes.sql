-- Indexes that every quote creation paid for and no query uses. Every read of quotes and events
-- by `seq` also names the organization and mode, and goes through `quotes_list` or `events_list`;
-- `seq` comes from its own sequence, so it stays unique without an index to say so. Nothing reads
-- a line by its `id`: lines are read and replaced by quote, through `quote_items_quote`.
ALTER TABLE quotes DROP CONSTRAINT quotes_seq_key;
ALTER TABLE events DROP CONSTRAINT events_seq_key;
ALTER TABLE quote_items DROP COLUMN id;
