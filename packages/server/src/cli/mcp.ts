import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createApp } from '../app.js';
import { readConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { createMcpServer } from '../mcp/server.js';
import { createDeps } from '../server.js';

/**
 * `svc-server mcp --key KEY`: the agent interface over stdio, for an assistant that starts the
 * service as a subprocess. Every tool runs the REST operation through the app with KEY, so the
 * key's scope, mode, limits and idempotency apply as over HTTP. Logs go to stderr: stdout is the
 * protocol's.
 */
export async function mcpCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { key: { type: 'string' } } });
  const key = values.key ?? process.env.SVC_API_KEY;
  if (!key) throw new Error('--key is required (a secret or restricted key), or set SVC_API_KEY');
  const config = readConfig();
  const deps = await createDeps(config, createLogger(config.logLevel === 'debug' ? 'debug' : 'warn'));
  const found = await deps.keys.find(key);
  const refusal =
    !found || found.key.revoked_at
      ? 'the API key is not valid'
      : found.key.expires_at && found.key.expires_at.getTime() <= deps.now().getTime()
        ? 'the API key has expired'
        : found.key.kind === 'publishable'
          ? 'the agent interface takes a secret or restricted key'
          : undefined;
  if (refusal) {
    // Closed before saying so: an open pool or LISTEN connection would keep the process running.
    await deps.keys.stop();
    await deps.db.close();
    throw new Error(refusal);
  }
  const app = createApp(deps);
  let running = 0;
  const server = createMcpServer(async (request) => {
    running++;
    try {
      return await app.fetch(request);
    } finally {
      running--;
    }
  }, key);
  await server.connect(new StdioServerTransport());
  await new Promise<void>((resolve) => {
    server.onclose = resolve;
    process.stdin.on('end', resolve);
  });
  // A client may send its calls and close stdin at once: those still running are answered before
  // the database closes under them. Quiet means no call running for 50 ms, which also lets the
  // protocol write the last answers.
  for (let quiet = 0; quiet < 5; quiet = running === 0 ? quiet + 1 : 0) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await new Promise((resolve) => process.stdout.write('', resolve));
  await app.close();
  await deps.keys.stop();
  await deps.db.close();
  return 0;
}
