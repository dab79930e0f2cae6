import { memoize } from '../memo.js';

/** The content codings this server can send a body in, in its own order of preference. */
export type ContentCoding = 'br' | 'gzip';

/**
 * The content codings a request's `Accept-Encoding` accepts, best first (RFC 9110 §12.5.3):
 * highest q-value first, ties in the server's preference (br, then gzip); q=0 excludes a coding;
 * `*` stands for every coding the header does not name; `x-gzip` is gzip; names are
 * case-insensitive. `identity` (null) is listed only where the header ranks it above a coding;
 * whatever the list, a body as is stays the answer of last resort, as it was before any coding
 * was offered. No header, an empty one or one that cannot be read: no coding (the body as is).
 *
 * Remembered by the header's text: browsers send the same few values on every request.
 */
export const acceptedCodings: (header: string | null | undefined) => readonly (ContentCoding | null)[] = (
  header,
) => (header ? parsed(header) : NONE);

const NONE: readonly (ContentCoding | null)[] = Object.freeze([]);
const KNOWN = ['br', 'gzip', 'identity'] as const;
type Known = (typeof KNOWN)[number];
const Q_VALUE = /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/i;

const parsed = memoize((header: string): readonly (ContentCoding | null)[] => {
  const q = new Map<Known | '*', number>();
  for (const element of header.split(',')) {
    const [name = '', ...params] = element.split(';').map((part) => part.trim());
    if (name === '') continue;
    const coding = name.toLowerCase() === 'x-gzip' ? 'gzip' : name.toLowerCase();
    let weight = 1;
    let readable = true;
    for (const param of params) {
      const value = Q_VALUE.exec(param.replace(/\s*=\s*/, '='));
      if (value) weight = Number(value[1]);
      else if (/^q\s*=/i.test(param)) readable = false;
    }
    // An element whose q-value cannot be read is ignored, rather than guessed at.
    if (!readable) continue;
    if ((coding === '*' || (KNOWN as readonly string[]).includes(coding)) && !q.has(coding as Known))
      q.set(coding as Known | '*', weight);
  }
  const wildcard = q.get('*');
  const ranked = KNOWN.map((coding, preference) => ({
    coding,
    preference,
    weight: q.get(coding) ?? wildcard ?? (coding === 'identity' ? -1 : 0),
  }))
    .filter((entry) => entry.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.preference - b.preference);
  return Object.freeze(ranked.map((entry) => (entry.coding === 'identity' ? null : entry.coding)));
}, 256);
