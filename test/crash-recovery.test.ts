import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from './support/postgres.js';
import { cli, type ServerProcess, startServerProcess } from './support/processes.js';

const SUBMISSIONS = 300;
/** Requests in flight at once, across both processes: enough for several to die with one. */
const CONCURRENCY = 30;
/** The target: a submission cut by a crash succeeds on its retry within this long. */
const RECOVERY_MS = 5_000;

interface Submission {
  index: number;
  key: string;
  body: string;
  visitor: string;
  /** When the first retry began (undefined: it never needed one). */
  retryStartedAt?: number;
  doneAt?: number;
  /** How its first attempt ended, when it failed: a network error or the status. */
  firstFailure?: string;
  sentBeforeKill: boolean;
  response?: { status: number; text: string; replayed: boolean };
}

/**
 * Two server processes on one PostgreSQL, a burst of widget submissions (publishable key, a new
 * client each, an Idempotency-Key, a coupon, a visitor address each), `kill -9` of one process a
 * third of the way in, and every failed submission retried on the survivor with the same key,
 * as the widget does (honouring Retry-After). A reservation dies with the transaction that holds
 * it, so the submissions cut by the crash are not held for the 60 s expiry: each is done within
 * seconds of its retry, and none is written twice.
 *
 * Only the server process dies here, never PostgreSQL, so what it acknowledged is on the database
 * server whatever its fsync setting; the test database still commits synchronously, so an answer
 * is only sent for a commit PostgreSQL has written to its log.
 */
