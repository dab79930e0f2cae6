import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { createMailer } from './mailer.js';

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
beforeAll(async () => {
  smtp = await smtpServer();
  t = await createTestContext({ mailer: createMailer(`${smtp.url}?ignoreTLS=true`) });
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
    expect(((await res.json()) as { data: { email: unknown } }).data.email).toEqual({
      sent: false,
      skipped: 'test_mode',
    });
    expect(smtp.messages.length).toBe(before);
  });
});
