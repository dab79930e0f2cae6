import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { until } from '../testing/assertions.js';
import { openTestDatabase } from '../testing/harness.js';
import type { Database } from './database.js';

let db: Database;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ db, cleanup } = await openTestDatabase());
});
afterAll(async () => {
  await cleanup();
});

const txid = async (db: Pick<Database, 'query'>) =>
  (await db.query<{ id: string }>('SELECT txid_current()::text AS id'))[0]!.id;

describe('the ambient transaction', () => {
  it('runs plain queries made during a transaction inside it, and outside once it ends', async () => {
    const inside = await db.transaction(async (tx) => ({
      explicit: await txid(tx),
      ambient: await txid(db),
    }));
    expect(inside.ambient).toBe(inside.explicit);
    // After the last transaction the tracking is switched off: queries run on their own again.
    expect(await txid(db)).not.toBe(inside.explicit);
  });

  it('lets the event loop turn between queued transactions', async () => {
    // PGlite runs statements on this thread: queued transactions must not starve the server's I/O.
    let finished = 0;
    let finishedWhenTheLoopTurned = -1;
    const all = Array.from({ length: 20 }, () =>
      db.transaction(async (tx) => {
        await tx.query('SELECT 1');
        await tx.query('SELECT 2');
        finished++;
      }),
    );
    setImmediate(() => {
      finishedWhenTheLoopTurned = finished;
    });
    await Promise.all(all);
    expect(finishedWhenTheLoopTurned).toBeGreaterThanOrEqual(0);
    expect(finishedWhenTheLoopTurned).toBeLessThan(20);
  });

  it('runs queries sent together in a transaction one after another, on its connection, in order', async () => {
    // On PostgreSQL the driver would queue them itself with a deprecation warning (pg@9 refuses
    // them), which the test setup turns into a failure: the adapter must take turns first.
    const seen = await db.transaction(async (tx) => {
      await tx.query('CREATE TEMP TABLE together (n int) ON COMMIT DROP');
      const ids = await Promise.all([txid(tx), txid(db), txid(tx)]);
      await Promise.all([1, 2, 3].map((n) => tx.query('INSERT INTO together VALUES ($1)', [n])));
      const rows = await tx.query<{ n: number }>('SELECT n FROM together ORDER BY ctid');
      return { ids, order: rows.map((row) => row.n) };
    });
    expect(new Set(seen.ids).size).toBe(1);
    expect(seen.order).toEqual([1, 2, 3]);
    // A statement that fails among them fails the transaction, which rolls back and frees its connection.
    await expect(
      db.transaction((tx) => Promise.all([txid(tx), tx.query('SELECT 1 / 0'), txid(tx)])),
    ).rejects.toThrow(/division by zero/);
    expect(await txid(db)).toMatch(/^\d+$/);
  });

  it('keeps a transaction ambient while another one ends around it', async () => {
    // PGlite has one connection and runs transactions one after the other; PostgreSQL overlaps them.
    let releaseOuter!: () => void;
    const outerMayEnd = new Promise<void>((resolve) => {
      releaseOuter = resolve;
    });
    const outer = db.transaction(async (tx) => {
      const before = await txid(db);
      await outerMayEnd;
      return { explicit: await txid(tx), before, after: await txid(db) };
    });
    const other = db.transaction(async (tx) => txid(tx));
    if (db.kind === 'postgres') await other;
    releaseOuter();
    const seen = await outer;
    await other;
    expect(seen.before).toBe(seen.explicit);
    expect(seen.after).toBe(seen.explicit);
  });

  it('runs what is left for after a transaction once it has ended, whether it committed or rolled back, before its caller goes on', async () => {
    await db.query('CREATE TABLE after_tx (note text, tx text)');
    const note = (text: string) => async () => {
      await db.query('INSERT INTO after_tx VALUES ($1, txid_current()::text)', [text]);
    };
    let inside = '';
    await expect(
      db.transaction(async (tx) => {
        inside = await txid(tx);
        await db.afterTransaction(note('rolled back'));
        await db.transaction(async () => db.afterTransaction(note('from a savepoint')));
        await tx.query(`INSERT INTO after_tx VALUES ('undone', '')`);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await db.transaction(async () => db.afterTransaction(note('committed')));
    await db.afterTransaction(note('no transaction'));
    const rows = await db.query<{ note: string; tx: string }>('SELECT note, tx FROM after_tx');
    expect(rows.map((r) => r.note)).toEqual([
      'rolled back',
      'from a savepoint',
      'committed',
      'no transaction',
    ]);
    expect(rows.every((r) => r.tx !== inside)).toBe(true);
    await db.query('DROP TABLE after_tx');
  });

  it('runs what waits for a commit only once the transaction committed, never after a rollback', async () => {
    const ran: string[] = [];
    const note = (text: string) => async () => {
      ran.push(`${text} ${db.inTransaction() ? 'inside' : 'outside'}`);
    };
    await expect(
      db.transaction(async () => {
        await db.afterCommit(note('rolled back'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await db.transaction(async () => {
      await db.transaction(async () => db.afterCommit(note('from a savepoint')));
      await db.afterCommit(note('committed'));
      expect(ran).toEqual([]);
    });
    await db.afterCommit(note('no transaction'));
    expect(ran).toEqual(['from a savepoint outside', 'committed outside', 'no transaction outside']);
  });

  it('sends a notification made inside a transaction once it has committed, without waiting on it', async () => {
    const heard: string[] = [];
    const unlisten = await db.listen('svc_test_after', (payload) => heard.push(payload));
    try {
      await db.transaction(async () => {
        // On PGlite's one connection this waited forever for the open transaction.
        await db.notify('svc_test_after', 'changed');
        await new Promise((r) => setTimeout(r, 50));
        expect(heard).toEqual([]);
      });
      await until(async () => heard.length > 0, 'the notification');
      // On PostgreSQL this process hears it at once and again from the server: the same message.
      expect(new Set(heard)).toEqual(new Set(['changed']));
    } finally {
      await unlisten();
    }
  });
});

// Change notifications carry key revocations and catalog changes to every cache. On PostgreSQL
// they travel over a LISTEN connection: losing it must tell the caches to drop everything,
// reconnect by itself, and never crash the process, however many errors the dying connection
// reports. PGlite has one process, so only delivery applies there.
describe('change notifications', () => {
  it('reach the listeners of a channel, this process included', async () => {
    const heard: string[] = [];
    const unlisten = await db.listen('svc_test_delivery', (payload) => heard.push(payload));
    await db.notify('svc_test_delivery', 'org:o_1');
    await until(async () => heard.includes('org:o_1'), 'the notification');
    await unlisten();
  });

  // Defined on the PostgreSQL pass only (not skipped on PGlite: there is no connection to lose).
  if (inject('testDb') === 'postgres')
    it('survive their connection being terminated, clears caches, and listens again', async () => {
      const heard: string[] = [];
      await db.listen('svc_test_channel', (payload) => heard.push(payload));
      const listeners = async () =>
        db.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity
         WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
        );
      const [before] = await listeners();
      expect(before).toBeDefined();
      await db.query('SELECT pg_terminate_backend($1)', [before!.pid]);
      const dropAll = () => heard.filter((payload) => payload === '').length;
      // Told to drop everything once disconnected, and again once listening on every channel anew
      // (what the caches refilled while nothing was heard may be stale).
      await until(async () => dropAll() >= 1, 'the empty "drop everything" message');
      await until(async () => dropAll() >= 2, 'the second "drop everything", once listening again');
      const [after] = await listeners();
      expect(after).toBeDefined();
      expect(after!.pid).not.toBe(before!.pid);
      // Back on a new connection: a NOTIFY from elsewhere reaches the handler again.
      await db.query(`SELECT pg_notify('svc_test_channel', 'key:k_1')`);
      await until(async () => heard.includes('key:k_1'), 'the notification on the new connection');
    });
});

describe('statements with parameters (prepared once per session)', () => {
  it('sends and reads back every kind of parameter the way a one-off query does', async () => {
    const at = new Date('2026-11-23T16:20:00.123Z');
    const ids = ['6ecd8c99-4036-403d-bf84-cf8400f67836', '0b85114f-94e8-478b-affa-f0be7785b7fe'];
    const sql = `SELECT $1::timestamptz AS at, $2::uuid[] AS ids, $3::jsonb AS data, $4::boolean AS flag,
      $5::numeric AS amount, $6::text AS missing, $7::bigint AS big, $8::text[] AS words`;
    const params = [at, ids, JSON.stringify({ x: [1, 'dos'] }), true, 1234.5, null, 42, ['a"b', 'c,d']];
    for (let run = 0; run < 3; run++) {
      const [row] = await db.query<Record<string, unknown>>(sql, params);
      expect(row).toEqual({
        at,
        ids,
        data: { x: [1, 'dos'] },
        flag: true,
        amount: 1234.5,
        missing: null,
        big: 42,
        words: ['a"b', 'c,d'],
      });
    }
  });

  it('reports a statement that cannot be prepared with its code, and prepares it once it can be', async () => {
    const table = `prepared_later_${Date.now()}`;
    const sql = `SELECT n FROM ${table} WHERE n = $1`;
    await expect(db.query(sql, [1])).rejects.toMatchObject({ code: '42P01' });
    await db.query(`CREATE TABLE ${table} (n integer UNIQUE)`);
    try {
      await db.query(`INSERT INTO ${table} (n) VALUES ($1)`, [1]);
      expect(await db.query(sql, [1])).toEqual([{ n: 1 }]);
      // An error while running leaves the session usable, inside and outside a transaction.
      await expect(db.query(`INSERT INTO ${table} (n) VALUES ($1)`, [1])).rejects.toMatchObject({
        code: '23505',
      });
      await expect(
        db.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${table} (n) VALUES ($1)`, [2]);
          await tx.query(`INSERT INTO ${table} (n) VALUES ($1)`, [1]);
        }),
      ).rejects.toMatchObject({ code: '23505' });
      expect(await db.query(`SELECT n FROM ${table} ORDER BY n`, [])).toEqual([{ n: 1 }]);
    } finally {
      await db.query(`DROP TABLE ${table}`);
    }
  });

  it.runIf(inject('testDb') === 'pglite')(
    'parses a statement once on PGlite, however often it runs',
    async () => {
      const sql = 'SELECT $1::int + 1 AS next';
      for (let n = 0; n < 5; n++) expect(await db.query(sql, [n])).toEqual([{ next: n + 1 }]);
      const prepared = await db.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM pg_prepared_statements WHERE statement = $1',
        [sql],
      );
      expect(prepared).toEqual([{ count: 1 }]);
    },
  );
});

describe('statements run with `genericPlan`', () => {
  // The statement reads how its own session planned it so far, this run included.
  const plans = async (options?: { genericPlan: boolean }, divisor = 1) =>
    (
      await db.query<{ generic: number; custom: number }>(
        `SELECT generic_plans AS generic, custom_plans AS custom FROM pg_prepared_statements
         WHERE statement LIKE '%plans of this very statement%' AND 1 / $1::int = 1`,
        [divisor],
        options,
      )
    )[0]!;
  const planChoice = async () => (await db.query('SHOW plan_cache_mode'))[0]!.plan_cache_mode;

  it('are planned once, for any values, and other statements for their values', async () => {
    const pglite = inject('testDb') === 'pglite';
    // PostgreSQL plans the first five runs of a prepared statement for their values anyway.
    const before = await plans();
    expect(before.generic).toBe(0);
    // PostgreSQL: on connections of their own, whose sessions choose the generic plan. PGlite: in
    // its one session (the same prepared statement), its choice set for them alone. Even after an error.
    const generic = await plans({ genericPlan: true });
    expect(generic).toEqual({ generic: 1, custom: pglite ? before.custom : 0 });
    await expect(plans({ genericPlan: true }, 0)).rejects.toThrow(/division by zero/);
    expect((await plans({ genericPlan: true })).custom).toBe(generic.custom);
    // The others keep choosing.
    expect(await planChoice()).toBe('auto');
    const after = await plans();
    if (pglite) expect(after).toEqual({ generic: 3, custom: before.custom + 1 });
    else expect(after.generic).toBe(0);
  });

  it('are planned as usual in a transaction, on its connection', async () => {
    const outside = await plans();
    const inside = await db.transaction(() => plans({ genericPlan: true }));
    expect(inside.generic).toBe(outside.generic);
  });
});

// Defined on the PostgreSQL pass only: PGlite has no JIT compiler.
if (inject('testDb') === 'postgres')
  describe('connections to PostgreSQL', () => {
    it('run without JIT compilation, which cost a batch creation 240 ms for 3 ms of work', async () => {
      expect(await db.query('SHOW jit')).toEqual([{ jit: 'off' }]);
    });

    // The statement says which backend ran it, and when it began there.
    const ran = (lane: string, n: number, divisor = 1) =>
      db.query<{ pid: number; at: number; n: number }>(
        `SELECT pg_backend_pid() AS pid, extract(epoch FROM clock_timestamp())::float8 * 1000 AS at,
           $1::int / $2::int AS n, pg_sleep(0.05) IS NULL AS slept`,
        [n, divisor],
        { genericPlan: true, lane },
      );

    it('run the statements of one lane with a generic plan on one connection, in the order sent, each sent at once', async () => {
      const sent = [ran('lane-a', 1), ran('lane-a', 2), ran('lane-a', 3, 0), ran('lane-a', 4)];
      // This thread is kept busy while PostgreSQL runs them: a driver that waits for an answer
      // before it sends the next statement would send nothing more until it ends.
      const busyUntil = await new Promise<number>((resolve) =>
        setImmediate(() => {
          const until = Date.now() + 400;
          while (Date.now() < until) {}
          resolve(until);
        }),
      );
      const [first, second, failing, fourth] = await Promise.allSettled(sent);
      // A failing statement fails alone: the one sent behind it still runs.
      expect(failing).toMatchObject({ status: 'rejected', reason: { message: 'division by zero' } });
      const rows = [first, second, fourth].map(
        (r) => (r as PromiseFulfilledResult<{ pid: number; at: number; n: number }[]>).value[0]!,
      );
      expect(rows.map((row) => row.n)).toEqual([1, 2, 4]);
      expect(new Set(rows.map((row) => row.pid)).size).toBe(1);
      expect(rows[0]!.at).toBeLessThan(rows[1]!.at);
      expect(rows[1]!.at).toBeLessThan(rows[2]!.at);
      expect(rows[2]!.at).toBeLessThan(busyUntil);
    });

    it("open a lane's connection again once it was lost", async () => {
      const [before] = await ran('lane-b', 1);
      await db.query('SELECT pg_terminate_backend($1::int)', [before!.pid]);
      // The statement sent before the loss is noticed may fail with it; the next ones get a new connection.
      let after: { pid: number } | undefined;
      await until(async () => {
        after = (await ran('lane-b', 2).catch(() => []))[0];
        return after !== undefined;
      }, 'a new connection for the lane');
      expect(after!.pid).not.toBe(before!.pid);
    });
  });
