// What the focused bench scripts (ab-*.ts, profile-submission.ts) share: starting a process of a
// checkout, and the requests bench/run.ts sends, built before the clock starts.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';

/** The seed's JSON (`svc-server seed --json`), as far as the requests need it. */
export interface Seed {
  keys: { pk_test: string; sk_test_write: string };
  products: { id: string; sku: string }[];
}

/**
 * Runs node with `command` in `root` and resolves once its output includes `ready`; with `ready`
 * empty, once it exits 0 (then `out` is all it wrote).
 */
export function start(root: string, command: string[], env: Record<string, string>, ready: string) {
  const child = spawn(process.execPath, command, {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise<{ child: ChildProcess; out: string }>((resolve, reject) => {
    let output = '';
    const on = (d: Buffer) => {
      output += d;
      if (ready !== '' && output.includes(ready)) resolve({ child, out: output });
    };
    child.stderr!.on('data', on);
    child.stdout!.on('data', on);
    child.on('exit', (code) =>
      code === 0 && ready === ''
        ? resolve({ child, out: output })
        : reject(new Error(`${command.join(' ')} exited ${code}: ${output}`)),
    );
  });
}

/** A visitor's address: each request comes from another one, as page views do. */
export const randomIp = () =>
  `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;

/**
 * How many of the widget's submissions to build for each connection of a load of `seconds`: none
 * may be sent twice, since a connection that has sent all its requests starts over, and a repeated
 * `Idempotency-Key` is answered from its stored response, far cheaper than a creation. Enough for
 * 8,000 a second, twice the fastest ceiling measured here. Until run 33 bench/run.ts built 1,000,
 * which run 32's 2,598 a second at 10 connections outran by ~4 %.
 */
export const distinctPerConnection = (connections: number, seconds: number) =>
  Math.ceil((8000 * seconds) / connections);

/**
 * Throws when a load sent more requests than it was given distinct ones. autocannon starts a
 * connection's requests over once it has sent them all, so a load that outran what was built would
 * send an `Idempotency-Key` twice and measure its replay, not a creation.
 */
export function assertNoneRepeated(url: string, sent: number, distinct: number | undefined): void {
  if (distinct !== undefined && sent > distinct)
    throw new Error(`${url}: ${sent} requests sent, only ${distinct} distinct ones built`);
}

/**
 * The widget's submissions as bench/run.ts sends them: the LAP-14 basket, BIENVENIDA10, a new
 * client and an `Idempotency-Key` each, never one twice in a load of `seconds`.
 */
export function widgetSubmissions(
  seed: Seed,
  connections: number,
  seconds: number,
): Partial<autocannon.Options> {
  const perConnection = distinctPerConnection(connections, seconds);
  const laptop = seed.products.find((p) => p.sku === 'LAP-14')!;
  return {
    method: 'POST',
    setupClient: (client) =>
      client.setRequests(
        Array.from({ length: perConnection }, () => {
          const visitor = randomUUID();
          return {
            method: 'POST' as const,
            body: JSON.stringify({
              items: [{ descripcion: 'Laptop', cantidad: 2, precio_unitario: 24500, producto_id: laptop.id }],
              cupon: 'BIENVENIDA10',
              cliente: { empresa: `Visitante ${visitor}`, email: `${visitor}@bench.example` },
            }),
            headers: {
              authorization: `Bearer ${seed.keys.pk_test}`,
              origin: 'http://127.0.0.1:8787',
              'content-type': 'application/json',
              'x-forwarded-for': randomIp(),
              'idempotency-key': randomUUID(),
            },
          };
        }),
      ),
  };
}

/**
 * The options of a load whose response bodies nothing reads, with autocannon's copy of each body
 * turned off. autocannon appends every chunk of a body to a string (`req.body += chunk`), so it
 * decodes each body as UTF-8 on the same two cores as the server: free for ASCII, but ~10 µs a
 * request for the configuration's 1.8 KB of brotli (as for 5 KB of JSON with accents), against
 * 20–25 µs for everything else it does for a request, while a body of the same size in ASCII
 * costs nothing (docs/performance.md, run 33). No real client decodes on the server's machine.
 * Loads with an `onResponse` (the invoice pairs read the invoice's id) keep their bodies.
 */
export function bodiesUnread(options: Partial<autocannon.Options>): Partial<autocannon.Options> {
  if (options.requests?.some((request) => request.onResponse)) return options;
  const setup = options.setupClient;
  return {
    ...options,
    setupClient: (client) => {
      // The queue of a connection's requests under way (autocannon 8, lib/pipelinedRequestsQueue.js).
      const queue = (client as unknown as { pipelinedRequests?: { addBody(chunk: Buffer): void } })
        .pipelinedRequests;
      if (!queue) throw new Error('bodiesUnread: autocannon no longer has pipelinedRequests');
      queue.addBody = () => {};
      setup?.(client);
    },
  };
}
