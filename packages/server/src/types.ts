import type { ServerConfig } from './config.js';
import type { Database } from './db/database.js';
import type { Drafter } from './drafting/types.js';
import type { Logger } from './logger.js';
import type { IdempotentCall } from './middleware/idempotency-batched.js';
import type { DeferredLimit } from './middleware/rate-limit.js';
import type { KeyStore, KeyWithOrg } from './services/key-store.js';
import type { Mailer } from './services/mailer.js';
import type { Resolver } from './webhooks/url-guard.js';

/** Everything the app needs from outside; tests build their own. */
export interface AppDeps {
  db: Database;
  config: ServerConfig;
  keys: KeyStore;
  logger: Logger;
  /** Drafts quote lines from plain words (catalog drafter, or an LLM with AI_BASE_URL). */
  drafter: Drafter;
  /** SMTP for clients' e-mails; null keeps every message in the outbox. */
  mailer: Mailer | null;
  /** The clock; tests move it. */
  now: () => Date;
  /** Resolves webhook hosts; tests inject one. @defaultValue the system resolver */
  webhookResolver?: Resolver;
  /** Seconds after which an idempotency reservation left by a dead process can be retaken. @defaultValue 60 */
  idempotencyStaleSeconds?: number;
}

/** Per-request values middleware sets for the handlers. */
export interface AppVariables {
  requestId: string;
  auth: KeyWithOrg;
  /** Set when a publishable key's allowed origin may read the response (CORS). */
  corsOrigin: string;
  /**
   * Set by a handler whose response already carries every header middleware would add (the
   * request id, the version, CORS; see `apiHeaders`), so that middleware leaves it as it is.
   */
  headersComplete: boolean;
  /**
   * Set instead of counting the per-IP limit when the operation counts it in its own first
   * statement (`perIp.countedByOperation`, on PostgreSQL).
   */
  deferredLimit: DeferredLimit | undefined;
  /**
   * Set for an idempotent call whose operation stores its own response, in the statement that
   * writes (see `middleware/idempotency-batched.ts`).
   */
  idempotentCall: IdempotentCall | undefined;
  /**
   * Set by a streamed answer cut short (its client went away mid-stream): an idempotent call then
   * stores nothing, so that its retry runs again instead of replaying half an answer.
   */
  answerCut: boolean;
}

/** The Hono environment of the app. */
export interface AppEnv {
  Variables: AppVariables;
}
