import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { originAllowed } from '../middleware/origin.js';
import { normalizeOrigin } from './api-keys.js';

const refusal = (origin: string): ApiError | undefined => {
  try {
    normalizeOrigin(origin);
  } catch (error) {
    return error as ApiError;
  }
  return undefined;
};

describe('normalizeOrigin', () => {
  it('stores exact origins and wildcards as the browser sends origins', () => {
    expect(normalizeOrigin(' https://Shop.Example:443/ ')).toBe('https://shop.example');
    expect(normalizeOrigin('http://localhost:3000')).toBe('http://localhost:3000');
    expect(normalizeOrigin('https://*.shop.example')).toBe('https://*.shop.example');
    expect(normalizeOrigin('HTTPS://*.Tienda.Nopal.Example')).toBe('https://*.tienda.nopal.example');
    // Browsers leave the default port out: written out, it could never match.
    expect(normalizeOrigin('https://*.shop.example:443')).toBe('https://*.shop.example');
    expect(normalizeOrigin('https://*.shop.example:8443')).toBe('https://*.shop.example:8443');
    expect(normalizeOrigin('https://*.tienda.méxico')).toBe('https://*.tienda.xn--mxico-bsa');
    expect(normalizeOrigin('https://*.shop.co.uk')).toBe('https://*.shop.co.uk');
    expect(normalizeOrigin('https://*.tienda.github.io')).toBe('https://*.tienda.github.io');
  });

  it.each([
    // Over a whole top-level domain or a suffix anyone registers under: every site there.
    ['https://*.com', 'a domain of at least two labels'],
    ['https://*.co', 'a domain of at least two labels'],
    ['https://*.com:443', 'a domain of at least two labels'],
    ['https://*.com.mx', 'com.mx is a suffix under which anyone registers names'],
    ['https://*.co.uk', 'co.uk is a suffix under which anyone registers names'],
    // The Public Suffix List's private part: each name under these is another owner's site.
    ['https://*.github.io', 'github.io is a suffix under which anyone registers names'],
    ['https://*.vercel.app', 'vercel.app is a suffix under which anyone registers names'],
    ['https://*.blogspot.com', 'blogspot.com is a suffix under which anyone registers names'],
    ['https://*.shop.123', 'not an origin like https://*.shop.example'],
    ['https://*.shop.1a', 'not an origin like https://*.shop.example'],
    // Patterns that could never match anything.
    ['*', 'a wildcard is only the first label'],
    ['https://*', 'a wildcard is only the first label'],
    ['https://*.', 'a wildcard is only the first label'],
    ['https://*.shop.example.', 'not an origin like https://*.shop.example'],
    ['https://a.*.example.com', 'a wildcard is only the first label'],
    ['https://*.*.example.com', 'a wildcard is only the first label'],
    ['https://*shop.example', 'a wildcard is only the first label'],
    ['https://*.shop.example/tienda', 'a wildcard is only the first label'],
    ['https://*.shop.example:99999', 'not an origin like https://*.shop.example'],
    ['https://*.shop_x.example', 'not an origin like https://*.shop.example'],
    ['http://*.shop.example', 'a wildcard origin is https only'],
    ['ftp://*.shop.example', 'a wildcard origin is https only'],
    ['https://shop.example/tienda', 'not an origin like https://shop.example'],
  ])('refuses %s with invalid_request naming it', (origin, why) => {
    const error = refusal(origin);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(error!.message).toContain(`origin "${origin}"`);
    expect(error!.message).toContain(why);
  });
});

describe('originAllowed', () => {
  it('matches a wildcard over subdomains of its domain only', () => {
    const list = [normalizeOrigin('https://*.shop.example:443')];
    expect(originAllowed('https://a.shop.example', list, 'live')).toBe(true);
    expect(originAllowed('https://a.b.shop.example', list, 'live')).toBe(true);
    expect(originAllowed('https://shop.example', list, 'live')).toBe(false);
    expect(originAllowed('https://evilshop.example', list, 'live')).toBe(false);
    expect(originAllowed('http://a.shop.example', list, 'live')).toBe(false);
  });

  it('lets a wildcard over one label, stored before such entries were refused, match nothing', () => {
    for (const entry of ['https://*.com', 'https://*.com:8443', 'https://*.'])
      for (const origin of ['https://attacker.com', 'https://a.b.com', 'https://x.com:8443'])
        expect(originAllowed(origin, [entry], 'live'), `${entry} ${origin}`).toBe(false);
  });
});
