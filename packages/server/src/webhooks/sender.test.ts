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
  });
});
