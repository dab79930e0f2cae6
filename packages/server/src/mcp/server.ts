import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { API_VERSION } from '../config.js';
import { errorDocUrl } from '../http/error-handler.js';
import { requestId } from '../ids.js';
import { KEY_RE } from '../middleware/idempotency.js';
import { MCP_CHANNEL_HEADER, MCP_CHANNEL_TOKEN } from './channel.js';
import { TOOLS, type Tool, type ToolRoute } from './tools.js';

/** Fetches from the app itself (its `fetch`), with the caller's connection as Node's env. */
export type AppFetch = (request: Request, env?: unknown) => Response | Promise<Response>;

/**
 * An MCP server whose tools are the REST operations of {@link TOOLS}, each run through the app
 * with the caller's key and address (its connection as `env`, and the `X-Forwarded-For` it came
 * with, read only behind a trusted proxy): a refusal there (scope, validation, state, limits, the
 * key's IP allowlist) comes back as a tool error carrying the same `{ error, code }`.
 */
export function createMcpServer(
  appFetch: AppFetch,
  key: string,
  caller: { env?: unknown; forwardedFor?: string } = {},
): Server {
  const server = new Server(
    { name: 'svc-quote', version: API_VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        'Quotes, invoices, collections, tasks and workflows of one organization, with the API key you connected with. Money is in major units; ids are UUIDs.',
    },
  );
  const call = async (route: ToolRoute, idempotencyKey: string | undefined) => {
    const query =
      route.query && Object.keys(route.query).length ? `?${new URLSearchParams(route.query)}` : '';
    const headers: Record<string, string> = {
      authorization: `Bearer ${key}`,
      [MCP_CHANNEL_HEADER]: MCP_CHANNEL_TOKEN,
    };
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    if (caller.forwardedFor !== undefined) headers['x-forwarded-for'] = caller.forwardedFor;
    if (route.body !== undefined) headers['content-type'] = 'application/json';
    return appFetch(
      new Request(`http://mcp.internal/api/v1${route.path}${query}`, {
        method: route.method,
        headers,
        ...(route.body !== undefined ? { body: JSON.stringify(route.body) } : {}),
      }),
      caller.env,
    );
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map((tool) => ({
      name: tool.name,
      description: tool.description,
      // A reading tool refuses an argument it does not take (wrongArgument): its schema says so.
      inputSchema: (tool.writes
        ? tool.inputSchema
        : { ...tool.inputSchema, additionalProperties: false }) as {
        type: 'object';
      },
      annotations: { readOnlyHint: !tool.writes },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = TOOLS.find((candidate) => candidate.name === request.params.name);
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    // An unknown tool is a protocol error (MCP: invalid params), not a tool's refusal.
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const wrong = wrongArgument(tool, args);
    if (wrong) return refusal(wrong, 'invalid_request');
    if (
      args.idempotency_key !== undefined &&
      (typeof args.idempotency_key !== 'string' || !KEY_RE.test(args.idempotency_key))
    ) {
      return refusal(
        'idempotency_key: must be 1 to 255 visible ASCII characters (no spaces)',
        'invalid_idempotency_key',
      );
    }
    const response = await call(tool.route(args), args.idempotency_key as string | undefined);
    const body = (await response
      .json()
      .catch(() => ({ error: 'The service answered without JSON.', code: 'internal_error' }))) as Record<
      string,
      unknown
    >;
    // What REST says in headers an agent cannot see: how long to wait, and that this is a replay.
    const retryAfter = response.headers.get('retry-after');
    if (!response.ok && retryAfter) body.retry_after = Number(retryAfter);
    const result = toolResult(body, !response.ok);
    return response.headers.get('idempotent-replayed') === 'true'
      ? { ...result, _meta: { idempotent_replayed: true } }
      : result;
  });
  return server;
}

/** A refusal made here, before any operation runs: the flat error body REST would give. */
const refusal = (error: string, code: string) =>
  toolResult({ error, code, request_id: requestId(), doc_url: errorDocUrl(code) }, true);

/**
 * What is wrong with the arguments before they become a request, as REST would say it: a missing
 * or non-string `id` (it would become a path that names no operation), or, for the tools that
 * read (a query string, where REST refuses unknown parameters), an argument the tool does not take.
 */
function wrongArgument(tool: Tool, args: Record<string, unknown>): string | undefined {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
  if ('id' in properties && typeof args.id !== 'string') return 'id: required, the record id (a string)';
  if (tool.writes) return undefined;
  const unknown = Object.keys(args).filter((name) => !(name in properties));
  return unknown.length ? `${unknown.join(', ')}: unknown argument` : undefined;
}

/** A tool's answer: the REST body as structured content and as text, flagged when an error. */
function toolResult(body: Record<string, unknown>, isError: boolean) {
  return {
    content: [{ type: 'text' as const, text: JSON.stringify(body) }],
    structuredContent: body,
    ...(isError ? { isError: true } : {}),
  };
}
