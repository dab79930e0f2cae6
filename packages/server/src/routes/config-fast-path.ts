import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { API_VERSION } from '../config.js';
import { requestId } from '../ids.js';
import { memoize } from '../memo.js';
import { keyAllowsOrigin, originOf } from '../middleware/origin.js';
import { hashKey } from '../services/api-keys.js';
import type { ElementsConfigCache } from '../services/elements-config.js';
import type { KeyStore } from '../services/key-store.js';
import { CONFIG_PATH, type ConfigAnswer, configAnswer, headerPairs } from './elements.js';

/** What the fast path reads of a request. */
export interface ConfigRequest {
  method: string;
  /** The path and query string, as in the request line. */
  target: string;
  /** A header by its lower-case name. */
  header(name: string): string | null | undefined;
}

/** Answers GET /api/v1/elements/config from memory, or returns undefined (see {@link configFastPath}). */
export type ConfigFromMemory = (request: ConfigRequest) => ConfigAnswer | undefined;

/**
 * GET /api/v1/elements/config answered before routing: the request every page view with the widget
 * makes. When memory already holds everything the answer depends on (the publishable key, still
 * valid, allowing the request's origin, and its organization's configuration), the answer is
 * built synchronously, without the middleware chain, and is the one the full pipeline would give.
 * Anything else returns undefined and takes the full pipeline, which answers or refuses as usual:
 * an uncached or unknown key, a secret key (rate-limited), a key with an IP allowlist, an origin
 * the key does not allow, a query string, another `Service-Version`, an expired configuration.
 *
 * Revoking a key takes effect here at once, on every process: the revocation drops the key from
 * each process's cache (LISTEN/NOTIFY), and a key memory does not hold goes the full way.
 */
export function configFastPath(
  keys: KeyStore,
  configs: ElementsConfigCache,
  now: () => Date,
): ConfigFromMemory {
  return function answerConfigFromMemory(request) {
    if (request.method !== 'GET' || request.target !== CONFIG_PATH) return undefined;
    const version = request.header('service-version');
    if (version != null && version.trim() !== API_VERSION) return undefined;
    const secret = BEARER.exec(request.header('authorization')?.trim() ?? '')?.[1];
    if (!secret?.startsWith('pk_')) return undefined;
    const auth = keys.peek(secret, publishableHash(secret));
    if (auth?.key.kind !== 'publishable' || auth.key.revoked_at) return undefined;
    if (auth.key.expires_at && auth.key.expires_at.getTime() <= now().getTime()) return undefined;
    // A key limited to some IPs: the pipeline checks the client's address on every request.
    if (auth.key.allowed_ips.length > 0) return undefined;
    const origin = originOf(request.header('origin'), request.header('referer'));
    if (!keyAllowsOrigin(auth.key, origin)) return undefined;
    const config = configs.peek(auth);
    if (!config) return undefined;
    return configAnswer(
      config,
      { ifNoneMatch: request.header('if-none-match'), acceptEncoding: request.header('accept-encoding') },
      // CORS, as the pipeline's, only for a request that sent an Origin.
      request.header('origin') ? origin : null,
      requestId(),
    );
  };
}

const BEARER = /^Bearer\s+(\S+)$/i;

// Publishable keys are public by design (every page with the widget carries one), so their hashes
// may be remembered by their text: one SHA-256 less per page view. Secret keys are never kept.
export const publishableHash = memoize(hashKey);

/**
 * The fast path in front of a Fetch handler (`app.fetch`, used in process and by tests). Whatever
 * else the handler is called with goes along unchanged: @hono/node-server passes the Node request
 * there, which the client's IP address is read from.
 */
export function fetchWithFastPath<Rest extends unknown[]>(
  fromMemory: ConfigFromMemory,
  route: (request: Request, ...rest: Rest) => Response | Promise<Response>,
): (request: Request, ...rest: Rest) => Response | Promise<Response> {
  return (request, ...rest) => {
    const url = request.url;
    const answer = fromMemory({
      method: request.method,
      target: url.slice(url.indexOf('/', url.indexOf('://') + 3)),
      header: (name) => request.headers.get(name),
    });
    return answer
      ? new Response(answer.body, { status: answer.status, headers: headerPairs(answer.headers) })
      : route(request, ...rest);
  };
}

/**
 * The fast path in front of the HTTP server's listener, on Node's own request and response: no
 * Fetch `Request`, `Headers` or `Response` is built for the page view's configuration, which
 * halves what the server spends on it.
 */
export function listenerWithFastPath(fromMemory: ConfigFromMemory, route: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const answer = fromMemory({
      method: req.method ?? '',
      target: req.url ?? '',
      header: nodeHeader(req),
    });
    if (!answer) return route(req, res);
    // A flat list of names and values: Node reads it without walking an object's keys.
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body ?? undefined);
  };
}

/** A Node request's header by its lower-case name, as the fast paths read it. */
export const nodeHeader =
  (req: IncomingMessage) =>
  (name: string): string | undefined => {
    const value = req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
