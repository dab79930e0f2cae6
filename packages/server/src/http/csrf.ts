import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { sameOrigin } from './same-origin.js';

/**
 * Double-submit CSRF protection for the public pages' plain forms (they work without JavaScript):
 * a random value in a SameSite=Strict, HttpOnly cookie scoped to the page's path, repeated in a
 * hidden field of each form. A request forged from another site can neither read the value nor
 * send the cookie along with it. A browser also says where a form comes from (`Sec-Fetch-Site`, or
 * `Origin` where it lacks that, see {@link sameOrigin}): only the page's own origin may post, so a
 * cookie planted from a sibling subdomain, which the double submit alone would take, does not help.
 */
export interface CsrfGuard {
  /** The value for the page's forms; the cookie's, when the browser already has a valid one. */
  issue(c: Context, path: string): string;
  /** Whether the form's `csrf` field matches the cookie. */
  check(c: Context, form: Record<string, unknown>): boolean;
}

const VALUE_RE = /^[A-Za-z0-9_-]{32}$/;

export function csrfGuard(cookieName: string, options: { publicUrl: string }): CsrfGuard {
  const secure = options.publicUrl.startsWith('https:');
  const publicOrigin = new URL(options.publicUrl).origin;
  return {
    issue(c, path) {
      const existing = getCookie(c, cookieName);
      // Reusing the cookie's value keeps a page open in two tabs working in both.
      const value = existing && VALUE_RE.test(existing) ? existing : randomBytes(24).toString('base64url');
      setCookie(c, cookieName, value, { path, httpOnly: true, sameSite: 'Strict', secure });
      return value;
    },
    check(c, form) {
      if (!sameOrigin(c, publicOrigin)) return false;
      const cookie = getCookie(c, cookieName) ?? '';
      const sent = typeof form.csrf === 'string' ? form.csrf : '';
      return (
        VALUE_RE.test(cookie) &&
        cookie.length === sent.length &&
        timingSafeEqual(Buffer.from(cookie), Buffer.from(sent))
      );
    },
  };
}
