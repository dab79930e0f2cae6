import { invalidRequest } from '../errors.js';

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
