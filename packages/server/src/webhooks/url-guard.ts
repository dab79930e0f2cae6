import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Resolves a host name to its addresses (injectable for tests). */
export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

/**
 * A resolver that gives up after `ms`: the system's lookup has no time limit of its own, and a
 * name whose DNS never answers held `POST /webhooks` for 5 s. Giving up counts as "cannot be
 * resolved now", which every delivery checks again.
 */
export function timedResolver(resolve: Resolver, ms: number): Resolver {
  return (host) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`DNS lookup of ${host} took over ${ms} ms`)), ms);
    });
    return Promise.race([resolve(host), late]).finally(() => clearTimeout(timer));
  };
}

export const systemResolver: Resolver = timedResolver(
  (host) => dnsLookup(host, { all: true, verbatim: true }),
  2000,
);

// Addresses a webhook must never reach: loopback, private, link-local, CGNAT, multicast,
// documentation, unique-local and the IPv4-mapped forms of all of them.
const INTERNAL = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  INTERNAL.addSubnet(net, bits, 'ipv4');
}
// IPv6 blocks that carry an IPv4 address (which may be internal) are refused whole: nobody's
// webhook needs a literal NAT64, 6to4, Teredo or IPv4-compatible address.
for (const [net, bits] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT)
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  INTERNAL.addSubnet(net, bits, 'ipv6');
}

/**
 * The IPv4 address an IPv4-mapped IPv6 one stands for (`::ffff:10.0.0.1`, or `::ffff:a00:1` as
 * URLs write it), else undefined. (A BlockList rule for ::ffff:0:0/96 would match every IPv4.)
 */
function mappedIpv4(address: string): string | undefined {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const [high, low] = [Number.parseInt(hex[1]!, 16), Number.parseInt(hex[2]!, 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Whether an IP address is internal (never a webhook target). */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  const mapped = family === 6 ? mappedIpv4(address) : undefined;
  if (mapped) return INTERNAL.check(mapped, 'ipv4');
  return INTERNAL.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** Why a URL is refused, or null when it may be a webhook target. */
export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

const LOOPBACK_HTTP = /^http:\/\/127\.0\.0\.1:\d+(\/|$)/;

/**
 * Checks a webhook URL: https to a public host. Refuses other schemes, credentials in the URL,
 * `localhost`, hosts ending `.local`/`.internal`, literal internal IPs, and names that resolve to
 * internal addresses; a name that cannot be resolved now is accepted (it is checked again on
 * every delivery). `allowLoopback` lets `http://127.0.0.1:PORT` through, for local tests only.
 */
export async function checkWebhookUrl(
  raw: string,
  resolve: Resolver,
  allowLoopback = false,
): Promise<UrlVerdict> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url: not a valid URL' };
  }
  // Port 0 parses, but no connection can be made to it.
  if (url.port === '0') return { ok: false, reason: 'url: port 0 is not a port a delivery can reach' };
  if (allowLoopback && LOOPBACK_HTTP.test(raw)) return { ok: true, url };
  if (url.protocol !== 'https:') return { ok: false, reason: 'url: must be https://' };
  if (url.username || url.password) return { ok: false, reason: 'url: must not carry credentials' };
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  if (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host.endsWith('.local') ||
    host.endsWith('.internal')
  ) {
    return { ok: false, reason: 'url: must point to a public host, not an internal name' };
  }
  if (isIP(host)) {
    return isInternalAddress(host)
      ? { ok: false, reason: 'url: must point to a public address' }
      : { ok: true, url };
  }
  let addresses: { address: string }[];
  try {
    addresses = await resolve(host);
  } catch {
    return { ok: true, url }; // unresolvable now; every delivery checks again
  }
  if (addresses.some((a) => isInternalAddress(a.address))) {
    return { ok: false, reason: 'url: the host resolves to an internal address' };
  }
  return { ok: true, url };
}
