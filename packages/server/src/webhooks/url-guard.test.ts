import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, timedResolver } from './url-guard.js';

describe('checkWebhookUrl', () => {
  it('lets only http://127.0.0.1:PORT through under the unsafe local setting, no other loopback', async () => {
    const toLoopback = async () => [{ address: '127.0.0.1', family: 4 }];
    expect(await checkWebhookUrl('http://127.0.0.1:8080/hooks', toLoopback, true)).toMatchObject({
      ok: true,
    });
    expect(await checkWebhookUrl('http://127.0.0.1:8080/hooks', toLoopback, false)).toMatchObject({
      ok: false,
    });
    for (const url of [
      'http://[::1]:8080/hooks',
      'http://[::ffff:127.0.0.1]:8080/hooks',
      'http://127.0.0.2:8080/hooks',
      'http://localhost:8080/hooks',
      'http://app.localhost:8080/hooks',
      'http://loopback.example.com:8080/hooks',
      'http://127.0.0.1:8080@hooks.example.com/x',
      'https://127.0.0.1:8080/hooks',
    ]) {
      expect({ url, verdict: await checkWebhookUrl(url, toLoopback, true) }).toMatchObject({
        url,
        verdict: { ok: false },
      });
    }
  });

  it('refuses IPv6 addresses that are internal or carry an IPv4 one, and takes public ones', async () => {
    const none = async () => [];
    for (const host of [
      '::1',
      '::127.0.0.1',
      '::10.0.0.1',
      '::ffff:7f00:1',
      '::ffff:0:a00:1',
      '64:ff9b::a00:1',
      '64:ff9b:1::a00:1',
      '2002:7f00:1::',
      '2001:0:4136:e378::1',
      'fec0::1',
      'fd00::1',
      'fe80::1',
    ]) {
      expect({ host, verdict: await checkWebhookUrl(`https://[${host}]/x`, none) }).toMatchObject({
        host,
        verdict: { ok: false },
      });
    }
    expect(await checkWebhookUrl('https://[2606:4700:4700::1111]/x', none)).toMatchObject({ ok: true });
    expect(await checkWebhookUrl('https://[::ffff:8.8.8.8]/x', none)).toMatchObject({ ok: true });
  });

  it('refuses port 0, which no delivery can reach, with or without the unsafe local setting', async () => {
    const publicHost = async () => [{ address: '93.184.216.34', family: 4 }];
    for (const [url, allowLoopback] of [
      ['https://example.com:0/x', false],
      ['https://example.com:00/x', false],
      ['https://93.184.216.34:0/x', false],
      ['http://127.0.0.1:0/hooks', true],
    ] as const) {
      expect({ url, verdict: await checkWebhookUrl(url, publicHost, allowLoopback) }).toMatchObject({
        url,
        verdict: { ok: false, reason: expect.stringContaining('port') },
      });
    }
    expect(await checkWebhookUrl('https://example.com:8443/x', publicHost)).toMatchObject({ ok: true });
  });

  it('gives up on a lookup that does not answer, which counts as not resolvable now', async () => {
    const never = timedResolver(() => new Promise(() => {}), 50);
    const started = Date.now();
    expect(await checkWebhookUrl('https://hooks.example.com/x', never, false)).toMatchObject({ ok: true });
    expect(Date.now() - started).toBeLessThan(1000);
    // An answer in time is still checked.
    const internal = timedResolver(async () => [{ address: '10.0.0.1', family: 4 }], 50);
    expect(await checkWebhookUrl('https://hooks.example.com/x', internal, false)).toMatchObject({
      ok: false,
    });
  });
});
