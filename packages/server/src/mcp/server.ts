import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { API_VERSION } from '../config.js';
import { KEY_RE } from '../middleware/idempotency.js';
import { MCP_CHANNEL_HEADER, MCP_CHANNEL_TOKEN } from './channel.js';
import { TOOLS, type ToolRoute } from './tools.js';

/** Fetches from the app itself (its `fetch`), with the caller's connection as Node's env. */
export type AppFetch = (request: Request, env?: unknown) => Response | Promise<Response>;

/**
 * An MCP server whose tools are the REST operations of {@link TOOLS}, each run through the app
 * with the caller's key: a refusal there (scope, validation, state, limits) comes back as a tool
 * error carrying the same `{ error, code }`.
 */
export function createMcpServer(appFetch: AppFetch, key: string, env?: unknown): Server {
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
    if (route.body !== undefined) headers['content-type'] = 'application/json';
    return appFetch(
      new Request(`http://mcp.internal/api/v1${route.path}${query}`, {
        method: route.method,
        headers,
        ...(route.body !== undefined ? { body: JSON.stringify(route.body) } : {}),
      }),
      env,
    );
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as { type: 'object' },
      annotations: { readOnlyHint: !tool.writes },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = TOOLS.find((candidate) => candidate.name === request.params.name);
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (!tool)
      return toolResult({ error: `There is no tool named ${request.params.name}.`, code: 'not_found' }, true);
    if (
      args.idempotency_key !== undefined &&
      (typeof args.idempotency_key !== 'string' || !KEY_RE.test(args.idempotency_key))
    ) {
      return toolResult(
        {
          error: 'idempotency_key: must be 1 to 255 visible ASCII characters (no spaces)',
          code: 'invalid_idempotency_key',
        },
        true,
      );
    }
    const response = await call(tool.route(args), args.idempotency_key as string | undefined);
    const body = (await response
      .json()
      .catch(() => ({ error: 'The service answered without JSON.', code: 'internal_error' }))) as Record<
      string,
      unknown
    >;
    return toolResult(body, !response.ok);
  });
  return server;
}

/** A tool's answer: the REST body as structured content and as text, flagged when an error. */
function toolResult(body: Record<string, unknown>, isError: boolean) {
  return {
    content: [{ type: 'text' as const, text: JSON.stringify(body) }],
    structuredContent: body,
    ...(isError ? { isError: true } : {}),
  };
}
