-- The client's side of a quote (design.md section 14): its conversation, the lines a client
-- declined when approving only some, and the electronic acceptance.

-- Messages about a quote or one of its lines, from the client (its page) or the seller (the API).
-- `item_id` names the line as it was when the message was written: a resend replaces the lines,
-- the conversation keeps what was said about the old ones, so it is not a foreign key.
CREATE TABLE quote_messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigserial UNIQUE,
  quote_id uuid NOT NULL REFERENCES quotes (id) ON DELETE CASCADE,
  autor text NOT NULL CHECK (autor IN ('cliente', 'vendedor')),
  mensaje text NOT NULL CHECK (char_length(mensaje) BETWEEN 1 AND 2000),
  item_id uuid,
  tipo text NOT NULL CHECK (tipo IN ('mensaje', 'contraoferta')),
  -- A counteroffer: { precio_unitario?, cantidad? } for a line, or { total } for the quote.
  propuesta jsonb,
  actor text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX quote_messages_quote ON quote_messages (quote_id, seq);

-- Lines get an identity again (migration 008 dropped it when nothing read a line by itself): a
-- message or a partial approval names a line. No index: a line is always looked up among its
-- quote's lines, through quote_items_quote.
ALTER TABLE quote_items ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid();

-- A line the client left out of a partial approval: kept and shown, not counted in the totals.
ALTER TABLE quote_items ADD COLUMN declinada boolean NOT NULL DEFAULT false;

-- Who accepted on the quote page: { nombre, email, fecha, ip }; and why a client rejected.
ALTER TABLE quotes ADD COLUMN aceptacion jsonb;
ALTER TABLE quotes ADD COLUMN motivo_rechazo text;

-- Where the seller is told of a client's message (through the e-mail outbox).
ALTER TABLE orgs ADD COLUMN email_avisos text;
