import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readJson } from '../http/json-body.js';
import { PLANS } from '../services/plans.js';
import { expectError } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { endpoint } from './endpoint.js';
import { IDEMPOTENCY_WAIT_MS } from './idempotency.js';

/**
 * A reservation lives and dies with the transaction that holds it: a duplicate waits for that
 * transaction and then replays its response (commit) or runs (rollback), and a reservation whose
 * database session is gone (its process died) is free at once, not after the 60 s expiry.
 */
let t: TestContext;
let key: string;
/** While set, the operation waits, after writing, until the gate opens. */
let gate: { open: () => void; opened: Promise<void>; entered: Promise<void>; enter: () => void } | undefined;
/** How many times the operation has run. */
let runs = 0;

const newGate = () => {
  let open!: () => void;
  let enter!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const entered = new Promise<void>((r) => (enter = r));
  return { open, opened, entered, enter };
};

beforeAll(async () => {
  // A long expiry: nothing here may pass because a reservation merely grew old.
  t = await createTestContext({ idempotencyStaleSeconds: 600 });
  key = t.seed.keys.sk_test_write;
  await t.db.query('CREATE TABLE held_writes (id serial PRIMARY KEY, label text NOT NULL)');
  t.app.post('/api/v1/__test/held', endpoint(t.deps, { resource: 'test', level: 'write' }), async (c) => {
    runs++;
    const body = (await readJson(c)) as { label: string; fail?: boolean };
    const [row] = await t.db.query<{ id: number }>(
      'INSERT INTO held_writes (label) VALUES ($1) RETURNING id',
      [body.label],
    );
    const held = gate;
    if (held) {
      gate = undefined; // only the first request is held
      held.enter();
      await held.opened;
    }
    if (body.fail) throw new Error('the operation failed after writing');
    return c.json({ data: { id: row!.id, at: Math.random() } });
  });
});
afterAll(() => t.close());

const post = (body: unknown, idem: string, as = key) =>
  t.call('POST', '/api/v1/__test/held', { key: as, body, headers: { 'idempotency-key': idem } });
const count = async (label: string) =>
  (
    await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM held_writes WHERE label = $1', [label])
  )[0]!.n;
const settled = (promise: Promise<unknown>) =>
  Promise.race([promise.then(() => true), new Promise((r) => setTimeout(() => r(false), 150))]);

