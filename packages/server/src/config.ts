import { join } from 'node:path';

/** Server settings read from the environment (see README, "Configuration"). */
export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  publicUrl: string;
  /** Trust `X-Forwarded-For` for the client IP (behind a load balancer). */
  trustProxy: boolean;
  ai: { baseUrl: string | undefined; model: string | undefined; apiKey: string | undefined };
  smtpUrl: string | undefined;
  /** Live-mode fiscal provider (PAC) for Mexican invoices; none: live stamping fails closed. */
  fiscal: {
    provider: string | undefined;
    url: string | undefined;
    user: string | undefined;
    password: string | undefined;
  };
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Seconds a webhook worker's claim holds before another may retry it. @defaultValue 60 */
  webhookLeaseSeconds: number;
  /** Requests per minute per secret or restricted key. @defaultValue 600 (the spec's figure) */
  keyRateLimit: number;
  /**
   * The demo keys the demo pages use (written by `svc-server seed`). `serve` defaults it to
   * {@link demoKeysFileOf}; read here only from `DEMO_KEYS_FILE`, so that tests opt in.
   */
  demoKeysFile: string | undefined;
  /** Local tests only: lets webhooks target http://127.0.0.1. */
  unsafeAllowLoopbackWebhooks: boolean;
}

/** The API version of this server; the only one there is. */
export const API_VERSION = '2026-10-01';

/** Reads {@link ServerConfig} from `env`, with the defaults of design.md section 3. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const port = portOf(env.PORT);
  const host = env.HOST ?? '127.0.0.1';
  const level = (env.LOG_LEVEL ?? 'info').toLowerCase();
  return {
    port,
    host,
    dataDir: env.DATA_DIR ?? './.data',
    databaseUrl: env.DATABASE_URL || undefined,
    publicUrl: (env.PUBLIC_URL || `http://${host}:${port}`).replace(/\/+$/, ''),
    trustProxy: env.TRUST_PROXY === '1' || env.TRUST_PROXY === 'true',
    ai: {
      baseUrl: env.AI_BASE_URL || undefined,
      model: env.AI_MODEL || undefined,
      apiKey: env.AI_API_KEY || undefined,
    },
    smtpUrl: env.SMTP_URL || undefined,
    fiscal: {
      provider: env.FISCAL_PROVIDER || undefined,
      url: env.FISCAL_URL || undefined,
      user: env.FISCAL_USER || undefined,
      password: env.FISCAL_PASSWORD || undefined,
    },
    logLevel: (['debug', 'info', 'warn', 'error', 'silent'].includes(level)
      ? level
      : 'info') as ServerConfig['logLevel'],
    unsafeAllowLoopbackWebhooks: env.SVC_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS === '1',
    demoKeysFile: env.DEMO_KEYS_FILE || undefined,
    webhookLeaseSeconds:
      Number(env.SVC_WEBHOOK_LEASE_SECONDS) > 0 ? Number(env.SVC_WEBHOOK_LEASE_SECONDS) : 60,
    keyRateLimit: Number(env.SVC_KEY_RATE_LIMIT) > 0 ? Number(env.SVC_KEY_RATE_LIMIT) : 600,
  };
}

/**
 * Where `svc-server seed` writes the demo keys and `svc-server serve` reads them: `DEMO_KEYS_FILE`,
 * else `demo-keys.json` in the data directory (`DATA_DIR`, also with `DATABASE_URL`); an empty
 * `DEMO_KEYS_FILE` turns them off (no file written, the demo pages without keys).
 */
export function demoKeysFileOf(env: NodeJS.ProcessEnv, dataDir: string): string | undefined {
  if (env.DEMO_KEYS_FILE !== undefined) return env.DEMO_KEYS_FILE || undefined;
  return join(dataDir, 'demo-keys.json');
}

/** `PORT` as a number (8787 when unset); a value that is not a port stops the start, loudly. */
function portOf(value: string | undefined): number {
  const text = value?.trim() ?? '';
  if (text === '') return 8787;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) {
    throw new Error(`PORT must be a whole number from 0 to 65535, not "${value}"`);
  }
  return Number(text);
}
