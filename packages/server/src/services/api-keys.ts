import { isIP } from 'node:net';
import { getPublicSuffix } from 'tldts';
import { API_VERSION } from '../config.js';
import type { Database, Queryable } from '../db/database.js';
import { ApiError, invalidRequest } from '../errors.js';
import { isUuid, randomBase62, sha256 } from '../ids.js';
import { PLANS, type Plan, planLimitError } from './plans.js';

export type KeyKind = 'secret' | 'publishable' | 'restricted';
export type KeyMode = 'test' | 'live';
export type KeyScope = 'read' | 'write';

/** An API key as stored: never the key itself, only its hash and display form. */
export interface ApiKeyRecord {
  id: string;
  org_id: string;
  kind: KeyKind;
  mode: KeyMode;
  scope: KeyScope;
  permissions: Record<string, KeyScope> | null;
  display: string;
  api_version: string;
  allowed_origins: string[];
  allowed_ips: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  /** The key that replaced this one by a rotation (it works until `expires_at`), else null. */
  replaced_by: string | null;
  created_at: Date;
}

/** What creating a key needs. */
export interface NewKey {
  orgId: string;
  kind: KeyKind;
  mode: KeyMode;
  scope: KeyScope;
  /** Publishable keys: allowed origins (`https://shop.example`, `https://*.shop.example`). */
  origins?: string[];
  /**
   * The only client IPs the key works from (addresses or CIDR ranges, checked here; any kind of
   * key); empty means any.
   */
  ips?: string[];
  expiresAt?: Date | null;
  /** Restricted keys: resource name to access level. */
  permissions?: Record<string, KeyScope> | null;
}

const KIND_PREFIX: Record<KeyKind, string> = { secret: 'sk', publishable: 'pk', restricted: 'rk' };

/** Key prefixes recognised in `Authorization: Bearer`. */
export const KEY_PATTERN = /^(sk|pk|rk)_(test|live)_[0-9A-Za-z]{32}$/;

/** The display form of a key: its prefix and last 4 characters. */
export const displayKey = (key: string): string =>
  `${key.slice(0, key.indexOf('_', 3) + 1)}...${key.slice(-4)}`;

/** SHA-256 of the key: keys carry 190 bits of randomness, so a fast hash is enough to store them. */
export const hashKey = (key: string): string => sha256(key);

/**
 * Whether anyone may register names directly under `domain`, by the Public Suffix List with its
 * private section (`com.mx`, `co.uk`, and `github.io`, `vercel.app`… where each name is another
 * owner's site): a wildcard over one (`https://*.github.io`) would cover every site there.
 */
const isPublicSuffix = (domain: string) => getPublicSuffix(domain, { allowPrivateDomains: true }) === domain;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Normalises an allowed origin: an exact origin (`https://shop.example`, `http://localhost:3000`,
 * stored as the browser sends it, `https://Shop.Example:443/` being `https://shop.example`) or a
 * wildcard `https://*.shop.example`, any subdomain of a domain of at least two labels over https
 * (its default port `:443` dropped, as browsers drop it). Throws `invalid_request` naming it for
 * anything else: a wildcard over a top-level domain or a shared suffix (`https://*.com`,
 * `https://*.com.mx`), over http, anywhere but the first label, or any other text with `*`, none of
 * which could ever match what it seems to say.
 */
