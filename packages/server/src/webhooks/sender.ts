import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isInternalAddress, type Resolver } from './url-guard.js';

/** What came back from one delivery attempt. */
export interface SendResult {
  ok: boolean;
  status: number | null;
  excerpt: string;
  error: string | null;
  durationMs: number;
}

const EXCERPT = 1024;

/**
 * POSTs a delivery. The host is resolved here and every address checked, and the connection goes
 * to exactly the address that was checked (through the request's `lookup`), so a DNS answer that
 * changes between check and connect cannot reach an internal host. Redirects are never followed:
 * a 3xx is a failure, as is anything but 2xx, a timeout or a network error. The timeout bounds the
 * whole attempt, answer included: Node's own `timeout` is only the socket's silence, which a receiver
 * trickling a byte now and then never breaks, holding one of the endpoint's delivery slots.
 */
export async function sendDelivery(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: { resolve: Resolver; allowLoopback: boolean; timeoutMs: number },
): Promise<SendResult> {
  const started = performance.now();
  const done = (partial: Omit<SendResult, 'durationMs'>): SendResult => ({
    ...partial,
    durationMs: Math.round(performance.now() - started),
  });
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let target: { address: string; family: number };
  try {
    const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await options.resolve(host);
    const loopbackAllowed = options.allowLoopback && url.protocol === 'http:' && host === '127.0.0.1';
    if (addresses.length === 0) throw new Error('no address');
    if (!loopbackAllowed && addresses.some((a) => isInternalAddress(a.address))) {
      return done({
        ok: false,
        status: null,
        excerpt: '',
        error: 'refused: the host resolves to an internal address',
      });
    }
    if (!loopbackAllowed && url.protocol !== 'https:') {
      return done({ ok: false, status: null, excerpt: '', error: 'refused: not https' });
    }
    target = addresses[0]!;
  } catch (error) {
    return done({ ok: false, status: null, excerpt: '', error: `dns: ${(error as Error).message}` });
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((settle) => {
    let settled = false;
    const resolve = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      settle(result);
    };
    const deadline = setTimeout(() => {
      resolve(done({ ok: false, status: null, excerpt: '', error: `timeout after ${options.timeoutMs} ms` }));
      request.destroy();
    }, options.timeoutMs);
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': Buffer.byteLength(body).toString() },
        lookup: ((
          _host: string,
          lookupOptions: { all?: boolean },
          callback: (...args: unknown[]) => void,
        ) => {
          if (lookupOptions?.all) callback(null, [target]);
          else callback(null, target.address, target.family);
        }) as never,
      },
      (response) => {
        let excerpt = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (excerpt.length < EXCERPT) excerpt += chunk.slice(0, EXCERPT - excerpt.length);
        });
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          resolve(done({ ok: status >= 200 && status < 300, status, excerpt, error: null }));
        });
        response.on('error', (error) =>
          resolve(done({ ok: false, status: response.statusCode ?? null, excerpt, error: error.message })),
        );
      },
    );
    request.on('error', (error) =>
      resolve(done({ ok: false, status: null, excerpt: '', error: error.message })),
    );
    request.end(body);
  });
}
