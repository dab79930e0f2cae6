import { invalidRequest } from '../errors.js';

/** An opaque cursor for a position in an insertion-ordered list. */
export const encodeCursor = (seq: number): string => Buffer.from(`s:${seq}`).toString('base64url');

/** An opaque cursor for the page of an offset-paged list that starts at `offset`. */
export const encodeOffsetCursor = (offset: number): string =>
  Buffer.from(`o:${offset}`).toString('base64url');

/** Decodes {@link encodeOffsetCursor}'s output; 400 `invalid_request` for anything else. */
export function decodeOffsetCursor(cursor: string): number {
  const match = /^o:(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || !Number.isSafeInteger(Number(match[1]))) {
    throw invalidRequest('cursor: not a cursor returned by this API (use meta.next_cursor)');
  }
  return Number(match[1]);
}

/** Decodes {@link encodeCursor}'s output; 400 `invalid_request` for anything else. */
export function decodeCursor(cursor: string): number {
  const match = /^s:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw invalidRequest('cursor: not a cursor returned by this API (use meta.next_cursor)');
  return Number(match[1]);
}
