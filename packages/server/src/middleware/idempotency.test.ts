import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { readJson } from '../http/json-body.js';
import { expectError } from '../testing/assertions.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { endpoint } from './endpoint.js';

let t: TestContext;
let key: string;
let slowGate: { release: () => void; started: Promise<void> } | undefined;

beforeAll(async () => {
  t = await createTestContext({ idempotencyStaleSeconds: 2 });
  key = t.seed.keys.sk_test_write;
  await t.db.query('CREATE TABLE test_writes (id serial PRIMARY KEY, label text NOT NULL)');
  const access = { resource: 'test', level: 'write' as const };
  // Operations that write, fail after writing, or crash, to observe what the store does.
  t.app.post('/api/v1/__test/write', endpoint(t.deps, access), async (c) => {
    const body = (await readJson(c)) as { label: string };
    const [row] = await t.db.query<{ id: number }>(
      'INSERT INTO test_writes (label) VALUES ($1) RETURNING id',
      [body.label],
    );
    if (slowGate) {
      const gate = slowGate;
      let started!: () => void;
      gate.started = new Promise((r) => (started = r));
      started();
      await new Promise<void>((r) => (gate.release = r));
    }
    return c.json({ data: { id: row!.id, label: body.label, at: Math.random() } });
  });
  t.app.post('/api/v1/__test/write-then-fail', endpoint(t.deps, access), async (c) => {
    const body = (await readJson(c)) as { label: string; status: number };
    await t.db.query('INSERT INTO test_writes (label) VALUES ($1)', [body.label]);
    if (body.status === 500) throw new Error('boom');
    throw new ApiError(body.status, body.status === 429 ? 'rate_limited' : 'invalid_request', 'refused');
  });
});
afterAll(() => t.close());

const post = (path: string, body: unknown, idem?: string, extra: Record<string, string> = {}) =>
  t.call('POST', path, {
    key,
    body,
    headers: idem === undefined ? extra : { 'idempotency-key': idem, ...extra },
  });
/**
 * Runs `fn` while the database refuses to write idempotency records matching `condition` (SQL
 * over the row being written, `NEW`), as a database in trouble would.
 */
async function whileDatabaseRefuses(condition: string, fn: () => Promise<void>): Promise<void> {
  await t.db.query(`
    CREATE FUNCTION test_refuse_idempotency_row() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF ${condition} THEN RAISE EXCEPTION 'refused by the test'; END IF;
      RETURN NEW;
    END $$`);
  await t.db.query(`
    CREATE TRIGGER test_refuse_idempotency_row BEFORE INSERT OR UPDATE ON idempotency_keys
    FOR EACH ROW EXECUTE FUNCTION test_refuse_idempotency_row()`);
  try {
    await fn();
  } finally {
    await t.db.query('DROP TRIGGER test_refuse_idempotency_row ON idempotency_keys');
    await t.db.query('DROP FUNCTION test_refuse_idempotency_row()');
  }
}
const count = async (label: string) =>
  (
    await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM test_writes WHERE label = $1', [label])
  )[0]!.n;

