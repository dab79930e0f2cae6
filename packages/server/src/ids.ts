import { hash, randomBytes, randomFillSync, randomUUID } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters of [0-9A-Za-z] from the system CSPRNG, without modulo bias. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 × 62: bytes above it would favour the first characters.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** A new UUID v4. */
export const uuid = (): string => randomUUID();

// Random bytes drawn 4 KiB at a time for request ids (as randomUUID buffers its own): one id is
// made for every request, so it must cost next to nothing.
const idPool = Buffer.alloc(4096);
let idOffset = idPool.length;

/** A request id: `req_` and 24 hex characters (96 random bits) from the system CSPRNG. */
export function requestId(): string {
  if (idOffset + 12 > idPool.length) {
    randomFillSync(idPool);
    idOffset = 0;
  }
  idOffset += 12;
  return `req_${idPool.toString('hex', idOffset - 12, idOffset)}`;
}

/** Hex SHA-256 of a string or bytes (the one-shot `hash`: no Hash object, half the cost per key lookup). */
export const sha256 = (value: string | Uint8Array): string => hash('sha256', value, 'hex');

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a syntactically valid UUID; ids that are not are answered 404 without a query. */
export const isUuid = (value: string): boolean => UUID_RE.test(value);
