import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new signing secret, `whsec_` and 32 random bytes in base64url. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

const hmac = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest('hex');

/**
 * The signature headers of a delivery: `X-Service-Signature-V1: t=<unix>,v1=<hex>` (one `v1` per
 * secret, the new one first during a rotation) and the legacy `X-Service-Signature: sha256=<hex>`,
 * which holds one signature: the new secret's (docs/webhooks.md tells receivers).
 */
export function signatureHeaders(
  secrets: string[],
  body: string,
  unixSeconds: number,
): Record<string, string> {
  const v1 = secrets.map((secret) => `v1=${hmac(secret, `${unixSeconds}.${body}`)}`).join(',');
  return {
    'X-Service-Signature-V1': `t=${unixSeconds},${v1}`,
    'X-Service-Signature': `sha256=${hmac(secrets[0]!, body)}`,
  };
}

/** Options of {@link verifyWebhook}. */
export interface VerifyOptions {
  /** Oldest signature accepted, in seconds. @defaultValue 300 */
  toleranceSeconds?: number;
  /** The current time in Unix seconds (tests). */
  now?: number;
}

/**
 * Verifies a delivery in a merchant's receiver: the `X-Service-Signature-V1` header must carry a
 * recent timestamp and a `v1` that matches the body under one of the secrets (pass both during a
 * rotation). Comparisons are constant-time. Returns true or false; never throws.
 *
 * @example
 * ```ts
 * import { verifyWebhook } from '@svc/server';
 * app.post('/hooks/svc', async (req, res) => {
 *   const raw = await readRawBody(req); // the exact bytes, before any JSON parsing
 *   if (!verifyWebhook(process.env.SVC_WEBHOOK_SECRET, req.headers, raw)) return res.status(400).end();
 *   const event = JSON.parse(raw); // handle idempotently by event.id
 *   res.status(200).end();
 * });
 * ```
 */
export function verifyWebhook(
  secret: string | string[],
  headers: Record<string, string | string[] | undefined> | Headers,
  rawBody: string | Uint8Array,
  options: VerifyOptions = {},
): boolean {
  const header =
    headers instanceof Headers
      ? headers.get('x-service-signature-v1')
      : (Object.entries(headers).find(([name]) => name.toLowerCase() === 'x-service-signature-v1')?.[1] ??
        null);
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return false;
  const parts = value.split(',').map((part) => part.trim().split('=') as [string, string]);
  const timestamp = Number(parts.find(([k]) => k === 't')?.[1]);
  const candidates = parts.filter(([k]) => k === 'v1').map(([, v]) => v);
  if (!Number.isInteger(timestamp) || candidates.length === 0) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  for (const s of Array.isArray(secret) ? secret : [secret]) {
    const expected = Buffer.from(hmac(s, `${timestamp}.${body}`), 'hex');
    for (const candidate of candidates) {
      const given = Buffer.from(candidate, 'hex');
      if (given.length === expected.length && timingSafeEqual(given, expected)) return true;
    }
  }
  return false;
}
