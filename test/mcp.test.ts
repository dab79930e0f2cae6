import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from './support/postgres.js';
import { CLI, cli, ROOT, type ServerProcess, startServerProcess } from './support/processes.js';

/**
 * The agent interface (MCP) through the SDK's own client, over both transports: Streamable HTTP
 * against a running server, and stdio against `svc-server mcp --key`. The key's rules are the
 * REST ones: a read key cannot write, bad arguments are refused with the same codes.
 */
describe('MCP: the same operations as REST, under the same rules', () => {
  let database: Awaited<ReturnType<typeof createPgDatabase>>;
  let server: ServerProcess;
  let env: Record<string, string>;
  let keys: { sk_test_write: string; sk_test_read: string; pk_test: string };

  beforeAll(async () => {
    database = await createPgDatabase('svc_mcp');
    env = { DATABASE_URL: database.url };
    keys = JSON.parse((await cli(['seed', '--json'], env)).stdout).keys;
    server = await startServerProcess(env);
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  const overHttp = async (key: string) => {
    const client = new Client({ name: 'svc-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    return client;
  };
  const overStdio = async (key: string) => {
    const client = new Client({ name: 'svc-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', '--key', key],
        cwd: ROOT,
        env: { ...(process.env as Record<string, string>), ...env, LOG_LEVEL: 'warn' },
        stderr: 'pipe',
      }),
    );
    return client;
  };
  type Result = { isError?: boolean; structuredContent?: Record<string, any> };

  for (const [name, connect] of [
    ['Streamable HTTP (POST /mcp)', overHttp],
    ['stdio (svc-server mcp)', overStdio],
  ] as const) {
    describe(name, () => {
      it('lists the tools of design.md section 15 with input schemas from the valibot schemas', async () => {
        const client = await connect(keys.sk_test_write);
        try {
          const { tools } = await client.listTools();
          expect(tools.map((t) => t.name).sort()).toEqual(
            [
              'list_quotes',
              'get_quote',
              'create_quote',
              'quote_action',
              'draft_items',
              'list_invoices',
              'create_invoice',
              'invoice_action',
              'get_collections',
              'create_task',
              'invoke_workflow',
              'propose_setup_plan',
              'get_setup_plan',
            ].sort(),
          );
          const create = tools.find((t) => t.name === 'create_quote')!;
          expect(create.inputSchema.required).toContain('items');
          expect(Object.keys(create.inputSchema.properties ?? {})).toEqual(
            expect.arrayContaining(['items', 'cliente', 'cupon', 'idempotency_key']),
          );
          // The reading tools refuse an argument they do not take, and their schemas say so.
          expect(tools.find((t) => t.name === 'list_quotes')!.inputSchema.additionalProperties).toBe(false);
        } finally {
          await client.close();
        }
      });

      it('creates a quote (origen agente, actor mcp:<key>), once per idempotency key, and reads it back', async () => {
        const client = await connect(keys.sk_test_write);
        try {
          const args = {
            cliente: { empresa: `Agente ${name}` },
            items: [{ descripcion: 'Servicio', cantidad: 2, precio_unitario: 1000 }],
            cupon: 'BIENVENIDA10',
            idempotency_key: `mcp-${name.replace(/\W+/g, '-')}`,
          };
          const created = (await client.callTool({ name: 'create_quote', arguments: args })) as Result;
          expect(created.isError, JSON.stringify(created.structuredContent)).toBeFalsy();
          const quote = created.structuredContent!.data;
          expect(quote).toMatchObject({ folio: expect.stringMatching(/^COT-\d{6}$/), total: 2088 });
          const replay = (await client.callTool({ name: 'create_quote', arguments: args })) as Result;
          expect(replay.structuredContent!.data.id).toBe(quote.id);
          // What REST says with Idempotent-Replayed: true.
          expect((replay as { _meta?: Record<string, unknown> })._meta).toEqual({
            idempotent_replayed: true,
          });
          expect((created as { _meta?: unknown })._meta).toBeUndefined();
          const detail = (await client.callTool({
            name: 'get_quote',
            arguments: { id: quote.id },
          })) as Result;
          expect(detail.structuredContent!.data).toMatchObject({ id: quote.id, origen: 'agente' });
          const events = await (
            await fetch(`${server.url}/api/v1/events?object_id=${quote.id}`, {
              headers: { Authorization: `Bearer ${keys.sk_test_read}` },
            })
          ).json();
          expect(events.data[0].actor).toMatch(/^mcp:[0-9a-f-]{36}$/);
        } finally {
          await client.close();
        }
      });

      it('refuses a write with a read key as a tool error carrying insufficient_scope', async () => {
        const client = await connect(keys.sk_test_read);
        try {
          const refused = (await client.callTool({
            name: 'create_quote',
            arguments: {
              cliente: { empresa: 'X' },
              items: [{ descripcion: 'x', cantidad: 1, precio_unitario: 1 }],
            },
          })) as Result;
          expect(refused.isError).toBe(true);
          expect(refused.structuredContent).toMatchObject({ code: 'insufficient_scope' });
          const listed = (await client.callTool({ name: 'list_quotes', arguments: { limit: 1 } })) as Result;
          expect(listed.isError).toBeFalsy();
        } finally {
          await client.close();
        }
      });

      it('refuses a bad argument with invalid_request naming the field', async () => {
        const client = await connect(keys.sk_test_write);
        try {
          const bad = (await client.callTool({
            name: 'create_quote',
            arguments: {
              cliente: { empresa: 'X' },
              items: [{ descripcion: 'x', cantidad: -3, precio_unitario: 1 }],
            },
          })) as Result;
          expect(bad.isError).toBe(true);
          expect(bad.structuredContent).toMatchObject({ code: 'invalid_request' });
          expect(bad.structuredContent!.error).toContain('cantidad');
          // A tool that does not exist is the protocol's error (invalid params), not a tool's.
          await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({
            code: -32602,
            message: expect.stringContaining('no_such_tool'),
          });
          // Text that cannot travel as a header or a path is refused like any bad argument.
          const key = (await client.callTool({
            name: 'create_quote',
            arguments: {
              cliente: { empresa: 'X' },
              items: [{ descripcion: 'x', cantidad: 1, precio_unitario: 1 }],
              idempotency_key: 'clave ✓',
            },
          })) as Result;
          expect(key.structuredContent).toMatchObject({ code: 'invalid_idempotency_key' });
          const id = (await client.callTool({ name: 'get_quote', arguments: { id: 'x\ud800' } })) as Result;
          expect(id.structuredContent).toMatchObject({ code: 'not_found' });
          // Dots are an id nothing has, not a step out of the operation's path.
          for (const [name, args] of [
            ['get_quote', { id: '..' }],
            ['get_quote', { id: '.' }],
            ['invoke_workflow', { id: '..', input: {} }],
          ] as const) {
            const dots = (await client.callTool({ name, arguments: args })) as Result;
            expect(dots.structuredContent).toMatchObject({ code: 'not_found' });
            expect(dots.structuredContent!.error).not.toContain('No route');
          }
          const text = (await client.callTool({
            name: 'create_quote',
            arguments: {
              cliente: { empresa: 'X' },
              items: [{ descripcion: 'x\ud800', cantidad: 1, precio_unitario: 1 }],
            },
          })) as Result;
          expect(text.structuredContent).toMatchObject({ code: 'invalid_request' });
          // Checked before any request is built, with the flat body REST gives: a missing id (it
          // made a path naming no operation), an argument a reading tool does not take.
          for (const [tool, args, field] of [
            ['get_quote', {}, 'id'],
            ['quote_action', { action: 'send' }, 'id'],
            ['list_quotes', { bogus: 1 }, 'bogus'],
          ] as const) {
            const refused = (await client.callTool({ name: tool, arguments: args })) as Result;
            expect(refused.isError).toBe(true);
            expect(refused.structuredContent).toMatchObject({
              code: 'invalid_request',
              request_id: expect.stringMatching(/^req_/),
              doc_url: expect.stringContaining('invalid_request'),
            });
            expect(refused.structuredContent!.error).toContain(field);
          }
        } finally {
          await client.close();
        }
      });
    });
  }

  it('over stdio, answers every call a client sent before closing its input', async () => {
    // A client may write its calls and close stdin at once (a script piping them in): the
    // process must answer them before it closes the database under them.
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'pipe', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'list_quotes', arguments: { limit: 1 } },
      },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_collections', arguments: {} } },
    ];
    const child = spawnSync(process.execPath, [CLI, 'mcp', '--key', keys.sk_test_write], {
      cwd: ROOT,
      env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
      input: messages.map((m) => JSON.stringify(m)).join('\n') + '\n',
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(child.status, child.stderr).toBe(0);
    const answers = child.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    // JSON-RPC lets a server answer in any order: the two tool calls run at once.
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3]);
    for (const answer of answers.slice(1)) expect(answer.result.isError, JSON.stringify(answer)).toBeFalsy();
    expect(child.stderr).not.toMatch(/unhandled/i);
  });

  it('answers 401 without a valid key and 403 with a publishable one, before any tool runs', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    expect((await fetch(`${server.url}/mcp`, { method: 'POST', headers, body })).status).toBe(401);
    const publishable = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${keys.pk_test}` },
      body,
    });
    expect(publishable.status).toBe(403);
    expect((await publishable.json()).code).toBe('insufficient_scope');
  });
});
