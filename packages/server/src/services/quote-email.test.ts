import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { createMailer, type Mailer } from './mailer.js';
import { runHousekeeping } from './scheduler.js';

/** A tiny real SMTP server on 127.0.0.1 that keeps what it receives. */
async function smtpServer() {
  const messages: { from: string; to: string[]; data: string }[] = [];
  const server: Server = createServer((socket: Socket) => {
    let mode: 'command' | 'data' = 'command';
    let current = { from: '', to: [] as string[], data: '' };
    let buffer = '';
    socket.write('220 test ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (mode === 'data') {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          current.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          messages.push(current);
          current = { from: '', to: [], data: '' };
          mode = 'command';
          socket.write('250 OK queued\r\n');
          continue;
        }
        const newline = buffer.indexOf('\r\n');
        if (newline < 0) return;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 test\r\n');
        else if (verb === 'MAIL') {
          current.from = line;
          socket.write('250 OK\r\n');
        } else if (verb === 'RCPT') {
          current.to.push(line);
          socket.write('250 OK\r\n');
        } else if (verb === 'DATA') {
          mode = 'data';
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') {
          socket.end('221 bye\r\n');
        } else socket.write('250 OK\r\n');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    messages,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

let t: TestContext;
let smtp: Awaited<ReturnType<typeof smtpServer>>;
/** While set, the SMTP exchange waits for it: an SMTP server that is slow to answer. */
let slowSmtp: Promise<void> | undefined;
let smtpStarted = 0;
beforeAll(async () => {
  smtp = await smtpServer();
  const real = createMailer(`${smtp.url}?ignoreTLS=true`)!;
  const mailer: Mailer = {
    async send(mail) {
      smtpStarted++;
      await slowSmtp;
      await real.send(mail);
    },
  };
  t = await createTestContext({ mailer });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

describe('e-mail on sending', () => {
  it('sends a live quote to the client through SMTP, in the quote language, with the public link', async () => {
    const res = await t.call('POST', '/api/v1/cotizaciones', {
      key: t.seed.keys.sk_live_write,
      headers: { 'accept-language': 'fr-FR' },
      body: {
        items: [{ descripcion: 'Logo', cantidad: 1, precio_unitario: 9500 }],
        cliente: { empresa: 'Maison Bleue', email: 'achats@maison.example' },
        send: true,
      },
    });
    const { data } = (await res.json()) as { data: { email: unknown; link_publico: string; folio: string } };
    expect(data.email).toEqual({ sent: true });
    expect(smtp.messages).toHaveLength(1);
    const message = smtp.messages[0]!;
    expect(message.to.join()).toContain('achats@maison.example');
    expect(message.data).toContain(`Devis ${data.folio}`);
    expect(message.data.replace(/=\r\n/g, '')).toContain(data.link_publico);
  });

  it('keeps test-mode e-mails in the outbox even with SMTP configured', async () => {
    const before = smtp.messages.length;
    const res = await t.call('POST', '/api/v1/cotizaciones', {
      key: t.seed.keys.sk_test_write,
      body: {
        items: [{ descripcion: 'Logo', cantidad: 1, precio_unitario: 9500 }],
        cliente: { empresa: 'Prueba', email: 'p@x.example' },
        send: true,
      },
    });
    const { data } = (await res.json()) as { data: { id: string; email: unknown; link_publico: string } };
    expect(data.email).toEqual({ sent: false, skipped: 'test_mode' });
    expect(smtp.messages.length).toBe(before);
    // Its figures are written as the client's page writes them: Spanish as used in Mexico.
    const [kept] = await t.db.query<{ body: string }>('SELECT body FROM email_outbox WHERE quote_id = $1', [
      data.id,
    ]);
    expect(kept!.body).toContain('$11,020.00');
    const page = await (await t.app.request(new URL(data.link_publico).pathname)).text();
    expect(page).toContain('$11,020.00');
  });

  it('under an Idempotency-Key sends once the request commits, never holding the database meanwhile', async () => {
    let answer!: () => void;
    slowSmtp = new Promise((resolve) => {
      answer = resolve;
    });
    const started = smtpStarted;
    const before = smtp.messages.length;
    const request = {
      key: t.seed.keys.sk_live_write,
      headers: { 'idempotency-key': `mail-${Date.now()}` },
      body: {
        items: [{ descripcion: 'Logo', cantidad: 1, precio_unitario: 9500 }],
        cliente: { empresa: 'Lenta SA', email: 'compras@lenta.example' },
        send: true,
      },
    };
    const pending = t.call('POST', '/api/v1/cotizaciones', request);
    await until(async () => smtpStarted > started, 'the SMTP exchange');
    // The quote committed before the e-mail: other requests read and write meanwhile (on PGlite's
    // one connection they waited for the whole SMTP exchange).
    const listed = await Promise.race([
      t.call('GET', '/api/v1/cotizaciones?limit=1', { key: t.seed.keys.sk_live_write }),
      new Promise<undefined>((resolve) => setTimeout(resolve, 3000)),
    ]);
    expect(listed?.status).toBe(200);
    answer();
    slowSmtp = undefined;
    const res = await pending;
    const { data } = (await res.json()) as { data: { email: unknown; folio: string } };
    expect(data.email).toEqual({ sent: false, queued: true });
    expect(smtp.messages.length).toBe(before + 1);
    const [row] = await t.db.query<{ status: string }>(
      `SELECT status FROM email_outbox WHERE to_email = 'compras@lenta.example'`,
    );
    expect(row?.status).toBe('sent');
    // A replay is the stored answer; nothing is sent again.
    const again = await t.call('POST', '/api/v1/cotizaciones', request);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(smtp.messages.length).toBe(before + 1);
  });

  it('sends an e-mail its process never sent (it died after the commit) once, from housekeeping', async () => {
    const org = t.seed.org.id;
    const outbox = async (created: string, claimed: string | null) =>
      (
        await t.db.query<{ id: string }>(
          `INSERT INTO email_outbox (org_id, mode, to_email, subject, body, status, created_at, claimed_at)
           VALUES ($1, 'live', $2, 'Varada', 'Texto', 'pending', now() - $3::interval, now() - $4::interval)
           RETURNING id`,
          [org, `varada-${created.replace(/\W/g, '')}@cliente.example`, created, claimed],
        )
      )[0]!.id;
    // Died before sending (never claimed), and died during the SMTP exchange (claimed 10 minutes ago).
    const unclaimed = await outbox('2 minutes', null);
    const stale = await outbox('15 minutes', '10 minutes');
    // Still its own process's: written 10 seconds ago, or claimed a minute ago (being sent now).
    const fresh = await outbox('10 seconds', null);
    const sending = await outbox('3 minutes', '1 minute');
    const before = smtp.messages.length;
    const statuses = async () =>
      Object.fromEntries(
        (
          await t.db.query<{ id: string; status: string }>(
            'SELECT id, status FROM email_outbox WHERE id = ANY($1::uuid[])',
            [[unclaimed, stale, fresh, sending]],
          )
        ).map((row) => [row.id, row.status]),
      );
    // Two processes' housekeeping at once: each e-mail goes out once.
    await Promise.all([
      runHousekeeping(t.db, t.deps.logger, t.deps.now, t.deps),
      runHousekeeping(t.db, t.deps.logger, t.deps.now, t.deps),
    ]);
    expect(smtp.messages.length - before).toBe(2);
    expect(await statuses()).toEqual({
      [unclaimed]: 'sent',
      [stale]: 'sent',
      [fresh]: 'pending',
      [sending]: 'pending',
    });
    await runHousekeeping(t.db, t.deps.logger, t.deps.now, t.deps);
    expect(smtp.messages.length - before).toBe(2);
  });
});
