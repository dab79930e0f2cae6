import { API_VERSION } from '../config.js';
import { requestId } from '../ids.js';
import { keyAllowsOrigin, originOf } from '../middleware/origin.js';
import { apiHeaders } from '../middleware/request-context.js';
import type { ElementsConfigCache } from '../services/elements-config.js';
import type { KeyStore } from '../services/key-store.js';
import { CONFIG_PATH, configResponse } from './elements.js';

/**
 * GET /api/v1/elements/config answered before routing: the request every page view with the widget
 * makes. When memory already holds everything the answer depends on (the publishable key, still
 * valid, allowing the request's origin, and its organization's configuration), the response is
 * built synchronously, without the middleware chain, and is the one the full pipeline would give.
 * Anything else returns undefined and takes the full pipeline, which answers or refuses as usual:
 * an uncached or unknown key, a secret key (rate-limited), an origin the key does not allow, a
 * query string, another `Service-Version`, an expired configuration.
 *
 * Revoking a key takes effect here at once, on every process: the revocation drops the key from
 * each process's cache (LISTEN/NOTIFY), and a key memory does not hold goes the full way.
 */
export function configFastPath(keys: KeyStore, configs: ElementsConfigCache, now: () => Date) {
  return function answerConfigFromMemory(request: Request): Response | undefined {
    if (request.method !== 'GET' || !isPath(request.url, CONFIG_PATH)) return undefined;
    const headers = request.headers;
    const version = headers.get('service-version');
    if (version !== null && version.trim() !== API_VERSION) return undefined;
    const secret = BEARER.exec(headers.get('authorization')?.trim() ?? '')?.[1];
    if (!secret?.startsWith('pk_')) return undefined;
    const auth = keys.peek(secret);
    if (auth?.key.kind !== 'publishable' || auth.key.revoked_at) return undefined;
    if (auth.key.expires_at && auth.key.expires_at.getTime() <= now().getTime()) return undefined;
    const origin = originOf(headers.get('origin'), headers.get('referer'));
    if (!keyAllowsOrigin(auth.key, origin)) return undefined;
    const config = configs.peek(auth);
    if (!config) return undefined;
    return configResponse(config, headers.get('if-none-match'), (extra) =>
      apiHeaders(requestId(), origin, extra),
    );
  };
}

const BEARER = /^Bearer\s+(\S+)$/i;

/** True when the absolute `url` has exactly `path` and no query string. */
function isPath(url: string, path: string): boolean {
  if (!url.endsWith(path)) return false;
  const start = url.indexOf('/', url.indexOf('://') + 3);
  return start === url.length - path.length;
}
