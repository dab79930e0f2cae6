import { invalidRequest } from '../errors.js';

/**
 * Opaque list cursors: a kind (`s` a position in an insertion-ordered list, `o` the offset of a
 * page of a list paged by offset) and a number, base64url-encoded.
 */
type Kind = 's' | 'o';
const encode = (kind: Kind, n: number): string => Buffer.from(`${kind}:${n}`).toString('base64url');

/** The number of a cursor of `kind`; 400 `invalid_request` for anything else. */
function decode(kind: Kind, cursor: string): number {
  const match = new RegExp(`^${kind}:(\\d{1,16})$`).exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const n = Number(match?.[1]);
  if (!match || !Number.isSafeInteger(n)) {
    throw invalidRequest('cursor: not a cursor returned by this API (use meta.next_cursor)');
  }
  return n;
}

/** An opaque cursor for a position in an insertion-ordered list. */
export const encodeCursor = (seq: number): string => encode('s', seq);
/** Decodes {@link encodeCursor}'s output; 400 `invalid_request` for anything else. */
export const decodeCursor = (cursor: string): number => decode('s', cursor);

/** An opaque cursor for the page of an offset-paged list that starts at `offset`. */
export const encodeOffsetCursor = (offset: number): string => encode('o', offset);
/** Decodes {@link encodeOffsetCursor}'s output; 400 `invalid_request` for anything else. */
export const decodeOffsetCursor = (cursor: string): number => decode('o', cursor);
