import type { Context } from 'hono';

/**
 * The client's IP address: the socket's peer, or the first `X-Forwarded-For` entry when the
 * server runs behind a trusted load balancer (`TRUST_PROXY=1`).
 */
export function clientIp(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return normalizeIp(forwarded);
  }
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return normalizeIp(env?.incoming?.socket?.remoteAddress ?? '127.0.0.1');
}

/** Drops the IPv4-mapped IPv6 prefix so allowlists can be written as plain IPv4. */
export const normalizeIp = (ip: string): string => (ip.startsWith('::ffff:') ? ip.slice(7) : ip);