export function normalizeOrigin(origin: string): string {
  const text = origin.trim();
  const refuse = (why: string) => invalidRequest(`origin "${origin}" ${why}`);
  if (text.includes('*')) {
    const wildcard = /^([a-z][a-z0-9+.-]*):\/\/\*\.([^*/?#@]+)$/i.exec(text);
    if (!wildcard) {
      throw refuse('is not an origin: a wildcard is only the first label, as in https://*.shop.example');
    }
    if (wildcard[1]!.toLowerCase() !== 'https') {
      throw refuse('is refused: a wildcard origin is https only (https://*.shop.example)');
    }
    // The domain and port read as a URL reads them (lower case, punycode, the default port left out).
    let url: URL | undefined;
    try {
      url = new URL(`https://wildcard.${wildcard[2]}`);
    } catch {}
    const labels = url?.hostname.split('.').slice(1) ?? [];
    const tld = labels[labels.length - 1] ?? '';
    if (
      url?.pathname !== '/' ||
      !labels.every((label) => LABEL.test(label)) ||
      !/^([a-z]{2,63}|xn--[a-z0-9-]+)$/.test(tld)
    ) {
      throw refuse('is not an origin like https://*.shop.example');
    }
    if (labels.length < 2) {
      throw refuse(
        'is refused: a wildcard covers the subdomains of one site, so it takes a domain of at least two labels (https://*.shop.example)',
      );
    }
    if (isPublicSuffix(labels.join('.'))) {
      throw refuse(
        `is refused: ${labels.join('.')} is a suffix under which anyone registers names; name your own domain (https://*.shop.${labels.join('.')})`,
      );
    }
    return `https://*.${labels.join('.')}${url.port ? `:${url.port}` : ''}`;
  }
  try {
    const url = new URL(text);
    if ((url.protocol === 'https:' || url.protocol === 'http:') && url.pathname === '/' && !url.search) {
      return url.origin;
    }
  } catch {}
  throw refuse('is not an origin like https://shop.example or https://*.shop.example');
}

/** One entry of a key's IP allowlist: an address, or a range of `bits` leading bits. */
export interface IpEntry {
  address: string;
  bits: number | undefined;
  family: 'ipv4' | 'ipv6';
}

/**
 * An allowlist entry read: an IPv4 or IPv6 address (`203.0.113.7`, `2001:db8::1`) or a CIDR range
 * whose prefix length is a whole number the family has (0–32, 0–128). Anything else gives the
 * reason it is not one.
 */
export function parseIpEntry(entry: string): IpEntry | { problem: string } {
  const parts = entry.trim().split('/');
  const version = isIP(parts[0] ?? '');
  if (parts.length > 2 || version === 0) {
    return { problem: 'is not an IP address or CIDR range (like 203.0.113.7 or 10.0.0.0/8)' };
  }
  const family = version === 6 ? 'ipv6' : 'ipv4';
  if (parts.length === 1) return { address: parts[0]!, bits: undefined, family };
  const max = version === 6 ? 128 : 32;
  const bits = /^\d{1,3}$/.test(parts[1]!) ? Number(parts[1]) : Number.NaN;
  if (!(bits <= max)) {
    return { problem: `has a prefix length that is not a whole number from 0 to ${max} (IPv${version})` };
  }
  return { address: parts[0]!, bits, family };
}

/** Checks an allowlist entry; returns it trimmed, or throws `invalid_request` naming `field`. */
export function normalizeIpEntry(entry: string, field: string): string {
  const parsed = parseIpEntry(entry);
  if ('problem' in parsed) throw invalidRequest(`${field}: "${entry}" ${parsed.problem}`);
  return entry.trim();
}

/**
 * Creates a key and returns it in clear, once. Enforces the plan's number of keys
 * (402 `plan_limit_reached`) unless `enforceLimit` is false (the demo seed).
 */
export async function createApiKey(
  db: Database,
  input: NewKey,
  options: { enforceLimit?: boolean } = {},
): Promise<{ key: string; record: ApiKeyRecord }> {
  const origins = (input.origins ?? []).map(normalizeOrigin);
  const ips = (input.ips ?? []).map((ip, i) => normalizeIpEntry(ip, `ips[${i}]`));
  if (input.kind !== 'publishable' && origins.length > 0)
    throw invalidRequest('origins apply to publishable keys only');
  if (input.kind === 'publishable' && input.scope !== 'write') {
    // A publishable key only reads config, drafts, previews and creates quotes: write is its scope.
    throw invalidRequest('publishable keys have scope write');
  }
  return db.transaction(async (tx) => {
    const [org] = await tx.query<{ plan: Plan }>('SELECT plan FROM orgs WHERE id = $1 FOR UPDATE', [
      input.orgId,
    ]);
    if (!org) throw new ApiError(404, 'not_found', `Organization ${input.orgId} not found.`);
    if (options.enforceLimit !== false) {
      const limit = PLANS[org.plan].maxKeys;
      const [row] = await tx.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM api_keys
         WHERE org_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
        [input.orgId],
      );
      if ((row?.n ?? 0) >= limit) {
        throw planLimitError('api_keys', org.plan, limit);
      }
    }
    return insertKey(tx, { ...input, origins, ips }, API_VERSION);
  });
}

const KEY_COLUMNS = `id, org_id, kind, mode, scope, permissions, display, api_version, allowed_origins,
  allowed_ips, expires_at, revoked_at, replaced_by, created_at`;

/** Stores a new key's hash and settings; returns the key in clear, once, with its record. */
async function insertKey(
  tx: Queryable,
  input: NewKey,
  apiVersion: string,
): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = `${KIND_PREFIX[input.kind]}_${input.mode}_${randomBase62(32)}`;
  const [record] = await tx.query<ApiKeyRecord>(
    `INSERT INTO api_keys (org_id, kind, mode, scope, permissions, secret_hash, display, api_version,
       allowed_origins, allowed_ips, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     RETURNING ${KEY_COLUMNS}`,
    [
      input.orgId,
      input.kind,
      input.mode,
      input.scope,
      input.permissions ? JSON.stringify(input.permissions) : null,
      hashKey(key),
      displayKey(key),
      apiVersion,
      input.origins ?? [],
      input.ips ?? [],
      input.expiresAt ?? null,
    ],
  );
  return { key, record: record! };
}

