import * as v from 'valibot';

/** The outcome of {@link validate}: data, or one readable message naming the field. */
export type Validation<T> = { ok: true; value: T } | { ok: false; message: string; field: string };

/**
 * Validates `input` and returns data instead of throwing. The message names the field path the
 * way a developer writes it, e.g. `items[0].cantidad: must be a number greater than 0`.
 */
export function validate<T>(schema: v.GenericSchema<unknown, T>, input: unknown): Validation<T> {
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
