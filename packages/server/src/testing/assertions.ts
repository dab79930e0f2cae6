import { expect } from 'vitest';
import type { Database } from '../db/database.js';

/** Asserts the flat error body of the spec and returns it. */
export async function expectError(
  response: Response,
  status: number,
  code: string,
): Promise<Record<string, unknown>> {
  const body = (await response.json()) as Record<string, unknown>;
  expect({ status: response.status, code: body.code }).toEqual({ status, code });
  expect(typeof body.error).toBe('string');
  expect(body.error).not.toBe('');
  expect(body.request_id).toBe(response.headers.get('service-request-id'));
  // The code's entry on the service's own list of errors (`PUBLIC_URL/docs/errors#<code>`).
  expect(String(body.doc_url)).toMatch(new RegExp(`^https?://[^/]+/docs/errors#${code}$`));
  return body;
}

/** Polls `check` every 20 ms until it returns true, or fails naming `what` after `timeoutMs`. */
export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The statements sent through `db` while `fn` runs, those of its transactions included. */
export async function statementsDuring(db: Database, fn: () => Promise<unknown>): Promise<string[]> {
  const { query, transaction } = db;
  const statements: string[] = [];
  db.query = (sql, params, options) => {
    statements.push(sql);
    return query(sql, params, options);
  };
  // And those of its transactions, which run on a connection of their own.
  db.transaction = (work, options) =>
    transaction(
      (tx) =>
        work({
          ...tx,
          query: (sql, params, queryOptions) => {
            statements.push(sql);
            return tx.query(sql, params, queryOptions);
          },
        }),
      options,
    );
  try {
    await fn();
  } finally {
    db.query = query;
    db.transaction = transaction;
  }
  return statements;
}