/** Longest grace period of a rotation: 30 days. */
export const MAX_ROTATION_GRACE_HOURS = 720;

/**
 * Rotates a key with a grace period: a new key with the same organization, kind, mode, scope,
 * permissions, origins, IPs, expiry and API version, and the old one stops working after
 * `graceHours` (at once with 0; earlier when it was to expire before). The webhook endpoints the
 * old key made pass to the new one, so they outlive it. 404 for no such key; 409 `invalid_state`
 * for one revoked, expired or already rotated. The plan's number of keys is not checked: one
 * replaces the other, once.
 */
export async function rotateApiKey(
  db: Database,
  keyId: string,
  graceHours: number,
): Promise<{ key: string; record: ApiKeyRecord; previous: { id: string; expires_at: Date } }> {
  if (!Number.isInteger(graceHours) || graceHours < 0 || graceHours > MAX_ROTATION_GRACE_HOURS) {
    throw invalidRequest(`grace: whole hours from 0 to ${MAX_ROTATION_GRACE_HOURS}`);
  }
  const rotated = await db.transaction(async (tx) => {
    const [old] = isUuid(keyId)
      ? await tx.query<ApiKeyRecord>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1 FOR UPDATE`, [keyId])
      : [];
    if (!old) throw new ApiError(404, 'not_found', `Key ${keyId} not found.`);
    if (old.revoked_at || (old.expires_at && new Date(old.expires_at) <= new Date())) {
      throw new ApiError(
        409,
        'invalid_state',
        `Key ${keyId} is revoked or expired: create a new one instead.`,
      );
    }
    // Once: a key in its grace period is already replaced (rotate its successor instead), so
    // rotations never pile up keys past the plan's number.
    if (old.replaced_by) {
      throw new ApiError(
        409,
        'invalid_state',
        `Key ${keyId} was already rotated; its replacement is ${old.replaced_by}.`,
      );
    }
    const fresh = await insertKey(
      tx,
      {
        orgId: old.org_id,
        kind: old.kind,
        mode: old.mode,
        scope: old.scope,
        origins: old.allowed_origins,
        ips: old.allowed_ips,
        expiresAt: old.expires_at,
        permissions: old.permissions,
      },
      old.api_version,
    );
    const [previous] = await tx.query<{ id: string; expires_at: Date }>(
      `UPDATE api_keys SET expires_at = least(coalesce(expires_at, 'infinity'), now() + make_interval(hours => $2)),
         replaced_by = $3
       WHERE id = $1 RETURNING id, expires_at`,
      [keyId, graceHours, fresh.record.id],
    );
    await tx.query('UPDATE webhook_endpoints SET key_id = $2 WHERE key_id = $1', [keyId, fresh.record.id]);
    return { ...fresh, previous: previous! };
  });
  // Every process reloads the old key, whose expiry changed. Committed already: a lost message
  // must not lose the new key, shown only now (the caches drop the old entry within 30 s anyway).
  await db.notify(AUTH_CHANGED_CHANNEL, `key:${keyId}`).catch(() => {});
  return rotated;
}

/** Channel on which every process hears that a key or an organization changed. */
export const AUTH_CHANGED_CHANNEL = 'svc_auth_changed';

/**
 * Revokes a key at once: the row is marked, and every server process drops it from its cache
 * through a notification. Returns false when no such key exists.
 */
export async function revokeApiKey(db: Database, keyId: string): Promise<boolean> {
  if (!isUuid(keyId)) return false;
  const rows = await db.transaction(async (tx: Queryable) => {
    const revoked = await tx.query(
      'UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING id',
      [keyId],
    );
    // Revoking a key deactivates the webhook endpoints it created.
    await tx.query(
      `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = 'key_revoked' WHERE key_id = $1`,
      [keyId],
    );
    return revoked;
  });
  if (rows.length === 0) return false;
  await db.notify(AUTH_CHANGED_CHANNEL, `key:${keyId}`);
  return true;
}
