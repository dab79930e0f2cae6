-- The public link of a deleted draft, kept while its events may still be delivered. A webhook's
-- body is the same on every attempt and replay, and quote events carry `link_publico`, which the
-- event history never stores (it is a credential): without this, a `quote.created` delivered or
-- retried after the draft was deleted, and every `quote.deleted`, lost it. Dropped after 90 days,
-- with the deliveries that may still need it.
CREATE TABLE removed_quote_links (
  quote_id uuid PRIMARY KEY,
  token text NOT NULL,
  removed_at timestamptz NOT NULL DEFAULT now()
);
