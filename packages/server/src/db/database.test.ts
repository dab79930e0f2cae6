import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../testing/harness.js';
import type { Database } from './database.js';

const txid = async (db: Pick<Database, 'query'>) =>
  (await db.query<{ id: string }>('SELECT txid_current()::text AS id'))[0]!.id;

describe('the ambient transaction', () => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ db, cleanup } = await openTestDatabase());
  });
  afterAll(async () => {
    await cleanup();
  });

  it('runs plain queries made during a transaction inside it, and outside once it ends', async () => {
    const inside = await db.transaction(async (tx) => ({
      explicit: await txid(tx),
      ambient: await txid(db),
    }));
    expect(inside.ambient).toBe(inside.explicit);
    // After the last transaction the tracking is switched off: queries run on their own again.
    expect(await txid(db)).not.toBe(inside.explicit);
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
});
