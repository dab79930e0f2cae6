import * as v from 'valibot';

const OBJECT_SCHEMAS = new Set(['object', 'strict_object', 'loose_object', 'object_with_rest']);

/** The outcome of {@link validate}: data, or one readable message naming the field. */
export type Validation<T> = { ok: true; value: T } | { ok: false; message: string; field: string };

/**
 * Validates `input` and returns data instead of throwing. The message names the field path the
 * way a developer writes it, e.g. `items[0].cantidad: must be a number greater than 0`.
 */
export function validate<T>(schema: v.GenericSchema<unknown, T>, input: unknown): Validation<T> {
  // Valibot's object schemas take an array as an object (its indexes as keys), so a body of `[]`
  // would pass for `{}`. Every object this service reads is a JSON object: anything else is named.
  if (OBJECT_SCHEMAS.has(schema.type) && input !== undefined && !isJsonObject(input)) {
    return { ok: false, field: 'body', message: `body: must be a JSON object, not ${kindOf(input)}` };
  }
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return { ok: true, value: result.output };
  const issue = result.issues[0]!;
  const path = (issue.path ?? [])
    .map((item) => item.key)
    .reduce<string>(
      (acc, key) =>
        typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key),
      '',
    );
  // Valibot reports an unknown key of a strict object at the key, with the `never` expectation.
  const unknown = issue.kind === 'schema' && issue.type === 'strict_object' && issue.expected === 'never';
  const missing = issue.input === undefined && !unknown;
  const field = path || 'body';
  const message = unknown ? 'unknown field' : missing ? 'is required' : issue.message;
  return { ok: false, field, message: `${field}: ${message}` };
}

const isJsonObject = (input: unknown) => typeof input === 'object' && input !== null && !Array.isArray(input);

/** What a JSON value that is not an object is, as a message says it: `an array`, `null`, `a string`. */
const kindOf = (input: unknown) =>
  input === null ? 'null' : Array.isArray(input) ? 'an array' : `a ${typeof input}`;
