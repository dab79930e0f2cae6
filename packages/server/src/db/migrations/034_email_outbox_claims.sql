-- Who is sending an outbox e-mail, since when: the process that wrote it claims it right after
-- commit; one that died before sending leaves it claimed (or unclaimed), and after a while any
-- process's housekeeping claims and sends it (services/quote-email.ts, sendStrandedEmails).
ALTER TABLE email_outbox ADD COLUMN claimed_at timestamptz;
CREATE INDEX email_outbox_pending ON email_outbox (created_at) WHERE status = 'pending';
