/** Seconds to wait before attempt n+1 after attempt n failed (n = 1…10): the spec's schedule. */
export const RETRY_DELAYS_S = [10, 60, 300, 1800, 7200, 18_000, 36_000, 86_400, 86_400, 86_400];

/** Attempts per event before it fails for good. */
export const MAX_ATTEMPTS = 11;

/** When the next attempt after `attempts` failed ones is due, with ±20 % jitter. */
export function nextAttemptAt(now: Date, attempts: number, random = Math.random): Date {
  const base = RETRY_DELAYS_S[Math.min(attempts, RETRY_DELAYS_S.length) - 1]!;
  const jitter = 0.8 + random() * 0.4;
  return new Date(now.getTime() + base * jitter * 1000);
}
