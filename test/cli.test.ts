import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from './support/postgres.js';
import { cli, ROOT, startServerProcess } from './support/processes.js';

const catalog = JSON.parse(readFileSync(join(ROOT, 'demo/catalog.json'), 'utf8'));
const KEY = (prefix: string) => new RegExp(`^${prefix}_[0-9A-Za-z]{32}$`);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A command that must fail: its exit code, its stdout, and what it said (with --json, the error body's `error`). */
async function refusal(command: Promise<unknown>) {
  const failed = (await command.then(
    () => ({ code: 0, stdout: '', stderr: 'it succeeded' }),
    (error) => error,
  )) as { code: number; stdout: string; stderr: string };
  let said = failed.stderr;
  try {
    said = JSON.parse(said).error;
  } catch {}
  return { code: failed.code, stdout: failed.stdout, said };
}

describe('svc-server CLI on PGlite (DATA_DIR)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  const env = { DATA_DIR: dataDir };
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('seed --json prints exactly the documented object and nothing else, and is safe to run twice', async () => {
    const first = await cli(
      ['seed', '--json', '--origin', 'https://Shop.Example/', '--origin', 'https://shop.example'],
      env,
    );
    const seed = JSON.parse(first.stdout);
    expect(seed.org).toEqual({ id: expect.stringMatching(UUID), nombre: 'Estudio Nopal', plan: 'developer' });
    expect(seed.keys).toEqual({
      sk_test_write: expect.stringMatching(KEY('sk_test')),
      sk_test_read: expect.stringMatching(KEY('sk_test')),
      pk_test: expect.stringMatching(KEY('pk_test')),
      sk_live_write: expect.stringMatching(KEY('sk_live')),
      pk_live: expect.stringMatching(KEY('pk_live')),
    });
    expect(seed.free_org).toEqual({
      id: expect.stringMatching(UUID),
      plan: 'free',
      keys: {
        sk_live_write: expect.stringMatching(KEY('sk_live')),
        sk_test_write: expect.stringMatching(KEY('sk_test')),
      },
    });
    expect(seed.publishable_origins).toEqual([
      'http://127.0.0.1:8787',
      'http://localhost:8787',
      // As the keys store it: the two spellings are one origin.
      'https://shop.example',
    ]);
    expect(seed.products.map((p: { sku: string }) => p.sku)).toEqual(
      catalog.products.map((p: { sku: string }) => p.sku),
    );
    // live_id: the same SKU's id in live mode (design.md allows more fields).
    expect(seed.products[0]).toEqual({
      id: expect.stringMatching(UUID),
      sku: 'LAP-14',
      live_id: expect.stringMatching(UUID),
    });
    expect(seed.products[0].live_id).not.toBe(seed.products[0].id);
    expect(seed.coupons).toEqual(['BIENVENIDA10', 'PROMO500', 'USD50', 'EXPIRADO', 'AGOTADO', 'INACTIVO']);

    const second = JSON.parse((await cli(['seed', '--json'], env)).stdout);
    expect(second.org.id).toBe(seed.org.id);
    expect(second.free_org.id).toBe(seed.free_org.id);
    expect(second.products).toEqual(seed.products);
    expect(second.keys.sk_test_write).not.toBe(seed.keys.sk_test_write);
  });

  it('orgs create and keys create print JSON, and the new key works against serve', async () => {
    const org = JSON.parse(
      (await cli(['orgs', 'create', '--name', 'Imprenta Sol', '--plan', 'starter', '--json'], env)).stdout,
    );
    expect(org).toEqual({
      id: expect.stringMatching(UUID),
      nombre: 'Imprenta Sol',
      plan: 'starter',
      country: 'MX',
      currency: 'MXN',
    });
    const spanish = JSON.parse(
      (
        await cli(
          [
            'orgs',
            'create',
            '--name',
            'Estudio Olivo',
            '--plan',
            'developer',
            '--country',
            'ES',
            '--currency',
            'EUR',
            '--json',
          ],
          env,
        )
      ).stdout,
    );
    expect(spanish).toMatchObject({ country: 'ES', currency: 'EUR' });
    const created = JSON.parse(
      (
        await cli(
          [
            'keys',
            'create',
            '--org',
            org.id,
            '--kind',
            'secret',
            '--mode',
            'live',
            '--scope',
            'read',
            '--json',
          ],
          env,
        )
      ).stdout,
    );
    expect(created.key).toMatch(KEY('sk_live'));
    expect(created.id).toMatch(UUID);
    // Restricted keys name their resources: test_mode is one, the sandbox reset its operation.
    const restricted = async (...permissions: string[]) =>
      JSON.parse(
        (
          await cli(
            [
              ...['keys', 'create', '--org', org.id, '--kind', 'restricted', '--mode', 'test'],
              ...['--scope', 'write', '--json', ...permissions.flatMap((p) => ['--permission', p])],
            ],
            env,
          )
        ).stdout,
      ).key as string;
    const resetter = await restricted('test_mode=write');
    const reader = await restricted('cotizaciones=read');

    const server = await startServerProcess(env);
    try {
      const res = await fetch(`${server.url}/api/v1/me`, {
        headers: { authorization: `Bearer ${created.key}` },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        data: { org: { id: org.id, plan: 'starter' }, scope: 'read', mode: 'live' },
      });
      const reset = (key: string) =>
        fetch(`${server.url}/api/test-mode/reset`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}` },
        });
      expect(await (await reset(resetter)).json()).toMatchObject({ data: { reset: true, mode: 'test' } });
      const refused = await reset(reader);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: 'insufficient_scope' });
    } finally {
      await server.stop();
    }
  });

  it('refuses bad arguments with a message and a non-zero exit', async () => {
    await expect(cli(['orgs', 'create', '--name', 'X', '--plan', 'gold'], env)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('plan'),
    });
    await expect(cli(['keys', 'create', '--org', 'nope', '--kind', 'secret'], env)).rejects.toMatchObject({
      code: 1,
    });
    await expect(cli(['frobnicate'], env)).rejects.toMatchObject({ code: 1 });
    // No command is an error too: the usage goes to stderr; asked for, to stdout.
    await expect(cli([], env)).rejects.toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringContaining('Usage:\n  svc-server serve'),
    });
    expect(await cli(['--help'], env)).toEqual({
      stdout: expect.stringContaining('Usage:\n  svc-server serve'),
      stderr: '',
    });
    // Codes of the form but of no country or currency.
    for (const [flag, value] of [
      ['--country', 'ZZ'],
      ['--currency', 'ZZZ'],
    ]) {
      await expect(
        cli(['orgs', 'create', '--name', 'X', '--plan', 'free', flag!, value!], env),
      ).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining(`${flag} must be an ISO`),
      });
    }
    // Permissions name the resources the service knows, and only restricted keys take them.
    const key = [
      'keys',
      'create',
      '--org',
      '00000000-0000-4000-8000-000000000000',
      '--mode',
      'test',
      '--scope',
      'write',
    ];
    await expect(
      cli([...key, '--kind', 'restricted', '--permission', 'foo=write'], env),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        '--permission foo=write: RESOURCE must be one of cotizaciones, facturas',
      ),
    });
    await expect(
      cli([...key, '--kind', 'secret', '--permission', 'facturas=read'], env),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--permission: only restricted keys take permissions'),
    });
    // A key that would be born expired is not made.
    await expect(
      cli([...key, '--kind', 'secret', '--expires', '2020-01-01T00:00:00Z'], env),
    ).rejects.toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringContaining('--expires 2020-01-01T00:00:00Z: the date has passed'),
    });
    // Nor one dated by a day that does not exist (JavaScript reads 2027-02-30 as 2 March), or in
    // a form that is not ISO 8601.
    for (const expires of ['2099-02-30', '2099-06-30T24:00:00Z', '12/17/2099']) {
      await expect(cli([...key, '--kind', 'secret', '--expires', expires], env)).rejects.toMatchObject({
        code: 1,
        stdout: '',
        stderr: expect.stringContaining(`--expires ${expires}: give an ISO 8601 date that exists`),
      });
    }
    // revoke takes the id alone: a flag it has not is refused, not ignored.
    await expect(
      cli(['keys', 'revoke', '00000000-0000-4000-8000-000000000000', '--json'], env),
    ).rejects.toMatchObject({ code: 1, stdout: '' });
  });

  it("says a plan's key limit with its code, as the API's flat error body with --json", async () => {
    const org = JSON.parse(
      (await cli(['orgs', 'create', '--name', 'Dos llaves', '--plan', 'free', '--json'], env)).stdout,
    );
    const key = ['keys', 'create', '--org', org.id, '--kind', 'secret', '--mode', 'test', '--scope', 'write'];
    await cli(key, env);
    await cli(key, env);
    const refused = (await cli([...key, '--json'], env).catch((error) => error)) as Record<string, unknown>;
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(refused.stderr as string)).toEqual({
      error: 'The free plan allows 2 api keys.',
      code: 'plan_limit_reached',
      resource: 'api_keys',
      limit: 2,
      plan: 'free',
    });
    await expect(cli(key, env)).rejects.toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'svc-server keys: The free plan allows 2 api keys. (plan_limit_reached)\n',
    });
  });

  it('keys create and seed refuse a wildcard origin over a top-level domain or one that could never match', async () => {
    const key = [
      ...['keys', 'create', '--org', '00000000-0000-4000-8000-000000000000'],
      ...['--kind', 'publishable', '--mode', 'live', '--scope', 'write'],
    ];
    for (const [args, origin, why] of [
      [key, 'https://*.com', 'is refused: a wildcard covers the subdomains of one site'],
      [key, 'http://*.shop.example', 'is refused: a wildcard origin is https only'],
      [['seed', '--json'], 'https://*.com', 'is refused: a wildcard covers the subdomains of one site'],
    ] as const) {
      expect(await refusal(cli([...args, '--origin', origin], env)), origin).toEqual({
        code: 1,
        stdout: '',
        said: expect.stringContaining(`origin "${origin}" ${why}`),
      });
    }
  });

  it('keys create refuses an --ip that is not an address or a CIDR range, printing no key', async () => {
    const org = JSON.parse(
      (await cli(['orgs', 'create', '--name', 'Red Cerrada', '--plan', 'developer', '--json'], env)).stdout,
    );
    const create = (ip: string) =>
      cli(
        [
          ...['keys', 'create', '--org', org.id, '--kind', 'secret', '--mode', 'test', '--scope', 'write'],
          ...['--ip', '203.0.113.7', '--ip', ip, '--json'],
        ],
        env,
      );
    for (const [ip, problem] of [
      ['10.0.0.0/33', 'has a prefix length that is not a whole number from 0 to 32 (IPv4)'],
      ['10.0.0.0/abc', 'has a prefix length that is not a whole number from 0 to 32 (IPv4)'],
      ['2001:db8::/200', 'has a prefix length that is not a whole number from 0 to 128 (IPv6)'],
      ['bogus', 'is not an IP address or CIDR range'],
    ]) {
      expect(await refusal(create(ip!)), ip).toEqual({
        code: 1,
        stdout: '',
        said: expect.stringContaining(`--ip: "${ip}" ${problem}`),
      });
    }
    const created = JSON.parse((await create('198.51.100.0/24')).stdout);
    expect(created.allowed_ips).toEqual(['203.0.113.7', '198.51.100.0/24']);
  });
});

describe('svc-server serve on PostgreSQL (DATABASE_URL)', () => {
  let database: Awaited<ReturnType<typeof createPgDatabase>>;
  let env: Record<string, string>;
  let seed: { keys: Record<string, string>; org: { id: string } };
  let server: Awaited<ReturnType<typeof startServerProcess>>;

  beforeAll(async () => {
    database = await createPgDatabase('svc_cli');
    env = { DATABASE_URL: database.url };
    seed = JSON.parse((await cli(['seed', '--json'], env)).stdout);
    // Everything the server can say, so the log check below reads all of it.
    server = await startServerProcess({ ...env, LOG_LEVEL: 'debug' });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  const me = (authorization?: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/api/v1/me`, { headers: authorization ? { authorization, ...headers } : headers });

  it('answers GET /api/v1/me and every documented error case over HTTP', async () => {
    const ok = await me(`Bearer ${seed.keys.sk_test_write}`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('service-version')).toBe('2026-10-01');
    expect(ok.headers.get('service-request-id')).toMatch(/^req_/);
    const cases: [Response, number, string][] = [
      [await me(), 401, 'missing_key'],
      [await me('Bearer sk_test_00000000000000000000000000000000'), 401, 'invalid_key'],
      [
        await me(`Bearer ${seed.keys.pk_test}`, { origin: 'http://127.0.0.1:8787' }),
        403,
        'insufficient_scope',
      ],
      [
        await me(`Bearer ${seed.keys.sk_test_write}`, { 'service-version': '1999-01-01' }),
        400,
        'invalid_request',
      ],
    ];
    for (const [res, status, code] of cases) {
      const body = await res.json();
      expect({ status: res.status, code: body.code }).toEqual({ status, code });
      expect(body.request_id).toBe(res.headers.get('service-request-id'));
    }
  });

  it('answers what Node cannot parse with the flat JSON error body, not a bare status line', async () => {
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
        let answer = '';
        socket.on('data', (d) => (answer += d));
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
        socket.write(request);
      });
    const parse = (answer: string) => {
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      return { status: Number(head.split(' ')[1]), head, body: JSON.parse(body) };
    };
    // Node's limit for a request's head is 16 KiB.
    const big = parse(
      await raw(`GET /api/v1/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expect(big.status).toBe(431);
    expect(big.head).toMatch(/content-type: application\/json/i);
    expect(big.body).toEqual({
      error: expect.stringContaining('16 KiB'),
      code: 'invalid_request',
      request_id: expect.stringMatching(/^req_/),
      doc_url: expect.stringContaining('/docs/errors'),
    });
    const garbled = parse(await raw('NOT HTTP AT ALL\r\n\r\n'));
    expect(garbled.status).toBe(400);
    expect(garbled.body.code).toBe('invalid_request');
    // The process is still serving.
    expect((await me()).status).toBe(401);
  });

  it('never writes a key or a token to its log', async () => {
    const quote = await fetch(`${server.url}/api/v1/cotizaciones`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seed.keys.sk_test_write}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        items: [{ descripcion: 'x', cantidad: 1, precio_unitario: 1 }],
        cliente: { empresa: 'Log' },
        send: true,
      }),
    });
    const { data } = await quote.json();
    await fetch(`${server.url}/api/v1/me`, {
      headers: { authorization: 'Bearer sk_test_00000000000000000000000000000000' },
    });
    await fetch(`${server.url}/q/${data.token}`);
    const log = server.output();
    for (const secret of [
      ...Object.values(seed.keys),
      data.token,
      'sk_test_00000000000000000000000000000000',
    ]) {
      expect(log).not.toContain(secret);
    }
  });

  /** A read key of the demo organization made by `keys create --json` with `extra` arguments. */
  const readKey = async (...extra: string[]) =>
    JSON.parse(
      (
        await cli(
          [
            'keys',
            'create',
            '--org',
            seed.org.id,
            '--kind',
            'secret',
            '--mode',
            'test',
            '--scope',
            'read',
            ...extra,
            '--json',
          ],
          env,
        )
      ).stdout,
    ) as { id: string; key: string };
  /**
   * What `GET /me` answers a key once the running server had time to hear a change made by the
   * CLI (LISTEN/NOTIFY): 401 as soon as it stops working, within a second.
   */
  const statusOnceHeard = async (key: string) => {
    let status = 0;
    for (let i = 0; i < 50 && status !== 401; i++) {
      status = (await me(`Bearer ${key}`)).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 20));
    }
    return status;
  };

  it('refuses a PORT that is not one, a port in use, and a bad key for mcp, in one line, and exits', async () => {
    await expect(cli(['serve', '--port', 'abc'], env)).rejects.toMatchObject({
      code: 1,
      stderr: 'svc-server serve: PORT must be a whole number from 0 to 65535, not "abc"\n',
    });
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      await expect(cli(['serve', '--port', String(port)], env)).rejects.toMatchObject({
        code: 1,
        stderr: `svc-server serve: port ${port} on 127.0.0.1 is already in use; set PORT (or --port) to another\n`,
      });
    } finally {
      taken.close();
    }
    // It used to print this and then wait forever on its open database connections.
    await expect(
      cli(['mcp', '--key', 'sk_test_00000000000000000000000000000000'], env),
    ).rejects.toMatchObject({
      code: 1,
      stderr: 'svc-server mcp: the API key is not valid\n',
    });
    // An expired key is refused at start too, rather than serving tools that all answer invalid_key.
    // Far enough ahead that a slow machine's `keys create` still sees it in the future; then waited
    // out from the expiry itself, not from when the key was made.
    const expires = new Date(Date.now() + 5000);
    const soon = await readKey('--expires', expires.toISOString());
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expires.getTime() - Date.now() + 200)));
    await expect(cli(['mcp', '--key', soon.key], env)).rejects.toMatchObject({
      code: 1,
      stderr: 'svc-server mcp: the API key has expired\n',
    });
  }, 45_000);

  it('stops accepting a key revoked from the CLI while the server runs', async () => {
    const created = await readKey();
    expect((await me(`Bearer ${created.key}`)).status).toBe(200);
    await cli(['keys', 'revoke', created.id], env);
    expect(await statusOnceHeard(created.key)).toBe(401);
  });

  it('rotates a key with a grace period: both work, then the old one stops when its grace ends', async () => {
    const first = await readKey('--ip', '127.0.0.1');
    const second = JSON.parse(
      (await cli(['keys', 'rotate', first.id, '--grace', '2', '--json'], env)).stdout,
    );
    expect(second).toMatchObject({
      key: expect.stringMatching(KEY('sk_test')),
      scope: 'read',
      allowed_ips: ['127.0.0.1'],
      replaces: { id: first.id, expires_at: expect.any(String) },
    });
    const graceMs = Date.parse(second.replaces.expires_at) - Date.now();
    expect(graceMs).toBeGreaterThan(1.9 * 3_600_000);
    expect(graceMs).toBeLessThan(2.1 * 3_600_000);
    // During the grace period both keys work.
    expect((await me(`Bearer ${first.key}`)).status).toBe(200);
    expect((await me(`Bearer ${second.key}`)).status).toBe(200);
    // Rotated again with no grace, the second stops at once, on the running server too.
    const third = JSON.parse(
      (await cli(['keys', 'rotate', second.id, '--grace', '0', '--json'], env)).stdout,
    );
    expect(await statusOnceHeard(second.key)).toBe(401);
    expect((await me(`Bearer ${third.key}`)).status).toBe(200);
    // A key that no longer works cannot be rotated; a bad grace is refused.
    await expect(cli(['keys', 'rotate', second.id], env)).rejects.toMatchObject({ code: 1 });
    for (const grace of ['--grace=-1', '--grace=721', '--grace=1.5'])
      await expect(cli(['keys', 'rotate', third.id, grace], env)).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining('--grace must be whole hours'),
      });
    expect((await me(`Bearer ${third.key}`)).status).toBe(200);
  });
});
