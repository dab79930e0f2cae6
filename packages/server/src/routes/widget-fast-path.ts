import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { API_VERSION } from '../config.js';
import { clientIpFrom } from '../http/client-ip.js';
import { apiErrorFor, errorBody } from '../http/error-handler.js';
import { isJsonContentType, MAX_BODY_BYTES, payloadTooLarge } from '../http/json-body.js';
import type { Logger } from '../logger.js';
import { MCP_CHANNEL_HEADER } from '../mcp/channel.js';
import { keyAllowsOrigin, originOf } from '../middleware/origin.js';
import { apiHeaders } from '../middleware/request-context.js';
import type { KeyWithOrg } from '../services/key-store.js';
import type { AppDeps } from '../types.js';
import { nodeHeader, publishableHash } from './config-fast-path.js';

/** What a widget fast path reads of a request. */
export interface WidgetRequest {
  method: string;
  /** The path and query string, as in the request line. */
  target: string;
  /** A header by its lower-case name. */
  header(name: string): string | null | undefined;
  /** The socket's peer address, when there is a socket. */
  remoteAddress: string | undefined;
  /** The whole body; read only once the fast path has taken the request. */
  body(): Promise<Uint8Array>;
}

/** A fast path's answer, before it becomes a Fetch or a Node response. */
export interface WidgetAnswer {
  status: number;
  headers: Record<string, string>;
  /**
   * The JSON text. A string rather than bytes: Node writes the head and a string body as one
   * string in one write, where bytes would cost an allocation and a second buffer in the write.
   */
  body: string;
}

/** Answers one of the widget's POSTs without routing, or returns undefined (see {@link widgetCaller}). */
export type WidgetFromMemory = (request: WidgetRequest) => Promise<WidgetAnswer> | undefined;

/** The caller of a widget POST that memory can vouch for, as the pipeline would find it. */
export interface WidgetCaller {
  auth: KeyWithOrg;
  /** The origin the key allows, from `Origin` or `Referer`. */
  origin: string;
  /** The origin CORS answers: the pipeline's CORS answers only a request that sends `Origin`. */
  corsOrigin: string | null;
  /** The client's address, for its per-IP allowances. */
  ip: string;
}

/**
 * The widget's POSTs (the basket preview, the quote's submission) are answered without Hono's
 * pipeline when everything the pipeline checks before the operation can be decided from memory
 * and passes: the exact path, no other `Service-Version`, no agent-channel header, the publishable
 * key cached, valid, unexpired, with write scope and no IP allowlist, the origin allowed, a JSON
 * body of an acceptable declared length. The pipeline (context, middleware, Fetch request and
 * response) costs more CPU than a preview's own work. Anything else returns undefined, with
 * nothing counted, and takes the full pipeline, which answers or refuses as usual.
 */
export function widgetCaller(deps: AppDeps, request: WidgetRequest, path: string): WidgetCaller | undefined {
  if (request.method !== 'POST' || request.target !== path) return undefined;
  const version = request.header('service-version');
  if (version != null && version.trim() !== API_VERSION) return undefined;
  // The agent interface's channel marks the key's use; leave it to the pipeline.
  if (request.header(MCP_CHANNEL_HEADER) != null) return undefined;
  const secret = BEARER.exec(request.header('authorization')?.trim() ?? '')?.[1];
  if (!secret?.startsWith('pk_')) return undefined;
  const auth = deps.keys.peek(secret, publishableHash(secret));
  if (auth?.key.kind !== 'publishable' || auth.key.revoked_at || auth.key.scope !== 'write') return undefined;
  if (auth.key.expires_at && auth.key.expires_at.getTime() <= deps.now().getTime()) return undefined;
  if (auth.key.allowed_ips.length > 0) return undefined;
  const origin = originOf(request.header('origin'), request.header('referer'));
  if (!keyAllowsOrigin(auth.key, origin)) return undefined;
  if (!isJsonContentType(request.header('content-type'))) return undefined;
  // Over the limit by its declared length: the pipeline's 413, without reading it.
  const length = request.header('content-length');
  if (length != null && !(Number(length) <= MAX_BODY_BYTES)) return undefined;
  return {
    auth,
    origin: origin!,
    corsOrigin: request.header('origin') ? origin! : null,
    ip: clientIpFrom(request.header('x-forwarded-for'), request.remoteAddress, deps.config.trustProxy),
  };
}

const BEARER = /^Bearer\s+(\S+)$/i;

/**
 * A JSON answer with the headers the pipeline gives it: c.json's (or `extra`'s content type), CORS
 * when it applies, the request id and version.
 */
export function jsonAnswer(
  status: number,
  body: string,
  id: string,
  corsOrigin: string | null,
  extra: Record<string, string>,
): WidgetAnswer {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...extra };
  headers['Content-Length'] = String(Buffer.byteLength(body));
  if (corsOrigin) headers.Vary = 'Origin';
  return { status, headers: apiHeaders(id, corsOrigin, headers), body };
}

/** The request's body, 413 `payload_too_large` over the limit, as the pipeline reads it. */
export async function bodyWithinLimit(request: WidgetRequest): Promise<Uint8Array> {
  const bytes = await request.body();
  if (bytes.byteLength > MAX_BODY_BYTES) throw payloadTooLarge();
  return bytes;
}

/** The answer the app's error handler gives `error`, logged as it logs it, with CORS when it applies. */
export function refusalAnswer(
  logger: Logger,
  error: unknown,
  id: string,
  corsOrigin: string | null,
): WidgetAnswer {
  const refusal = apiErrorFor(error, logger, id);
  return jsonAnswer(refusal.status, JSON.stringify(errorBody(refusal, id)), id, corsOrigin, refusal.headers);
}

/** The fast paths in front of a Fetch handler (`app.fetch`, used in process and by tests). */
export function fetchWithWidgetFastPath<Rest extends unknown[]>(
  fromMemory: WidgetFromMemory,
  route: (request: Request, env?: unknown, ...rest: Rest) => Response | Promise<Response>,
): (request: Request, env?: unknown, ...rest: Rest) => Response | Promise<Response> {
  return (request, env, ...rest) => {
    const url = request.url;
    const answer = fromMemory({
      method: request.method,
      target: url.slice(url.indexOf('/', url.indexOf('://') + 3)),
      header: (name) => request.headers.get(name),
      remoteAddress: (env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket?.remoteAddress,
      body: async () => new Uint8Array(await request.arrayBuffer()),
    });
    if (!answer) return route(request, env, ...rest);
    return answer.then(({ status, headers, body }) => new Response(body, { status, headers }));
  };
}

/**
 * The fast paths in front of the HTTP server's listener, on Node's own request and response: the
 * answer is written with its headers in one write, without a Fetch `Request` or `Response`.
 */
export function listenerWithWidgetFastPath(
  fromMemory: WidgetFromMemory,
  route: RequestListener,
): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    // A body of undeclared length (chunked) could be any size: the pipeline reads those.
    if (req.headers['content-length'] === undefined) return route(req, res);
    const answer = fromMemory({
      method: req.method ?? '',
      target: req.url ?? '',
      header: nodeHeader(req),
      remoteAddress: req.socket.remoteAddress,
      body: () => readBody(req),
    });
    if (!answer) return route(req, res);
    answer.then(
      ({ status, headers, body }) => {
        res.writeHead(status, headers);
        res.end(body);
      },
      (error: Error) => res.destroy(error),
    );
  };
}

/** The request's body; its length was declared and checked, and Node's parser holds the body to it. */
function readBody(req: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
