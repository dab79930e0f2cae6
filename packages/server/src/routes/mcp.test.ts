import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { MCP_MAX_BODY_BYTES } from './mcp.js';

// The rest of the agent interface is tested over real HTTP and stdio in test/mcp.test.ts.
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { SVC_KEY_RATE_LIMIT: '5' } });
});
afterAll(() => t.close());

type Json = Record<string, any>;
const post = (key: string, body: string) =>
  t.app.request('/mcp', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body,
  });
const message = (id: number, method: string, params: Json = {}) => ({ jsonrpc: '2.0', id, method, params });

describe('POST /mcp', () => {
  it('refuses a body over its limit with 413 payload_too_large, before any message runs', async () => {
    const huge = JSON.stringify(message(1, 'tools/list', { pad: 'x'.repeat(MCP_MAX_BODY_BYTES) }));
    await expectError(await post(t.seed.keys.sk_test_write, huge), 413, 'payload_too_large');
  });

  it("counts what is not a tool call in the key's window, and a tool call once, by its operation", async () => {
    const key = t.seed.keys.sk_test_read;
    // The window allows 5 (SVC_KEY_RATE_LIMIT): two tool calls and three listings fit, each once.
    const call = message(1, 'tools/call', { name: 'list_quotes', arguments: { limit: 1 } });
    for (let i = 0; i < 2; i++) {
      const res = await post(key, JSON.stringify(call));
      expect(res.status).toBe(200);
      expect(((await res.json()) as Json).result.isError).toBeFalsy();
    }
    for (let i = 0; i < 3; i++)
      expect((await post(key, JSON.stringify(message(2, 'tools/list')))).status).toBe(200);
    const flooded = await post(key, JSON.stringify(message(3, 'tools/list')));
    const error = await expectError(flooded, 429, 'rate_limited');
    expect(error.error).toBeTruthy();
    expect(Number(flooded.headers.get('retry-after'))).toBeGreaterThan(0);
    // A tool call past the window is the operation's refusal, as a tool error with its code.
    const refused = (await (await post(key, JSON.stringify(call))).json()) as Json;
    expect(refused.result).toMatchObject({ isError: true, structuredContent: { code: 'rate_limited' } });
  });
});
