import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { createApp } from '../app.js';
import { DEFAULT_CATALOG } from '../cli/seed.js';
import { readConfig } from '../config.js';
import { createDatabase, type Database } from '../db/database.js';
import { openPglite } from '../db/pglite.js';
import { openPostgres } from '../db/postgres.js';
import { createCatalogDrafter } from '../drafting/catalog-drafter.js';
import { createLogger } from '../logger.js';
import { createApiKey } from '../services/api-keys.js';
import { KeyStore } from '../services/key-store.js';
import { readCatalog, type SeedResult, seedDemo } from '../services/seed.js';
import type { AppDeps } from '../types.js';

/** Options of {@link createTestContext}. */
export interface TestContextOptions {
  idempotencyStaleSeconds?: number;
  mailer?: import('../services/mailer.js').Mailer | null;
  drafter?: import('../drafting/types.js').Drafter;
  /** Extra environment for {@link readConfig}. */
  env?: Record<string, string>;
  /** Serves the demo seller page, as `npm start` does: the seed's keys in a demo keys file. */
  sellerPage?: boolean;
}

/** A fresh database of the backend under test, with the demo seed, and the app over it. */
export interface TestContext {
  db: Database;
  deps: AppDeps;
  app: ReturnType<typeof createApp>;
  seed: SeedResult;
  /** Moves the app's clock; `undefined` goes back to real time. */
  setNow(date: Date | undefined): void;
  /** Calls the app without a port, like a client would (JSON body, bearer key). */
  call(method: string, path: string, init?: CallInit): Promise<Response>;
  /**
   * Another server process on the same database, PostgreSQL only: its own connections, key store
   * (hearing changes through LISTEN/NOTIFY), memory and app. Closed with the context.
   */
  openPeer(): Promise<{ app: ReturnType<typeof createApp>; deps: AppDeps }>;
  close(): Promise<void>;
}

export interface CallInit {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

let counter = 0;

/** Opens a database copied from the migrated template of the backend under test. */
export async function openTestDatabase(): Promise<{
  db: Database;
  /** The database's URL on PostgreSQL, for a second pool (another process's); undefined on PGlite. */
  url?: string;
  cleanup: () => Promise<void>;
}> {
  if (inject('testDb') === 'postgres') {
    const adminUrl = inject('pgAdminUrl');
    const name = `svc_t_${process.pid}_${Date.now()}_${counter++}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('pgTemplate')}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const db = createDatabase(await openPostgres(url.toString(), { max: 10 }));
    return {
      db,
      url: url.toString(),
      async cleanup() {
        await db.close();
        const client = new pg.Client({ connectionString: adminUrl });
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await client.end();
      },
    };
  }
  const root = mkdtempSync(join(tmpdir(), 'svc-db-'));
  cpSync(inject('pgliteTemplate'), join(root, 'pglite'), { recursive: true });
  const db = createDatabase(await openPglite(join(root, 'pglite')));
  return {
    db,
    async cleanup() {
      await db.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Builds a {@link TestContext}: one per test file (`beforeAll`), an organization per concern. */
export async function createTestContext(options: TestContextOptions = {}): Promise<TestContext> {
  const { db, url, cleanup } = await openTestDatabase();
  const keysDir = options.sellerPage ? mkdtempSync(join(tmpdir(), 'svc-seller-')) : undefined;
  const config = readConfig({
    LOG_LEVEL: 'silent',
    PUBLIC_URL: 'http://svc.test',
    TRUST_PROXY: '1',
    ...(keysDir ? { DEMO_KEYS_FILE: join(keysDir, 'demo-keys.json') } : {}),
    ...options.env,
  });
  const keys = new KeyStore(db);
  await keys.start();
  let fixedNow: Date | undefined;
  const deps: AppDeps = {
    db,
    config,
    keys,
    logger: createLogger('silent'),
    mailer: options.mailer ?? null,
    drafter: options.drafter ?? createCatalogDrafter(),
    now: () => fixedNow ?? new Date(),
    idempotencyStaleSeconds: options.idempotencyStaleSeconds ?? 60,
  };
  const app = createApp(deps);
  const peers: (() => Promise<void>)[] = [];
  const seed = await seedDemo(db, readCatalog(DEFAULT_CATALOG), {
    origins: [
      'http://127.0.0.1:8787',
      'http://localhost:8787',
      'https://shop.example',
      'https://*.nopal.example',
    ],
  });
  if (keysDir) writeFileSync(join(keysDir, 'demo-keys.json'), JSON.stringify({ keys: seed.keys }));
  return {
    db,
    deps,
    app,
    seed,
    setNow(date) {
      fixedNow = date;
    },
    call(method, path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      if (init.key) headers.authorization = `Bearer ${init.key}`;
      let body: string | undefined;
      if (init.body !== undefined) {
        body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
        headers['content-type'] ??= 'application/json';
      }
      return Promise.resolve(app.request(path, { method, headers, body }));
    },
    async openPeer() {
      if (!url) throw new Error('openPeer: another process shares a database on PostgreSQL only');
      const peerDb = createDatabase(await openPostgres(url, { max: 4 }));
      const peerKeys = new KeyStore(peerDb);
      await peerKeys.start();
      const peerDeps: AppDeps = { ...deps, db: peerDb, keys: peerKeys };
      const peerApp = createApp(peerDeps);
      peers.push(async () => {
        await peerApp.close();
        await peerKeys.stop();
        await peerDb.close();
      });
      return { app: peerApp, deps: peerDeps };
    },
    async close() {
      for (const closePeer of peers) await closePeer();
      await app.close();
      await keys.stop();
      await cleanup();
      if (keysDir) rmSync(keysDir, { recursive: true, force: true });
    },
  };
}

/** A restricted test key of the demo organization with `permissions` (write scope by default). */
export async function restrictedKey(
  t: TestContext,
  permissions: Record<string, 'read' | 'write'>,
  scope: 'read' | 'write' = 'write',
): Promise<string> {
  const created = await createApiKey(t.db, {
    orgId: t.seed.org.id,
    kind: 'restricted',
    mode: 'test',
    scope,
    permissions,
  });
  return created.key;
}
