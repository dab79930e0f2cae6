import type { Context } from 'hono';

/**
 * Whether a form post comes from our own pages: the browser says where a request comes from
 * (`Sec-Fetch-Site`, else `Origin`), so a form posted from another site is refused.
 */
export function sameOrigin(c: Context): boolean {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const origin = c.req.header('origin');
  return origin === undefined || origin === new URL(c.req.url).origin;
}
