import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { API_VERSION } from '../config.js';
import { clientIpFrom } from '../http/client-ip.js';
import { apiErrorFor, errorBody } from '../http/error-handler.js';
import { isJsonContentType, MAX_BODY_BYTES, parseJsonBytes, payloadTooLarge } from '../http/json-body.js';
import { requestId } from '../ids.js';
import { MCP_CHANNEL_HEADER } from '../mcp/channel.js';
import { perIpBucket } from '../middleware/endpoint.js';
import { keyAllowsOrigin, originOf } from '../middleware/origin.js';
import { apiHeaders } from '../middleware/request-context.js';
import type { KeyWithOrg } from '../services/key-store.js';
import type { AppDeps } from '../types.js';
import { nodeHeader, publishableHash } from './config-fast-path.js';
import { PREVIEW_PATH, PREVIEW_PER_IP, type PreviewMemory, previewForVisitor } from './elements.js';

/** What the preview's fast path reads of a request. */
export interface PreviewRequest {
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

/** The fast path's answer, before it becomes a Fetch or a Node response. */
export interface PreviewAnswer {
  status: number;
  headers: Record<string, string>;
  /**
   * The JSON text. A string rather than bytes: Node writes the head and a string body as one
   * string in one write, where bytes would cost an allocation and a second buffer in the write.
   */
  body: string;
}

/** Answers POST /api/v1/elements/preview without routing, or returns undefined (see {@link previewFastPath}). */
export type PreviewFromMemory = (request: PreviewRequest) => Promise<PreviewAnswer> | undefined;

/**
 * POST /api/v1/elements/preview without Hono's pipeline: the widget asks for it on every change of
 * the basket, and the pipeline (context, middleware, Fetch request and response) cost more CPU
 * than the preview's own work. It is taken only when everything the pipeline checks before the
 * operation can be decided from memory and passes: the publishable key cached, valid, with write
 * scope and no IP allowlist, the origin allowed, no other `Service-Version`, a JSON body of an
 * acceptable declared length, the exact path. Anything else returns undefined, with nothing
 * counted, and takes the full pipeline, which answers or refuses as usual.
 *
 * Once taken, it does what the pipeline does from there on, in the same order, with the same
 * functions: the per-IP allowance (counted in memory, see {@link PreviewMemory}), the body's limit
 * and JSON, then {@link previewForVisitor}; errors are answered with the flat error body the app's
 * error handler sends, CORS and the request id included.
 */
export function previewFastPath(deps: AppDeps, memory: PreviewMemory): PreviewFromMemory {
  return function answerPreviewFromMemory(request) {
    if (request.method !== 'POST' || request.target !== PREVIEW_PATH) return undefined;
    const version = request.header('service-version');
    if (version != null && version.trim() !== API_VERSION) return undefined;
    // The agent interface's channel marks the key's use; leave it to the pipeline.
    if (request.header(MCP_CHANNEL_HEADER) != null) return undefined;
    const secret = BEARER.exec(request.header('authorization')?.trim() ?? '')?.[1];
    if (!secret?.startsWith('pk_')) return undefined;
    const auth = deps.keys.peek(secret, publishableHash(secret));
    if (auth?.key.kind !== 'publishable' || auth.key.revoked_at || auth.key.scope !== 'write')
      return undefined;
    if (auth.key.expires_at && auth.key.expires_at.getTime() <= deps.now().getTime()) return undefined;
    if (auth.key.allowed_ips.length > 0) return undefined;
    const origin = originOf(request.header('origin'), request.header('referer'));
    if (!keyAllowsOrigin(auth.key, origin)) return undefined;
    if (!isJsonContentType(request.header('content-type'))) return undefined;
    // Over the limit by its declared length: the pipeline's 413, without reading it.
    const length = request.header('content-length');
    if (length != null && !(Number(length) <= MAX_BODY_BYTES)) return undefined;
    const ip = clientIpFrom(request.header('x-forwarded-for'), request.remoteAddress, deps.config.trustProxy);
    return answerPreview(deps, memory, auth, origin!, ip, request);
  };
}

const BEARER = /^Bearer\s+(\S+)$/i;

async function answerPreview(
  deps: AppDeps,
  memory: PreviewMemory,
  auth: KeyWithOrg,
  origin: string,
  ip: string,
  request: PreviewRequest,
): Promise<PreviewAnswer> {
  const id = requestId();
  // The pipeline's CORS answers a request that sends `Origin`; one allowed by its Referer alone
  // (a same-origin page, a server) gets none.
  const corsOrigin = request.header('origin') ? origin : null;
  try {
    const { name, limit, windowMs } = PREVIEW_PER_IP;
    memory.counters.enforce(perIpBucket(name, auth.key.org_id, ip), limit, deps.now(), windowMs);
    const bytes = await request.body();
    if (bytes.byteLength > MAX_BODY_BYTES) throw payloadTooLarge();
    const data = await previewForVisitor(deps, memory, { auth, json: parseJsonBytes(bytes), ip });
    return jsonAnswer(200, { data }, id, corsOrigin, {});
  } catch (error) {
    const refusal = apiErrorFor(error, deps.logger, id);
    return jsonAnswer(refusal.status, errorBody(refusal, id), id, corsOrigin, refusal.headers);
  }
}

/** A JSON answer with the headers the pipeline gives it: c.json's, CORS when it applies, the id. */
function jsonAnswer(
  status: number,
  value: unknown,
  id: string,
  corsOrigin: string | null,
  extra: Record<string, string>,
): PreviewAnswer {
  const body = JSON.stringify(value);
  const headers: Record<string, string> = { ...extra };
  headers['Content-Type'] = 'application/json';
  headers['Content-Length'] = String(Buffer.byteLength(body));
  if (corsOrigin) headers.Vary = 'Origin';
  return { status, headers: apiHeaders(id, corsOrigin, headers), body };
}

/** The fast path in front of a Fetch handler (`app.fetch`, used in process and by tests). */
export function fetchWithPreviewFastPath<Rest extends unknown[]>(
  fromMemory: PreviewFromMemory,
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
 * The fast path in front of the HTTP server's listener, on Node's own request and response: the
 * answer is written with its headers in one write, without a Fetch `Request` or `Response`.
 */
export function listenerWithPreviewFastPath(
  fromMemory: PreviewFromMemory,
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
