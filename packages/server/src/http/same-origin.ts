import type { Context } from 'hono';

/**
 * Whether a form post comes from our own pages: the browser says where a request comes from
 * (`Sec-Fetch-Site`, `none` when the user started it; else, in browsers without it, `Origin`), so a
 * form posted from another site is refused. `publicOrigin` (PUBLIC_URL's) is ours too: behind a
 * proxy the request's own URL names the internal address. Outside browsers neither is sent.
 */
export function sameOrigin(c: Context, publicOrigin?: string): boolean {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const origin = c.req.header('origin');
  return origin === undefined || origin === new URL(c.req.url).origin || origin === publicOrigin;
}
