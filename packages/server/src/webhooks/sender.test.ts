import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { sendDelivery } from './sender.js';

describe('sendDelivery', () => {
  it('checks the resolved address at delivery time: a name rebound to an internal IP is refused', async () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '169.254.169.254', '::1', 'fd12::1']) {
      const result = await sendDelivery(
        new URL('https://hooks.example.com/x'),
        '{}',
        {},
        {
          resolve: async () => [{ address, family: address.includes(':') ? 6 : 4 }],
          allowLoopback: false,
          timeoutMs: 1000,
        },
      );
      expect({ address, ok: result.ok, error: result.error }).toEqual({
        address,
        ok: false,
        error: expect.stringContaining('internal'),
      });
    }
  });

  it('refuses plain http and loopback unless the unsafe local setting allows exactly 127.0.0.1', async () => {
    const http = await sendDelivery(
      new URL('http://hooks.example.com/x'),
      '{}',
      {},
      {
        resolve: async () => [{ address: '93.184.216.34', family: 4 }],
        allowLoopback: true,
        timeoutMs: 1000,
      },
    );
    expect(http).toMatchObject({ ok: false, error: expect.stringContaining('https') });

    const receiver = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    // Host names resolve to loopback here, as `localhost` does.
    const send = (url: string, allowLoopback: boolean) =>
      sendDelivery(
        new URL(url),
        '{}',
        {},
        {
          resolve: async () => [{ address: '127.0.0.1', family: 4 }],
          allowLoopback,
          timeoutMs: 1000,
        },
      );
    try {
      expect(await send(`http://127.0.0.1:${port}/hooks`, true)).toMatchObject({ ok: true, status: 204 });
      expect(await send(`http://127.0.0.1:${port}/hooks`, false)).toMatchObject({
        ok: false,
        error: expect.stringContaining('internal'),
      });
      for (const url of [
        `http://[::1]:${port}/hooks`,
        `http://[::ffff:127.0.0.1]:${port}/hooks`,
        `http://127.0.0.2:${port}/hooks`,
        `http://localhost:${port}/hooks`,
        `http://app.localhost:${port}/hooks`,
        `http://loopback.example.com:${port}/hooks`,
        `https://127.0.0.1:${port}/hooks`,
      ]) {
        const result = await send(url, true);
        expect({ url, ok: result.ok, status: result.status, error: result.error }).toEqual({
          url,
          ok: false,
          status: null,
          error: expect.stringContaining('internal'),
        });
      }
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});

describe('sendDelivery timeout', () => {
  it('bounds the whole attempt: a receiver that answers 200 and then trickles its body times out', async () => {
    // A byte every 100 ms for 3 s never leaves the socket silent for the 300 ms Node's own timeout
    // waits, so without a deadline of its own the attempt took the 3 s and counted as delivered.
    const timers = new Set<NodeJS.Timeout>();
    const receiver = createServer((_req, res) => {
      res.writeHead(200);
      res.flushHeaders();
      const timer = setInterval(() => res.write('.'), 100);
      timers.add(timer);
      timers.add(setTimeout(() => res.end(), 3000));
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    try {
      const result = await sendDelivery(
        new URL(`http://127.0.0.1:${port}/hooks`),
        '{}',
        {},
        { resolve: async () => [{ address: '127.0.0.1', family: 4 }], allowLoopback: true, timeoutMs: 300 },
      );
      expect(result).toMatchObject({ ok: false, status: null, error: 'timeout after 300 ms' });
      expect(result.durationMs).toBeLessThan(2000);
    } finally {
      for (const timer of timers) clearTimeout(timer);
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
