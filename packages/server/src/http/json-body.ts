import type { Context } from 'hono';
import { ApiError } from '../errors.js';

/** Largest accepted request body. */
export const MAX_BODY_BYTES = 64 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const parsed = new WeakMap<Request, unknown>();

/**
 * Reads the request body as JSON: 400 `invalid_json` without a JSON content type, with bytes that
 * are not UTF-8, or with text that is not JSON; 413 `payload_too_large` over {@link MAX_BODY_BYTES}.
 */
export async function readJson(c: Context): Promise<unknown> {
  if (parsed.has(c.req.raw)) return parsed.get(c.req.raw);
  requireJsonType(c);
  const value = parseJsonBytes(await readBodyBytes(c));
  parsed.set(c.req.raw, value);
  return value;
}

/**
 * As {@link readJson} for an operation whose body may be left out: undefined when there is none
 * (no bytes, whatever the headers say); a body that is there is read by the same rules.
 */
export async function readOptionalJson(c: Context): Promise<unknown> {
  if (parsed.has(c.req.raw)) return parsed.get(c.req.raw);
  const bytes = c.req.raw.body ? await readBodyBytes(c) : new Uint8Array();
  if (bytes.length === 0) return undefined;
  requireJsonType(c);
  const value = parseJsonBytes(bytes);
  parsed.set(c.req.raw, value);
  return value;
}

function requireJsonType(c: Context) {
  if (!isJsonContentType(c.req.header('content-type'))) {
    throw new ApiError(
      400,
      'invalid_json',
      'The body must be JSON sent with Content-Type: application/json.',
    );
  }
}

/** Whether a `Content-Type` header names JSON, as {@link readJson} requires. */
export const isJsonContentType = (type: string | null | undefined): boolean =>
  /^application\/json\s*(;|$)/.test((type ?? '').toLowerCase());

/**
 * The body's bytes as JSON: 400 `invalid_json` for bytes that are not UTF-8 or text that is not
 * JSON, 400 `invalid_request` naming the field for a string no text column of PostgreSQL can
 * store: one holding U+0000, or a lone UTF-16 surrogate. JSON can carry either only escaped
 * (`\u0000`, `\ud800`: UTF-8 bytes cannot), so the scan runs only when such an escape is in the text.
 */
export function parseJsonBytes(bytes: Uint8Array): unknown {
  let text: string;
  let value: unknown;
  try {
    text = utf8.decode(bytes);
    value = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid_json', 'The body is not valid JSON (UTF-8).');
  }
  if (UNSTORABLE_ESCAPE.test(text)) {
    const field = unstorablePath(value, '');
    if (field !== undefined) throw unstorableText(field || 'body');
  }
  return value;
}

const UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f])/i;
/** U+0000, or a surrogate not in a pair (`u` mode reads a pair as one code point). */
const UNSTORABLE = /[\0\p{Cs}]/u;
const UNSTORABLE_ALL = /[\0\p{Cs}]/gu;

/**
 * Nesting no operation's body comes near (the deepest is a line inside a list, 3 levels); past it
 * the scan below stops, so a body of thousands of nested arrays cannot exhaust the stack.
 */
export const MAX_BODY_DEPTH = 32;

/** Where in a parsed JSON value a string (or a key) cannot be stored, as `items[0].descripcion`. */
function unstorablePath(value: unknown, path: string, depth = 0): string | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  if (depth === MAX_BODY_DEPTH) throw tooDeep(path);
  for (const [key, item] of Object.entries(value)) {
    // A key is shown escaped, not echoed.
    const name = key.replace(UNSTORABLE_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const at = Array.isArray(value) ? `${path}[${name}]` : path ? `${path}.${name}` : name;
    if (name !== key) return at;
    const found = unstorablePath(item, at, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** 400 `invalid_request` for a body nested deeper than {@link MAX_BODY_DEPTH}, naming where. */
const tooDeep = (path: string) =>
  new ApiError(
    400,
    'invalid_request',
    `${path.split(/[.[]/)[0] || 'body'}: nested more than ${MAX_BODY_DEPTH} levels deep`,
  );

/** 400 `invalid_request` for text that cannot be stored (U+0000, a lone surrogate). */
export const unstorableText = (field: string) =>
  new ApiError(
    400,
    'invalid_request',
    `${field}: must be text without the NUL character (U+0000) or unpaired surrogates`,
  );

/** The raw body bytes, at most `limit` ({@link MAX_BODY_BYTES}); Hono caches them for later readers. */
export async function readBodyBytes(c: Context, limit = MAX_BODY_BYTES): Promise<Uint8Array<ArrayBuffer>> {
  const length = Number(c.req.header('content-length') ?? 0);
  if (length > limit) throw payloadTooLarge(limit);
  const buffer = await c.req.arrayBuffer();
  if (buffer.byteLength > limit) throw payloadTooLarge(limit);
  return new Uint8Array(buffer);
}

/** 413 `payload_too_large`, for a body over `limit` ({@link MAX_BODY_BYTES}). */
export const payloadTooLarge = (limit = MAX_BODY_BYTES) =>
  new ApiError(413, 'payload_too_large', `The body is larger than ${limit / 1024} KiB.`);
