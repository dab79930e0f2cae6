import { parseArgs } from 'node:util';
import { demoKeysFileOf, readConfig } from '../config.js';
import { startServer } from '../server.js';

/** `svc-server serve [--port N] [--host H]`: runs until SIGINT or SIGTERM. */
export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { port: { type: 'string' }, host: { type: 'string' } },
  });
  const env = { ...process.env };
  if (values.port) env.PORT = values.port;
  if (values.host) env.HOST = values.host;
  // The demo pages find the keys `seed` wrote, in the data directory unless DEMO_KEYS_FILE says.
  const config = { ...readConfig(env) };
  config.demoKeysFile = demoKeysFileOf(env, config.dataDir);
  const server = await startServer(config);
  const backend = config.databaseUrl ? 'PostgreSQL' : `PGlite in ${config.dataDir}`;
  process.stderr.write(`svc-server listening on ${server.url} (${backend})\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  return 0;
}
