import { describe, expect, it } from 'vitest';
import { checkWebhookUrl } from './url-guard.js';

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
});
