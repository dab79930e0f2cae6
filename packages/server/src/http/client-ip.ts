import type { Context } from 'hono';

/**
 * The client's IP address: the socket's peer, or, when the server runs behind a trusted load
 * balancer (`TRUST_PROXY=1`), the address that balancer appended to `X-Forwarded-For`: the last
 * entry. The entries before it came from the client, who can write anything there.
 */
export function clientIp(c: Context, trustProxy: boolean): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return clientIpFrom(
    trustProxy ? c.req.header('x-forwarded-for') : undefined,
    env?.incoming?.socket?.remoteAddress,
    trustProxy,
  );
}

/**
 * {@link clientIp} from the request's `X-Forwarded-For` and its socket's peer address, for the
 * paths that answer before Hono builds a context (the preview's fast path).
 */
export function clientIpFrom(
  forwardedFor: string | null | undefined,
  remoteAddress: string | undefined,
  trustProxy: boolean,
): string {
  if (trustProxy) {
    const forwarded = forwardedFor?.slice(forwardedFor.lastIndexOf(',') + 1).trim();
    if (forwarded) return normalizeIp(forwarded);
  }
  return normalizeIp(remoteAddress ?? '127.0.0.1');
}

/** Drops the IPv4-mapped IPv6 prefix so allowlists can be written as plain IPv4. */
export const normalizeIp = (ip: string): string => (ip.startsWith('::ffff:') ? ip.slice(7) : ip);
