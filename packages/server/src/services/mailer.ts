import nodemailer from 'nodemailer';

/** A message to a client. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Sends e-mail; `null` when no SMTP server is configured. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** A mailer over `SMTP_URL` (smtp://user:pass@host:port), or null without one. */
export function createMailer(smtpUrl: string | undefined, from = 'cotizaciones@svc.local'): Mailer | null {
  if (!smtpUrl) return null;
  // Bounded, unlike nodemailer's defaults (10 minutes of silence): an e-mail's claim in the outbox
  // must outlast its exchange (quote-email.ts), and a request under an Idempotency-Key waits for it.
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}
