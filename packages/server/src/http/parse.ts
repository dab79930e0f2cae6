import { validate } from '@svc/core';
import type * as v from 'valibot';
import { invalidRequest } from '../errors.js';

/** Parses with a schema; 400 `invalid_request` whose message names the field. */
export function parse<T>(schema: v.GenericSchema<unknown, T>, input: unknown): T {
  const result = validate(schema, input);
  if (!result.ok) throw invalidRequest(result.message);
  return result.value;
}
