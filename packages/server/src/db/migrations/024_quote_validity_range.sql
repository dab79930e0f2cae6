-- A quote's `vigencia_dias` takes any integer the interface allows (±9007199254740991, the spec's
-- bounds), which `integer` cannot hold: a creation with more than 2^31 days answered 500. `bigint`
-- would hold it but reaches JavaScript as a string; `double precision` holds every such integer
-- exactly and reaches it as a number. The date it gives on sending is clamped to 9999-12-31
-- (services/quote-sending.ts).
ALTER TABLE quotes ALTER COLUMN vigencia_dias TYPE double precision;
