import { hash, randomFillSync, randomUUID } from 'node:crypto';

// Random bytes drawn 4 KiB at a time from the system CSPRNG (as randomUUID buffers its own): a
// request id is made for every request and a token for every quote, so they must cost next to
// nothing. Each byte is handed out once.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** The offset of `count` (at most 4096) fresh random bytes in `pool`, to be read at once. */
function takeRandom(count: number): number {
  if (poolOffset + count > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += count;
  return poolOffset - count;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters of [0-9A-Za-z] from the system CSPRNG, without modulo bias. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const batch = Math.min(length * 2, pool.length);
    const start = takeRandom(batch);
    for (let i = start; i < start + batch && out.length < length; i++) {
      const byte = pool[i]!;
      // 248 = 4 × 62: bytes above it would favour the first characters.
      if (byte < 248) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** A new UUID v4. */
export const uuid = (): string => randomUUID();

/** A request id: `req_` and 24 hex characters (96 random bits) from the system CSPRNG. */
export function requestId(): string {
  const start = takeRandom(12);
  return `req_${pool.toString('hex', start, start + 12)}`;
}

/** Hex SHA-256 of a string or bytes (the one-shot `hash`: no Hash object, half the cost per key lookup). */
export const sha256 = (value: string | Uint8Array): string => hash('sha256', value, 'hex');

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a syntactically valid UUID; ids that are not are answered 404 without a query. */
export const isUuid = (value: string): boolean => UUID_RE.test(value);
