import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { readCatalog, seedDemo } from './seed.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

describe('seedDemo', () => {
  it('refuses a bad origin before writing anything', async () => {
    const catalog = readCatalog(join(import.meta.dirname, '../../../../demo/catalog.json'));
    const keys = async () => (await t.db.query('SELECT id FROM api_keys')).length;
    const before = await keys();
    await expect(seedDemo(t.db, catalog, { origins: ['http://ok.example', 'not-a-url'] })).rejects.toThrow(
      /not-a-url/,
    );
    expect(await keys()).toBe(before);
  });
});
