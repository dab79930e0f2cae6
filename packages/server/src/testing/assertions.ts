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
  expect(String(body.doc_url)).toMatch(/^https:\/\//);
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

/**
 * The statements sent through `db.query` (not those of its transactions) while `fn` runs: the
 * reads a route makes once its transaction committed, say.
 */
export async function statementsDuring(db: Database, fn: () => Promise<unknown>): Promise<string[]> {
  const query = db.query;
  const statements: string[] = [];
  db.query = (sql, params, options) => {
    statements.push(sql);
    return query(sql, params, options);
  };
  try {
    await fn();
  } finally {
    db.query = query;
  }
  return statements;
}
