import { parseArgs } from 'node:util';
import { isUuid } from '../ids.js';
import { PERMISSION_RESOURCES } from '../middleware/authorize.js';
import { dayExists } from '../schemas/requests.js';
import {
  type ApiKeyRecord,
  createApiKey,
  type KeyKind,
  type KeyMode,
  type KeyScope,
  MAX_ROTATION_GRACE_HOURS,
  normalizeIpEntry,
  normalizeOrigin,
  revokeApiKey,
  rotateApiKey,
} from '../services/api-keys.js';
import { withDatabase } from './context.js';

/** `YYYY-MM-DD`, optionally with a time and an offset (`T18:00`, `:00`, `.000`, then `Z`, `±HH:MM` or none for UTC). */
const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * An ISO 8601 date or date and time, as an instant (a date alone is its midnight UTC); undefined
 * when it is not one or names a day or time that does not exist: JavaScript's own parser takes
 * `2027-02-30` for 2 March, and forms like `12/17/2027` in the machine's local time.
 */
export function isoInstant(text: string): Date | undefined {
  const trimmed = text.trim();
  const parts = ISO_INSTANT.exec(trimmed);
  if (!parts || !dayExists(trimmed.slice(0, 10))) return undefined;
  const [hour = 0, minute = 0, second = 0] = parts.slice(4, 7).map((part) => Number(part ?? 0));
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  // Without an offset, UTC, as a date alone is (JavaScript would read the machine's local time).
  const instant = new Date(
    parts[4] === undefined ? `${trimmed}T00:00:00Z` : `${trimmed}${parts[7] ? '' : 'Z'}`,
  );
  return Number.isNaN(instant.getTime()) ? undefined : instant;
}

const KINDS = ['secret', 'publishable', 'restricted'];
const MODES = ['test', 'live'];
const SCOPES = ['read', 'write'];

/** `svc-server keys create …`, `svc-server keys rotate KEY_ID …` and `svc-server keys revoke KEY_ID` */
export async function keysCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'rotate') return rotate(rest);
  if (sub === 'revoke') {
    // Nothing but the id: a flag it does not take (`--json`) is refused, not ignored.
    const { positionals } = parseArgs({ args: rest, options: {}, allowPositionals: true });
    const [id, ...extra] = positionals;
    if (!id || !isUuid(id) || extra.length > 0)
      throw new Error('usage: svc-server keys revoke KEY_ID (a UUID)');
    const revoked = await withDatabase((db) => revokeApiKey(db, id));
    if (!revoked) throw new Error(`no key with id ${id}`);
    process.stdout.write(`Revoked key ${id}\n`);
    return 0;
  }
  if (sub !== 'create') {
    throw new Error(
      'usage: svc-server keys create … | svc-server keys rotate KEY_ID | svc-server keys revoke KEY_ID',
    );
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      org: { type: 'string' },
      kind: { type: 'string' },
      mode: { type: 'string' },
      scope: { type: 'string' },
      origin: { type: 'string', multiple: true, default: [] },
      ip: { type: 'string', multiple: true, default: [] },
      expires: { type: 'string' },
      permission: { type: 'string', multiple: true, default: [] },
      json: { type: 'boolean', default: false },
    },
  });
  if (!values.org || !isUuid(values.org)) throw new Error('--org must be an organization id (UUID)');
  if (!KINDS.includes(values.kind ?? '')) throw new Error(`--kind must be one of ${KINDS.join(', ')}`);
  if (!MODES.includes(values.mode ?? '')) throw new Error(`--mode must be one of ${MODES.join(', ')}`);
  if (!SCOPES.includes(values.scope ?? '')) throw new Error(`--scope must be one of ${SCOPES.join(', ')}`);
  // Checked before the database is opened, and named as given.
  const origins = values.origin.map(normalizeOrigin);
  const ips = values.ip.map((ip) => normalizeIpEntry(ip, '--ip'));
  const expiresAt = values.expires === undefined ? null : isoInstant(values.expires);
  if (expiresAt === undefined) {
    throw new Error(
      `--expires ${values.expires}: give an ISO 8601 date that exists, like 2027-06-30 or 2027-06-30T18:00:00Z`,
    );
  }
  // A key born expired would print as created and then answer 401 to its first request.
  if (expiresAt && expiresAt.getTime() <= Date.now()) {
    throw new Error(`--expires ${values.expires}: the date has passed; give a future one`);
  }
  let permissions: Record<string, KeyScope> | null = null;
  if (values.kind !== 'restricted' && values.permission.length > 0) {
    throw new Error('--permission: only restricted keys take permissions');
  }
  if (values.kind === 'restricted') {
    permissions = {};
    for (const entry of values.permission) {
      const [resource, level] = entry.split('=');
      if (!resource || (level !== 'read' && level !== 'write'))
        throw new Error(`--permission ${entry}: use RESOURCE=read|write`);
      if (!(PERMISSION_RESOURCES as readonly string[]).includes(resource)) {
        throw new Error(`--permission ${entry}: RESOURCE must be one of ${PERMISSION_RESOURCES.join(', ')}`);
      }
      permissions[resource] = level;
    }
  }
  const { key, record } = await withDatabase((db) =>
    createApiKey(db, {
      orgId: values.org!,
      kind: values.kind as KeyKind,
      mode: values.mode as KeyMode,
      scope: values.scope as KeyScope,
      origins,
      ips,
      expiresAt,
      permissions,
    }),
  );
  const out = keyJson(key, record);
  process.stdout.write(
    values.json
      ? `${JSON.stringify(out)}\n`
      : `Created ${record.mode} ${record.kind} key ${record.id} (scope ${record.scope}). It is shown only this once:\n${key}\n`,
  );
  return 0;
}

/** A new key as `--json` prints it. */
const keyJson = (key: string, record: ApiKeyRecord) => ({
  id: record.id,
  key,
  kind: record.kind,
  mode: record.mode,
  scope: record.scope,
  display: record.display,
  org_id: record.org_id,
  allowed_origins: record.allowed_origins,
  allowed_ips: record.allowed_ips,
  expires_at: record.expires_at,
  permissions: record.permissions,
  api_version: record.api_version,
});

/**
 * `svc-server keys rotate KEY_ID [--grace HOURS] [--json]`: a new key with the same settings,
 * printed once, and the old one working for HOURS more (24 by default; 0 stops it at once).
 */
async function rotate(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { grace: { type: 'string', default: '24' }, json: { type: 'boolean', default: false } },
  });
  const id = positionals[0];
  if (!id || !isUuid(id) || positionals.length > 1) {
    throw new Error('usage: svc-server keys rotate KEY_ID (a UUID) [--grace HOURS] [--json]');
  }
  const grace = Number(values.grace);
  if (!/^\d+$/.test(values.grace!) || grace > MAX_ROTATION_GRACE_HOURS) {
    throw new Error(`--grace must be whole hours from 0 to ${MAX_ROTATION_GRACE_HOURS}`);
  }
  const { key, record, previous } = await withDatabase((db) => rotateApiKey(db, id, grace));
  const until = new Date(previous.expires_at).toISOString();
  process.stdout.write(
    values.json
      ? `${JSON.stringify({ ...keyJson(key, record), replaces: { id: previous.id, expires_at: until } })}\n`
      : `Created ${record.mode} ${record.kind} key ${record.id} (scope ${record.scope}) to replace ${previous.id}, which works until ${until}. It is shown only this once:\n${key}\n`,
  );
  return 0;
}
