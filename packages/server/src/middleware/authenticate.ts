import { BlockList, isIP } from 'node:net';
import type { Context } from 'hono';
import { ApiError } from '../errors.js';
import { clientIp } from '../http/client-ip.js';
import { KEY_PATTERN, parseIpEntry } from '../services/api-keys.js';
import type { KeyWithOrg } from '../services/key-store.js';
import type { AppDeps, AppEnv } from '../types.js';

/**
 * Finds the key of `Authorization: Bearer <key>`: 401 `missing_key` without one, 401 `invalid_key`
 * for an unknown, revoked or expired key, or a secret key used from an IP outside its allowlist.
 */
export async function authenticate(c: Context<AppEnv>, deps: AppDeps): Promise<KeyWithOrg> {
  const secret = bearerKey(c);
  const found = KEY_PATTERN.test(secret) ? await deps.keys.find(secret) : null;
  if (!found) throw new ApiError(401, 'invalid_key', 'The API key is not valid.');
  const { key } = found;
  if (key.revoked_at) throw new ApiError(401, 'invalid_key', 'The API key has been revoked.');
  if (key.expires_at && key.expires_at.getTime() <= deps.now().getTime()) {
    throw new ApiError(401, 'invalid_key', 'The API key has expired.');
  }
  if (key.allowed_ips.length > 0) {
    const ip = clientIp(c, deps.config.trustProxy);
    if (!ipAllowed(ip, key.allowed_ips)) {
      throw new ApiError(401, 'invalid_key', `The API key cannot be used from ${ip}.`);
    }
  }
  c.set('auth', found);
  return found;
}

/**
 * The key of `Authorization: Bearer <key>`, the header read as {@link authenticate} reads it
 * (trimmed, the scheme in any case): 401 `missing_key` without one, `invalid_key` for a header of
 * another form.
 */
export function bearerKey(c: Context<AppEnv>): string {
  const header = c.req.header('authorization')?.trim();
  if (!header)
    throw new ApiError(401, 'missing_key', 'Send your API key as Authorization: Bearer <API_KEY>.');
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  // "Bearer" alone names no key; anything else (another scheme, two words) is a key we refuse.
  if (!match) {
    const code = /^Bearer$/i.test(header) ? 'missing_key' : 'invalid_key';
    throw new ApiError(401, code, 'The Authorization header must be "Bearer <API_KEY>".');
  }
  return match[1]!;
}

/**
 * True when `ip` is one of `allowlist` (addresses or CIDR ranges, IPv4 or IPv6). An entry that is
 * neither (a row stored before entries were checked) matches nothing.
 */
export function ipAllowed(ip: string, allowlist: readonly string[]): boolean {
  const version = isIP(ip);
  if (!version) return false;
  const list = new BlockList();
  for (const entry of allowlist) {
    const parsed = typeof entry === 'string' ? parseIpEntry(entry) : null;
    if (!parsed || 'problem' in parsed) continue;
    if (parsed.bits === undefined) list.addAddress(parsed.address, parsed.family);
    else list.addSubnet(parsed.address, parsed.bits, parsed.family);
  }
  return list.check(ip, version === 6 ? 'ipv6' : 'ipv4');
}
