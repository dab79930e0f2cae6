import { invalidRequest } from '../errors.js';
import { decodeOffsetCursor, encodeOffsetCursor } from './cursor.js';

/** Reads an optional integer query parameter within bounds; 400 naming the parameter otherwise. */
export function intParam(
  value: string | undefined,
  name: string,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,16}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw invalidRequest(`${name}: must be an integer from ${min} to ${max}`);
  }
  return Number(value);
}

/** Reads an optional query parameter that must be one of `allowed`. */
export function enumParam<T extends string>(
  value: string | undefined,
  name: string,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw invalidRequest(`${name}: must be one of ${allowed.join(', ')}`);
  return value as T;
}

/** Refuses query parameters the operation does not know, naming them. */
export function onlyParams(query: Record<string, string>, allowed: readonly string[]): void {
  const unknown = Object.keys(query).filter((name) => !allowed.includes(name));
  if (unknown.length > 0) throw invalidRequest(`${unknown.join(', ')}: unknown query parameter`);
}

/** A page of a list paged by offset. */
export interface OffsetPage {
  limit: number;
  offset: number;
}

/**
 * `limit` and `offset` of a list paged by offset (only `others` besides them); a `cursor` (the
 * previous page's `meta.next_cursor`) stands for the offset, and `offset` is then ignored, as the
 * spec says of the quote list.
 */
export function offsetPaging(query: Record<string, string>, others: readonly string[] = []): OffsetPage {
  onlyParams(query, ['limit', 'offset', 'cursor', ...others]);
  const limit = intParam(query.limit, 'limit', 1, 200) ?? 20;
  if (query.cursor !== undefined) return { limit, offset: decodeOffsetCursor(query.cursor) };
  return { limit, offset: offsetParam(query) };
}

/** `offset` (0 by default), 400 naming it when it is not a whole number from 0 to 2^53 − 1. */
export const offsetParam = (query: Record<string, string>): number =>
  intParam(query.offset, 'offset', 0, Number.MAX_SAFE_INTEGER) ?? 0;

/** The `meta` of an offset page: `next_cursor` names the next page, null after the last. */
export const offsetMeta = (page: OffsetPage, total: number) => ({
  limit: page.limit,
  offset: page.offset,
  total,
  next_cursor: page.offset + page.limit < total ? encodeOffsetCursor(page.offset + page.limit) : null,
});
