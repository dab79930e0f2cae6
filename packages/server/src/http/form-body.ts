import type { Context } from 'hono';

/** A form body as Hono parses it (with `all`, a repeated field's values as a list). */
export type FormFields = Record<string, string | File | (string | File)[]>;

/**
 * The request's form fields, or undefined when the body cannot be read as a form (a multipart
 * body without its boundary, garbage): the caller answers 400 rather than letting it become a 500.
 * `all` keeps every value of a repeated field, as `parseBody({ all: true })`.
 */
export async function readForm(c: Context, all = false): Promise<FormFields | undefined> {
  try {
    return await c.req.parseBody({ all });
  } catch {
    return undefined;
  }
}

/** The answer to a form that could not be read. */
export const unreadableForm = (c: Context) => c.text('The form could not be read.', 400);