describe('a server process killed during a burst of widget submissions', () => {
  let database: Awaited<ReturnType<typeof createPgDatabase>>;
  let servers: ServerProcess[] = [];
  let seed: { keys: { pk_test: string }; products: { id: string; sku: string }[] };
  let db: pg.Client;

  beforeAll(async () => {
    database = await createPgDatabase('svc_crash');
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
    await db.query(`ALTER DATABASE ${new URL(database.url).pathname.slice(1)} SET synchronous_commit = on`);
    // Behind a proxy: each submission says which visitor it comes from (per-IP limits).
    const env = { DATABASE_URL: database.url, TRUST_PROXY: '1' };
    seed = JSON.parse((await cli(['seed', '--json'], env)).stdout);
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db?.end();
    await database?.drop();
  });

  const send = (server: ServerProcess, s: Submission) =>
    fetch(`${server.url}/api/v1/cotizaciones`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${seed.keys.pk_test}`,
        origin: 'http://127.0.0.1:8787',
        'content-type': 'application/json',
        'idempotency-key': s.key,
        'x-forwarded-for': s.visitor,
      },
      body: s.body,
    });

  /** What the widget retries: no answer, a 5xx, or 409 idempotency_in_progress. */
  const retryable = async (res: Response) =>
    res.status >= 500 ||
    (res.status === 409 &&
      ((await res.clone().json()) as { code: string }).code === 'idempotency_in_progress');

  it('finishes every submission within seconds of its retry, each written exactly once', async () => {
    const laptop = seed.products.find((p) => p.sku === 'LAP-14')!;
    const submissions: Submission[] = Array.from({ length: SUBMISSIONS }, (_, index) => {
      const visitor = randomUUID();
      return {
        index,
        key: randomUUID(),
        visitor: `198.51.${100 + (index >> 8)}.${(index & 255) + 1}`,
        body: JSON.stringify({
          items: [{ descripcion: 'Laptop', cantidad: 1, precio_unitario: 24500, producto_id: laptop.id }],
          cupon: 'BIENVENIDA10',
          cliente: { empresa: `Crash ${visitor}`, email: `${visitor}@crash.example` },
        }),
        sentBeforeKill: false,
      };
    });
    const [victim, survivor] = servers as [ServerProcess, ServerProcess];
    let killed = false;
    let completed = 0;
    // Requests sent to the victim and not answered yet: the kill waits for several, so that it
    // cuts some whatever the machine's speed (once, in CI, every one had just been answered).
    let victimInFlight = 0;
    let kill: Promise<void> | undefined;

    const submit = async (s: Submission) => {
      // Until the kill, both processes share the burst; after it, the dead one refuses connections.
      let target = s.index % 2 === 0 ? victim : survivor;
      s.sentBeforeKill = !killed && target === victim;
      let waitMs = 0;
      for (let attempt = 0; ; attempt++) {
        if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
        const onVictim = target === victim && !killed;
        if (onVictim) victimInFlight++;
        const res = await send(target, s).catch(() => null);
        if (onVictim) victimInFlight--;
        if (res && !(await retryable(res))) {
          s.response = {
            status: res.status,
            text: await res.text(),
            replayed: res.headers.get('idempotent-replayed') === 'true',
          };
          s.doneAt = Date.now();
          break;
        }
        if (attempt === 0) s.firstFailure = res ? String(res.status) : 'network';
        if (s.retryStartedAt === undefined) s.retryStartedAt = Date.now();
        if (Date.now() - s.retryStartedAt > 30_000) throw new Error(`submission ${s.index} never finished`);
        // The widget's retry: the same key, on whatever answers (here the survivor), after Retry-After.
        target = survivor;
        waitMs = res ? Number(res.headers.get('retry-after') ?? '1') * 1000 : 100;
      }
      completed++;
      if (completed >= Math.floor(SUBMISSIONS / 3) && victimInFlight >= 5 && !killed) {
        killed = true;
        kill = victim.stop('SIGKILL');
      }
    };

    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < SUBMISSIONS) await submit(submissions[next++]!);
      }),
    );
    await kill;

    // The kill did cut submissions in flight on the dead process.
    const cut = submissions.filter((s) => s.sentBeforeKill && s.firstFailure !== undefined);
    expect(killed).toBe(true);
    expect(cut.length).toBeGreaterThan(0);
    // Every submission is done, within seconds of its first retry.
    const slow = submissions
      .filter((s) => s.retryStartedAt !== undefined && s.doneAt! - s.retryStartedAt > RECOVERY_MS)
      .map((s) => ({ index: s.index, ms: s.doneAt! - s.retryStartedAt!, first: s.firstFailure }));
    expect(slow).toEqual([]);
    expect(submissions.map((s) => s.response?.status)).toEqual(submissions.map(() => 200));

    // Exactly once: 300 quotes, one per submission, folios without gap, one quote.created each.
    const ids = submissions.map((s) => (JSON.parse(s.response!.text) as { data: { id: string } }).data.id);
    expect(new Set(ids).size).toBe(SUBMISSIONS);
    const { rows: quotes } = await db.query<{ id: string; folio: string }>(
      `SELECT q.id, q.folio FROM quotes q JOIN clients c ON c.id = q.cliente_id
       WHERE c.empresa LIKE 'Crash %' ORDER BY q.folio`,
    );
    expect(quotes.map((q) => q.id).sort()).toEqual([...ids].sort());
    const { rows: all } = await db.query<{ folio: string }>(
      `SELECT folio FROM quotes WHERE mode = 'test' ORDER BY folio`,
    );
    const folios = all.map((q) => Number(q.folio.replace(/\D/g, ''))).sort((a, b) => a - b);
    expect(folios).toEqual(folios.map((_, i) => folios[0]! + i));
    const { rows: events } = await db.query<{ object_id: string; n: number }>(
      `SELECT object_id, count(*)::int AS n FROM events WHERE type = 'quote.created' AND object_id = ANY($1::uuid[])
       GROUP BY object_id`,
      [ids],
    );
    expect(events).toHaveLength(SUBMISSIONS);
    expect(events.every((e) => e.n === 1)).toBe(true);
    // A retry of a submission whose first attempt committed replays it byte for byte.
    const replays = submissions.filter((s) => s.response!.replayed);
    for (const s of replays) {
      const [stored] = (
        await db.query<{ response_body: string }>(
          'SELECT response_body FROM idempotency_keys WHERE idempotency_key = $1',
          [s.key],
        )
      ).rows;
      expect(stored?.response_body).toBe(s.response!.text);
    }
  });
});
