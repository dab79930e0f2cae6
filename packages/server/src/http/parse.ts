import { validate } from '@svc/core';
import type { Context } from 'hono';
import * as v from 'valibot';
import { invalidRequest } from '../errors.js';
import { readOptionalJson } from './json-body.js';

/** Parses with a schema; 400 `invalid_request` whose message names the field. */
export function parse<T>(schema: v.GenericSchema<unknown, T>, input: unknown): T {
  const result = validate(schema, input);
  if (!result.ok) throw invalidRequest(result.message);
  return result.value;
}

const NO_FIELDS = v.strictObject({});

/**
 * The body of an operation that takes no fields: none at all, or `{}`. Anything else is refused as
 * any body is (400 `invalid_json` when it is not JSON, `invalid_request` naming a field it has), so
 * a garbled request never passes for an empty one.
 */
export async function readNoFields(c: Context): Promise<void> {
  const body = await readOptionalJson(c);
  if (body !== undefined) parse(NO_FIELDS, body);
}
