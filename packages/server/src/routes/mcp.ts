import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import { ApiError } from '../errors.js';
import { errorResponse } from '../http/error-handler.js';
import { readBodyBytes } from '../http/json-body.js';
import { type AppFetch, createMcpServer } from '../mcp/server.js';
import { authenticate, bearerKey } from '../middleware/authenticate.js';
import { enforceRateLimit, KEY_RATE_LIMIT } from '../middleware/rate-limit.js';
import type { AppDeps, AppEnv } from '../types.js';

/** Largest body of `POST /mcp`: a few tool calls of the REST operations' largest body. */
export const MCP_MAX_BODY_BYTES = 256 * 1024;

/**
 * The JSON-RPC messages of a body (one, or a batch), with the value parsed; undefined when it is
 * not JSON, which the transport answers with the protocol's parse error.
 */
function parsedMessages(bytes: Uint8Array) {
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
  const list = (Array.isArray(body) ? body : [body]) as ({ method?: unknown } | null)[];
  return Object.assign(list, { body });
}

/**
 * `POST /mcp`: the agent interface over Streamable HTTP, stateless (each request carries its key
 * and needs no session). The bearer key is checked here (401/403 before anything runs) and again
 * by every operation a tool calls, exactly as a REST call.
 */
export function mcpRoutes(deps: AppDeps, appFetch: AppFetch) {
  return new Hono<AppEnv>()
    .post('/mcp', async (c) => {
      const auth = await authenticate(c, deps);
      if (auth.key.kind === 'publishable') {
        throw new ApiError(
          403,
          'insufficient_scope',
          'The agent interface takes a secret or restricted key, never a publishable one.',
        );
      }
      // The body is read here, within a limit: a JSON-RPC batch of tool calls, each of which the
      // REST operation it runs limits to 64 KiB again.
      const bytes = await readBodyBytes(c, MCP_MAX_BODY_BYTES);
      const messages = parsedMessages(bytes);
      // A tool call is counted in the key's window by the operation it runs; anything else (the
      // handshake, listing the tools) by the request itself, so that it cannot flood either.
      if (messages === undefined || messages.some((m) => m?.method !== 'tools/call')) {
        await enforceRateLimit(
          deps.db,
          `key:${auth.key.id}`,
          deps.config.keyRateLimit ?? KEY_RATE_LIMIT,
          deps.now(),
        );
      }
      const key = bearerKey(c);
      const server = createMcpServer(appFetch, key, {
        env: c.env,
        forwardedFor: c.req.header('x-forwarded-for'),
      });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      try {
        const request = new Request(c.req.raw.url, {
          method: 'POST',
          headers: c.req.raw.headers,
          body: bytes,
        });
        return await transport.handleRequest(
          request,
          messages === undefined ? {} : { parsedBody: messages.body },
        );
      } finally {
        void server.close();
      }
    })
    .on(['GET', 'DELETE', 'PUT', 'PATCH'], '/mcp', (c) =>
      errorResponse(
        c,
        new ApiError(
          405,
          'method_not_allowed',
          'The agent interface is stateless: send JSON-RPC messages with POST /mcp (no event stream, no session to delete).',
          {},
          { Allow: 'POST' },
        ),
      ),
    );
}
