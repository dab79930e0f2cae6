import { ApiError } from '../errors.js';
import { keysCommand } from './keys.js';
import { mcpCommand } from './mcp.js';
import { orgsCommand } from './orgs.js';
import { seedCommand } from './seed.js';
import { serveCommand } from './serve.js';

const USAGE = `svc-server: the quoting service

Usage:
  svc-server serve [--port N] [--host H]
  svc-server seed [--json] [--origin URL]... [--catalog PATH]
  svc-server keys create --org ID --kind secret|publishable|restricted --mode test|live --scope read|write
                         [--origin URL]... [--ip IP]... [--expires ISO_DATE] [--permission RESOURCE=read|write]... [--json]
  svc-server keys rotate KEY_ID [--grace HOURS] [--json]
  svc-server keys revoke KEY_ID
  svc-server orgs create --name NAME --plan free|starter|professional|scale|developer [--country XX] [--currency XXX]
                         [--notify-email ADDRESS] [--json]
  svc-server mcp --key KEY      the agent interface (MCP) over stdio

Environment: PORT, HOST, DATA_DIR, DATABASE_URL, PUBLIC_URL, TRUST_PROXY, AI_BASE_URL, AI_MODEL, AI_API_KEY,
SMTP_URL, FISCAL_PROVIDER, FISCAL_URL, FISCAL_USER, FISCAL_PASSWORD, LOG_LEVEL, DEMO_KEYS_FILE, SVC_KEY_RATE_LIMIT,
SVC_WEBHOOK_LEASE_SECONDS, SVC_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS (local tests only), SVC_API_KEY (mcp).
Each is described in docs/operations.md.
`;

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serveCommand(rest);
      case 'seed':
        return await seedCommand(rest);
      case 'keys':
        return await keysCommand(rest);
      case 'orgs':
        return await orgsCommand(rest);
      case 'mcp':
        return await mcpCommand(rest);
      case undefined:
        // No command is an error: the usage goes where errors go.
        process.stderr.write(USAGE);
        return 1;
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(USAGE);
        return 0;
      default:
        process.stderr.write(`svc-server: unknown command "${command}"\n\n${USAGE}`);
        return 1;
    }
  } catch (error) {
    process.stderr.write(failure(command, rest, error));
    return 1;
  }
}

/**
 * What a failed command writes on stderr: its message, and for a refusal of the service (a plan's
 * key limit, an origin refused) its code too; with `--json`, the API's flat error body, so a
 * script reads `code`, `limit` and `plan` as it would from the API.
 */
function failure(command: string | undefined, args: string[], error: unknown): string {
  const { message } = error as Error;
  if (!(error instanceof ApiError)) return `svc-server ${command}: ${message}\n`;
  if (args.includes('--json'))
    return `${JSON.stringify({ error: message, code: error.code, ...error.extra })}\n`;
  return `svc-server ${command}: ${message} (${error.code})\n`;
}
