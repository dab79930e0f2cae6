import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import { ApiError } from '../errors.js';
import { errorResponse } from '../http/error-handler.js';
import { type AppFetch, createMcpServer } from '../mcp/server.js';
import { authenticate, bearerKey } from '../middleware/authenticate.js';
import type { AppDeps, AppEnv } from '../types.js';

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
        return await transport.handleRequest(c.req.raw);
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
