import type { Database } from '../db/database.js';
import { type ApiKeyRecord, AUTH_CHANGED_CHANNEL, hashKey } from './api-keys.js';
import { type Org, orgInMode } from './orgs.js';

/** A key found by its hash, with its organization. */
export interface KeyWithOrg {
  key: ApiKeyRecord;
  org: Org;
  /** Set when the request comes through the agent interface (MCP) on the key's behalf. */
  channel?: 'mcp';
}

const MAX_ENTRIES = 10_000;
const TTL_MS = 30_000;

/**
 * Finds keys by their hash, caching in memory so that authentication costs no query on the hot
 * path. Revocation and organization changes reach every process through LISTEN/NOTIFY and drop
 * the entries at once; a lost notification connection clears the whole cache, and a short TTL is
 * the last safety net.
 */
export class KeyStore {
  readonly #db: Database;
  readonly #cache = new Map<string, { value: KeyWithOrg | null; at: number }>();
  // Bumped on every invalidation: a lookup that started before one must not fill the cache.
  #generation = 0;
  #unlisten: (() => Promise<void>) | undefined;
  readonly #subscribers = new Set<(message: string) => void>();

  constructor(db: Database) {
    this.#db = db;
  }

  /** Starts listening for changes; call once after the database is open. */
  async start(): Promise<void> {
    this.#unlisten = await this.#db.listen(AUTH_CHANGED_CHANNEL, (payload) => this.invalidate(payload));
  }

  async stop(): Promise<void> {
    await this.#unlisten?.();
  }

  /** Drops what a change message names: `key:<id>`, `org:<id>`, or everything for ''. */
  invalidate(message: string): void {
    this.#generation++;
    for (const subscriber of this.#subscribers) subscriber(message);
    const [kind, id] = message.split(':');
    if (!id) {
      this.#cache.clear();
      return;
    }
    for (const [hash, entry] of this.#cache) {
      const value = entry.value;
      if (!value) continue;
      if ((kind === 'key' && value.key.id === id) || (kind === 'org' && value.org.id === id))
        this.#cache.delete(hash);
    }
  }

  /** Calls `fn` with every change message, so caches derived from keys and organizations follow. */
  subscribe(fn: (message: string) => void): () => void {
    this.#subscribers.add(fn);
    return () => this.#subscribers.delete(fn);
  }

  /**
   * What memory holds for a key in clear, without a query: the key and its organization, null for
   * a key known not to exist, undefined when only {@link find} can tell.
   */
  peek(secret: string, hash: string = hashKey(secret)): KeyWithOrg | null | undefined {
    return this.#fresh(hash);
  }

  /** The key and its organization for a key in clear, or null when no such key exists. */
  async find(secret: string): Promise<KeyWithOrg | null> {
    const hash = hashKey(secret);
    const hit = this.#fresh(hash);
    if (hit !== undefined) return hit;
    const generation = this.#generation;
    const value = await this.#load(hash);
    if (generation === this.#generation) {
      if (this.#cache.size >= MAX_ENTRIES) this.#cache.clear();
      this.#cache.set(hash, { value, at: Date.now() });
    }
    return value;
  }

  #fresh(hash: string): KeyWithOrg | null | undefined {
    const hit = this.#cache.get(hash);
    return hit && Date.now() - hit.at < TTL_MS ? hit.value : undefined;
  }

  async #load(hash: string): Promise<KeyWithOrg | null> {
    const [row] = await this.#db.query<{ key: ApiKeyRecord; org: Org }>(
      `SELECT row_to_json(k) AS key, row_to_json(o) AS org
       FROM (SELECT id, org_id, kind, mode, scope, permissions, display, api_version, allowed_origins, allowed_ips,
                    expires_at, revoked_at, replaced_by, created_at
             FROM api_keys WHERE secret_hash = $1) k
       JOIN orgs o ON o.id = k.org_id`,
      [hash],
    );
    if (!row) return null;
    const key = row.key;
    const org = row.org;
    return {
      key: {
        ...key,
        expires_at: key.expires_at ? new Date(key.expires_at) : null,
        revoked_at: key.revoked_at ? new Date(key.revoked_at) : null,
        created_at: new Date(key.created_at),
      },
      // As the key's mode sees it: test mode's widget settings stay in test mode.
      org: orgInMode({ ...org, created_at: new Date(org.created_at) }, key.mode),
    };
  }
}
