import { hash, randomBytes, randomUUID } from 'node:crypto';

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

/**
 * A request id, `req_` and 24 hex characters. Built from randomUUID, which draws from a buffered
 * entropy pool: this runs on every request, so it must cost next to nothing.
 */
export const requestId = (): string => `req_${randomUUID().replaceAll('-', '').slice(0, 24)}`;

/** Hex SHA-256 of a string or bytes (the one-shot `hash`: no Hash object, half the cost per key lookup). */
export const sha256 = (value: string | Uint8Array): string => hash('sha256', value, 'hex');

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a syntactically valid UUID; ids that are not are answered 404 without a query. */
export const isUuid = (value: string): boolean => UUID_RE.test(value);
