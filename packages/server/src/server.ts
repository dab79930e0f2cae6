import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { createApp } from './app.js';
import type { ServerConfig } from './config.js';
import type { Database } from './db/database.js';
import { openDatabase } from './db/open.js';
import { createDrafter } from './drafting/index.js';
import { answerClientError } from './http/client-error.js';
import { createLogger, type Logger } from './logger.js';
import { listenerWithFastPath } from './routes/config-fast-path.js';
import { listenerWithWidgetFastPath } from './routes/widget-fast-path.js';
import { KeyStore } from './services/key-store.js';
import { createMailer } from './services/mailer.js';
import { startScheduler } from './services/scheduler.js';
import type { AppDeps } from './types.js';
import { DeliveryWorker } from './webhooks/delivery-worker.js';

/** A running server and how to stop it. */
export interface RunningServer {
  url: string;
  deps: AppDeps;
  close(): Promise<void>;
}

/** Everything a server process needs besides HTTP: database, key cache, clock, logger. */
export async function createDeps(
  config: ServerConfig,
  logger: Logger = createLogger(config.logLevel),
): Promise<AppDeps> {
  const db: Database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const keys = new KeyStore(db);
  await keys.start();
  return {
    db,
    config,
    keys,
    logger,
    mailer: createMailer(config.smtpUrl),
    drafter: createDrafter(config.ai),
    now: () => new Date(),
  };
}

/** Opens the database and serves the app on `config.host:config.port`. */
export async function startServer(config: ServerConfig): Promise<RunningServer> {
  const deps = await createDeps(config);
  const app = createApp(deps);
  // @hono/node-server's listener, behind the fast paths of the widget's configuration, basket
  // preview and submission, which answer on Node's own request before a Fetch Request is built.
  const listener = getRequestListener(app.fetch, { hostname: config.host });
  const server: Server = createServer(
    listenerWithFastPath(app.configFromMemory, listenerWithWidgetFastPath(app.widgetFromMemory, listener)),
  );
  server.on('clientError', answerClientError);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    // A port already taken (EADDRINUSE) or not allowed: one line, and nothing left open.
    await app.close();
    await deps.keys.stop();
    await deps.db.close();
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(
      code === 'EADDRINUSE'
        ? `port ${config.port} on ${config.host} is already in use; set PORT (or --port) to another`
        : `cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`,
    );
  }
  const stopScheduler = startScheduler(deps.db, deps.logger, deps.now, undefined, undefined, deps);
  if (config.unsafeAllowLoopbackWebhooks) {
    deps.logger.warn(
      'SVC_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS=1: webhooks may target http://127.0.0.1. Never enable this in production.',
    );
  }
  const worker = new DeliveryWorker({
    db: deps.db,
    logger: deps.logger,
    now: deps.now,
    publicUrl: config.publicUrl,
    allowLoopback: config.unsafeAllowLoopbackWebhooks,
    mailer: deps.mailer,
    leaseSeconds: config.webhookLeaseSeconds,
  });
  await worker.start();
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  return {
    url,
    deps,
    async close() {
      stopScheduler();
      await worker.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
      await deps.keys.stop();
      await deps.db.close();
    },
  };
}