describe('a reservation held by its transaction', () => {
  it('makes duplicates wait for the first and replay its response, none answered 409', async () => {
    gate = newGate();
    const held = gate;
    const first = post({ label: 'wait-replay' }, 'k-wait-replay');
    await held.entered;
    const duplicates = Array.from({ length: 4 }, () => post({ label: 'wait-replay' }, 'k-wait-replay'));
    held.open();
    const original = await first;
    expect(original.status).toBe(200);
    const text = await original.text();
    for (const res of await Promise.all(duplicates)) {
      expect(res.status).toBe(200);
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      expect(await res.text()).toBe(text);
    }
    expect(await count('wait-replay')).toBe(1);
  });

  it('lets a waiting duplicate run once the first rolls back', async () => {
    gate = newGate();
    const held = gate;
    const first = post({ label: 'wait-run', fail: true }, 'k-wait-run');
    await held.entered;
    // The same body (and so the same fingerprint): it fails too, and is not stored either.
    const duplicate = post({ label: 'wait-run', fail: true }, 'k-wait-run');
    held.open();
    expect((await first).status).toBe(500);
    const second = await duplicate;
    expect(second.status).toBe(500);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(await count('wait-run')).toBe(0);
    // Nothing was stored for the key: it runs again, and now succeeds.
    const third = await post({ label: 'wait-run' }, 'k-wait-run-ok');
    expect(third.status).toBe(200);
  });

  it('does not run an operation whose organization has used up its monthly quota', async () => {
    const live = t.seed.keys.sk_live_write;
    const month = [t.seed.org.id, new Date().toISOString().slice(0, 7)];
    const quota = PLANS[t.seed.org.plan as keyof typeof PLANS].monthlyQuota;
    await t.db.query(
      `INSERT INTO usage_counters (org_id, period, count) VALUES ($1, $2, $3)
       ON CONFLICT (org_id, period) DO UPDATE SET count = $3`,
      [...month, quota],
    );
    try {
      const before = runs;
      await expectError(await post({ label: 'over-quota' }, 'k-over-quota', live), 429, 'api_quota_exceeded');
      expect(runs).toBe(before);
      expect(await count('over-quota')).toBe(0);
    } finally {
      await t.db.query('DELETE FROM usage_counters WHERE org_id = $1 AND period = $2', month);
    }
  });

  it.runIf(inject('testDb') === 'postgres')(
    'frees the reservation the moment its session is gone (a process killed mid-request)',
    async () => {
      const keyId = (
        await t.db.query<{ id: string }>('SELECT id FROM api_keys WHERE display = $1 LIMIT 1', [
          `sk_test_...${key.slice(-4)}`,
        ])
      )[0]!.id;
      // A transaction that took the key, as a creation in flight does, on its own connection.
      const taken = newGate();
      const crash = newGate();
      let pid = 0;
      const dying = t.db
        .transaction(async (tx) => {
          pid = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]!.pid;
          await tx.query(
            `INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, state) VALUES ($1, 'k-crash', 'x', 'in_progress')`,
            [keyId],
          );
          taken.enter();
          await crash.opened;
          await tx.query('SELECT 1'); // fails: the session is gone
        })
        .catch(() => 'rolled back');
      await taken.entered;
      const started = Date.now();
      const retry = post({ label: 'crash' }, 'k-crash');
      expect(await settled(retry)).toBe(false); // it waits for the holder, it is not refused
      // The process dies: PostgreSQL ends its session and rolls its transaction back.
      await t.db.query('SELECT pg_terminate_backend($1)', [pid]);
      const res = await retry;
      expect(res.status).toBe(200);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(await count('crash')).toBe(1);
      crash.open();
      expect(await dying).toBe('rolled back');
    },
  );

  it.runIf(inject('testDb') === 'postgres')(
    "holds no other call of the organization: a live key's monthly quota is charged just before COMMIT",
    async () => {
      const live = t.seed.keys.sk_live_write;
      const used = async () =>
        (
          await t.db.query<{ count: number }>(
            'SELECT coalesce(sum(count), 0)::int AS count FROM usage_counters',
          )
        )[0]!.count;
      const before = await used();
      gate = newGate();
      const held = gate;
      const slow = post({ label: 'live-slow' }, 'k-live-slow', live);
      await held.entered;
      // Charged first, the month's counter row stayed locked until the slow one's COMMIT.
      const others = Promise.all([
        t.call('GET', '/api/v1/me', { key: live }),
        post({ label: 'live-other' }, 'k-live-other', live),
      ]);
      const answered = await Promise.race([
        others.then((all) => all.map((res) => res.status)),
        new Promise((r) => setTimeout(() => r('still waiting'), 3_000)),
      ]);
      held.open();
      expect(answered).toEqual([200, 200]);
      expect((await slow).status).toBe(200);
      await others;
      // Each charged once, the replay not at all.
      expect(
        (await post({ label: 'live-slow' }, 'k-live-slow', live)).headers.get('idempotent-replayed'),
      ).toBe('true');
      expect((await used()) - before).toBe(3);
    },
  );

  it.runIf(inject('testDb') === 'postgres')(
    'bounds the wait: a holder that outlasts it gets the duplicate a 409 with Retry-After',
    async () => {
      gate = newGate();
      const held = gate;
      const first = post({ label: 'bounded' }, 'k-bounded');
      await held.entered;
      const started = Date.now();
      const duplicate = await post({ label: 'bounded' }, 'k-bounded');
      const waited = Date.now() - started;
      await expectError(duplicate, 409, 'idempotency_in_progress');
      expect(Number(duplicate.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(waited).toBeGreaterThanOrEqual(IDEMPOTENCY_WAIT_MS - 100);
      expect(waited).toBeLessThan(IDEMPOTENCY_WAIT_MS + 2_000);
      held.open();
      expect((await first).status).toBe(200);
      expect(await count('bounded')).toBe(1);
    },
  );
});
