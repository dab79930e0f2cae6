// The real service for the browser tests: a seeded `svc-server` on a throwaway data directory,
// reached through a small fault proxy that the tests steer (drop a connection after the server
// answered, answer a status instead of the server, slow down or cut an SSE stream). Everything
// else is forwarded untouched, so the widget talks to the real routes, keys, CORS and database.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { foreignKeyArgs, freePort } from '../../../test/support/machine.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const CLI = join(ROOT, 'packages/server/bin/svc-server.mjs');
const run = promisify(execFile);

/**
 * Seeds and starts `svc-server serve`, then the fault proxy in front of it.
 * @returns what the tests need (`config`), the fault controls and `stop()`.
 */
export async function startTestService() {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-elements-wtr-'));
  // TRUST_PROXY lets the fault proxy give each request its own client address, so the per-IP
  // allowances of publishable keys (20 drafts a minute) do not throttle a test run.
  const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', TRUST_PROXY: '1' };
  const cli = async (args) => (await run(process.execPath, [CLI, ...args], { env, cwd: ROOT })).stdout;
  const seed = JSON.parse(await cli(['seed', '--json']));
  // A live key for another site only: the test page's origin is not on its list.
  const foreign = JSON.parse(await cli(foreignKeyArgs(seed.org.id))).key;
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'serve', '--port', String(port)], {
    env,
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => {
    output += d;
  });
  child.stderr.on('data', (d) => {
    output += d;
  });
  const deadline = Date.now() + 60_000;
  while (!output.includes('listening on')) {
    if (child.exitCode !== null) throw new Error(`svc-server exited ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`svc-server did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const target = `http://127.0.0.1:${port}`;
  const proxy = await startFaultProxy(target);
  return {
    config: {
      apiBase: `${proxy.url}/api/v1`,
      directApiBase: `${target}/api/v1`,
      unreachableApiBase: `http://127.0.0.1:${await freePort()}/api/v1`,
      key: seed.keys.pk_test,
      liveKey: seed.keys.pk_live,
      foreignKey: foreign,
      products: seed.products,
      coupons: seed.coupons,
    },
    proxy,
    /** Quotes of the test partition whose client is `empresa`, read with the secret key. */
    async quotesOf(empresa) {
      const response = await fetch(`${target}/api/v1/cotizaciones?limit=100`, {
        headers: { authorization: `Bearer ${seed.keys.sk_test_write}` },
      });
      const body = await response.json();
      return body.data.filter((q) => q.cliente === empresa);
    },
    async stop() {
      await proxy.close();
      await new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The proxy. A fault is `{ method, path, action, … }`, used once by the next matching request:
 * - `drop-after`: forward, let the server finish, then close the browser's connection unanswered
 * - `drop-before`: close the connection without forwarding
 * - `respond`: answer `status` with `body` and `headers` instead of the server
 * - `delay`: forward after `delayMs`
 * - `stream`: forward an SSE answer one event every `delayMs`, cutting the connection after
 *   `cutAfter` events when given
 */
async function startFaultProxy(target) {
  const faults = [];
  let log = [];
  let clients = 0;
  const sockets = new Set();
  const server = http.createServer((req, res) => {
    // `/__<anything>/api/v1/…` is `/api/v1/…` at a fresh URL, out of reach of the browser's cache.
    const url = new URL(req.url.replace(/^\/__[^/]+/, ''), target);
    const origin = req.headers.origin;
    const cors = origin
      ? {
          'access-control-allow-origin': origin,
          vary: 'Origin',
          'access-control-expose-headers': 'Service-Request-Id, Retry-After, Idempotent-Replayed',
        }
      : {};
    const preflight = req.method === 'OPTIONS';
    const entry = {
      method: req.method,
      path: url.pathname.replace(/^\/api\/v1/, ''),
      key: req.headers['idempotency-key'] ?? null,
      status: 0,
      fault: null,
    };
    if (!preflight) log.push(entry);
    const index = preflight ? -1 : faults.findIndex((f) => f.method === req.method && f.path === entry.path);
    const fault = index >= 0 ? faults.splice(index, 1)[0] : undefined;
    entry.fault = fault?.action ?? null;
    if (fault?.action === 'drop-before') {
      req.socket.destroy();
      return;
    }
    if (fault?.action === 'respond') {
      req.resume();
      req.on('end', () => {
        entry.status = fault.status;
        res.writeHead(fault.status, {
          'content-type': 'application/json',
          ...cors,
          ...(fault.headers ?? {}),
        });
        res.end(JSON.stringify(fault.body ?? {}));
      });
      return;
    }
    if (fault?.action === 'delay') {
      setTimeout(() => forward(req, res, url, entry, undefined), fault.delayMs ?? 1000);
      return;
    }
    forward(req, res, url, entry, fault);
  });

  function forward(req, res, url, entry, fault) {
    clients++;
    const headers = {
      ...req.headers,
      host: new URL(target).host,
      'x-forwarded-for': `10.77.${(clients >> 8) & 255}.${clients & 255}`,
    };
    const upstream = http.request(url, { method: req.method, headers }, (answer) => {
      entry.status = answer.statusCode ?? 0;
      if (fault?.action === 'drop-after') {
        answer.resume();
        answer.on('end', () => req.socket.destroy());
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (fault?.action !== 'stream') {
        answer.pipe(res);
        return;
      }
      // One SSE event at a time, so the browser sees lines arrive one by one.
      let buffer = '';
      let sent = 0;
      let chain = Promise.resolve();
      answer.setEncoding('utf8');
      answer.on('data', (chunk) => {
        buffer += chunk;
        const events = buffer.split('\n\n');
        buffer = events.pop() ?? '';
        for (const event of events) {
          chain = chain.then(async () => {
            if (res.destroyed) return;
            await new Promise((r) => setTimeout(r, fault.delayMs ?? 0));
            if (res.destroyed) return;
            if (fault.cutAfter !== undefined && sent >= fault.cutAfter && event.includes('event:')) {
              res.destroy();
              return;
            }
            res.write(`${event}\n\n`);
            if (/^event: ?item/m.test(event)) sent++;
          });
        }
      });
      answer.on('end', () => {
        chain = chain.then(() => {
          if (!res.destroyed) res.end(buffer);
        });
      });
    });
    upstream.on('error', () => res.destroy());
    // The browser went away (a Stop): the server should see the disconnect too.
    res.on('close', () => {
      if (!res.writableEnded) upstream.destroy();
    });
    req.pipe(upstream);
  }
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    addFault(fault) {
      faults.push(fault);
    },
    clearFaults() {
      faults.length = 0;
    },
    takeLog() {
      const taken = log;
      log = [];
      return taken;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
