import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../db/database.js';
import { createApiKey } from '../services/api-keys.js';
import { createOrg } from '../services/orgs.js';
import { createTestContext, type TestContext } from '../testing/harness.js';
import { listQuotes } from './quotes.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

describe('listQuotes', () => {
  it('never says a first page is empty while counting a quote made after it was read', async () => {
    const org = await createOrg(t.db, { plan: 'developer', nombre: `Vacía ${Date.now()}` });
    const { key } = await createApiKey(t.db, { orgId: org.id, kind: 'secret', mode: 'test', scope: 'write' });
    const create = (filters: 0 | 1) =>
      t.call('POST', '/api/v1/cotizaciones', {
        key,
        body: {
          cliente: { empresa: `Entre lecturas ${filters}` },
          items: [{ descripcion: 'x', cantidad: 1, precio_unitario: 10 }],
          send: filters === 1,
        },
      });
    // A quote is created between the page's statement and whatever runs after it, as a request
    // on another connection (or in the same MCP batch) may.
    const racing = (filters: 0 | 1): Queryable => {
      let first = true;
      return {
        async query(sql, params, options) {
          const rows = await t.db.query(sql, params, options);
          if (first) {
            first = false;
            expect((await create(filters)).status).toBe(200);
          }
          return rows as never;
        },
      };
    };
    const scope = { orgId: org.id, mode: 'test' };
    // Without filters (the folio counter's total) and with one (a count: the second quote is sent).
    expect(await listQuotes(racing(0), scope, { limit: 1, offset: 0 })).toEqual({
      rows: [],
      total: 0,
      more: false,
    });
    const drafts = await listQuotes(racing(1), scope, { limit: 5, offset: 0, status: 'sent' });
    expect(drafts).toEqual({ rows: [], total: 0, more: false });
    // Beyond the first page an empty page still carries the total, counted apart.
    const beyond = await listQuotes(t.db, scope, { limit: 5, offset: 10 });
    expect(beyond).toEqual({ rows: [], total: 2, more: false });
  });
});