describe('idempotency', () => {
  it('runs every request when the header is absent', async () => {
    await post('/api/v1/__test/write', { label: 'no-key' });
    await post('/api/v1/__test/write', { label: 'no-key' });
    expect(await count('no-key')).toBe(2);
  });

  it('replays the first response byte for byte without running again', async () => {
    const first = await post('/api/v1/__test/write', { label: 'replay' }, 'k-replay');
    const second = await post('/api/v1/__test/write', { label: 'replay' }, 'k-replay');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.text()).toBe(await first.text());
    expect(await count('replay')).toBe(1);
  });

  it('keeps keys per API key', async () => {
    await post('/api/v1/__test/write', { label: 'per-key' }, 'k-shared');
    const other = await t.call('POST', '/api/v1/__test/write', {
      key: t.seed.keys.sk_live_write,
      body: { label: 'per-key' },
      headers: { 'idempotency-key': 'k-shared' },
    });
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(await count('per-key')).toBe(2);
  });

  it('answers 422 idempotency_key_reused for another body, route or method', async () => {
    await post('/api/v1/__test/write', { label: 'reuse' }, 'k-reuse');
    await expectError(
      await post('/api/v1/__test/write', { label: 'other' }, 'k-reuse'),
      422,
      'idempotency_key_reused',
    );
    await expectError(
      await post('/api/v1/__test/write-then-fail', { label: 'reuse' }, 'k-reuse'),
      422,
      'idempotency_key_reused',
    );
    expect(await count('other')).toBe(0);
  });

  it('refuses malformed keys with 400 invalid_idempotency_key and runs nothing', async () => {
    for (const bad of ['', 'has space', 'x'.repeat(256), 'ñandú']) {
      await expectError(
        await post('/api/v1/__test/write', { label: 'bad-key' }, bad),
        400,
        'invalid_idempotency_key',
      );
    }
    expect(await count('bad-key')).toBe(0);
    expect((await post('/api/v1/__test/write', { label: 'max-key' }, 'x'.repeat(255))).status).toBe(200);
  });

  it('lets exactly one of concurrent duplicates run; the others get 409 or the replay', async () => {
    slowGate = { release: () => {}, started: Promise.resolve() };
    const gate = slowGate;
    const first = post('/api/v1/__test/write', { label: 'race' }, 'k-race');
    await new Promise((r) => setTimeout(r, 50));
    await gate.started;
    // Not awaited yet: on PGlite the duplicates wait for the first one's transaction to end.
    const during = Array.from({ length: 5 }, () => post('/api/v1/__test/write', { label: 'race' }, 'k-race'));
    await new Promise((r) => setTimeout(r, 100));
    slowGate = undefined;
    gate.release();
    for (const res of await Promise.all(during)) {
      if (res.status === 409) await expectError(res, 409, 'idempotency_in_progress');
      else expect(res.headers.get('idempotent-replayed')).toBe('true');
    }
    expect((await first).status).toBe(200);
    expect(await count('race')).toBe(1);
  });

  it('stores a 4xx without the writes the failed operation made', async () => {
    const a = await post('/api/v1/__test/write-then-fail', { label: 'four', status: 400 }, 'k-4xx');
    const b = await post('/api/v1/__test/write-then-fail', { label: 'four', status: 400 }, 'k-4xx');
    expect(a.status).toBe(400);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(await b.text()).toBe(await a.text());
    expect(await count('four')).toBe(0);
  });

  it('does not store 5xx or 429: the same key can be retried and writes are rolled back', async () => {
    for (const status of [500, 429]) {
      const idem = `k-${status}`;
      const a = await post('/api/v1/__test/write-then-fail', { label: `s${status}`, status }, idem);
      expect(a.status).toBe(status);
      const b = await post('/api/v1/__test/write-then-fail', { label: `s${status}`, status }, idem);
      expect(b.headers.get('idempotent-replayed')).toBeNull();
      expect(b.status).toBe(status);
      expect(await count(`s${status}`)).toBe(0);
    }
  });

  it('answers 503 idempotency_unavailable when the key cannot be reserved, and runs nothing', async () => {
    await whileDatabaseRefuses(`NEW.idempotency_key = 'k-unreservable'`, async () => {
      await expectError(
        await post('/api/v1/__test/write', { label: 'unreserved' }, 'k-unreservable'),
        503,
        'idempotency_unavailable',
      );
    });
    expect(await count('unreserved')).toBe(0);
    const retried = await post('/api/v1/__test/write', { label: 'unreserved' }, 'k-unreservable');
    expect(retried.status).toBe(200);
    expect(await count('unreserved')).toBe(1);
  });

  it('retakes a reservation abandoned by a dead process once it is stale, not before', async () => {
    const keyId = (
      await t.db.query<{ id: string }>('SELECT id FROM api_keys WHERE display = $1 LIMIT 1', [
        `sk_test_...${key.slice(-4)}`,
      ])
    )[0]!.id;
    const fingerprintOf = async () => {
      // Make the reservation exactly as a crashed request would have left it.
      await post('/api/v1/__test/write', { label: 'crash' }, 'k-probe');
      return (
        await t.db.query<{ fingerprint: string }>(
          `SELECT fingerprint FROM idempotency_keys WHERE idempotency_key = 'k-probe'`,
        )
      )[0]!.fingerprint;
    };
    const fingerprint = await fingerprintOf();
    await t.db.query(
      `INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, state, locked_at) VALUES ($1, 'k-crash', $2, 'in_progress', now())`,
      [keyId, fingerprint],
    );
    await expectError(
      await post('/api/v1/__test/write', { label: 'crash' }, 'k-crash'),
      409,
      'idempotency_in_progress',
    );
    await t.db.query(
      `UPDATE idempotency_keys SET locked_at = now() - interval '3 seconds' WHERE idempotency_key = 'k-crash'`,
    );
    const retaken = await post('/api/v1/__test/write', { label: 'crash' }, 'k-crash');
    expect(retaken.status).toBe(200);
    expect(await count('crash')).toBe(2);
  });

  it('forgets a key after 24 hours', async () => {
    await post('/api/v1/__test/write', { label: 'old' }, 'k-old');
    await t.db.query(
      `UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE idempotency_key = 'k-old'`,
    );
    const again = await post('/api/v1/__test/write', { label: 'old' }, 'k-old');
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(await count('old')).toBe(2);
  });

  it('commits the stored response with the writes: a replay never exists without them', async () => {
    await post('/api/v1/__test/write', { label: 'atomic' }, 'k-atomic');
    const [stored] = await t.db.query<{ state: string; response_body: string }>(
      `SELECT state, response_body FROM idempotency_keys WHERE idempotency_key = 'k-atomic'`,
    );
    expect(stored?.state).toBe('done');
    const { data } = JSON.parse(stored!.response_body) as { data: { id: number } };
    expect((await t.db.query('SELECT 1 FROM test_writes WHERE id = $1', [data.id])).length).toBe(1);
  });

  it('commits neither the writes nor the stored response when storing the response fails', async () => {
    // The statement that stores the response fails for this one key, after the operation wrote.
    await whileDatabaseRefuses(
      `NEW.idempotency_key = 'k-store-fails' AND NEW.response_body IS NOT NULL`,
      async () => {
        const failed = await post('/api/v1/__test/write', { label: 'unstored' }, 'k-store-fails');
        expect(failed.status).toBeGreaterThanOrEqual(500);
        expect(await count('unstored')).toBe(0);
        const stored = await t.db.query(
          `SELECT 1 FROM idempotency_keys WHERE idempotency_key = 'k-store-fails' AND response_body IS NOT NULL`,
        );
        expect(stored).toEqual([]);
      },
    );
    // Nothing was kept of the failed run: the same key runs again, once.
    const retried = await post('/api/v1/__test/write', { label: 'unstored' }, 'k-store-fails');
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await count('unstored')).toBe(1);
  });
});
