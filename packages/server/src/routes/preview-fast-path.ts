import { apiErrorFor, errorBody } from '../http/error-handler.js';
import { MAX_BODY_BYTES, parseJsonBytes, payloadTooLarge } from '../http/json-body.js';
import { requestId } from '../ids.js';
import { perIpBucket } from '../middleware/endpoint.js';
import type { AppDeps } from '../types.js';
import { PREVIEW_PATH, PREVIEW_PER_IP, type PreviewMemory, previewForVisitor } from './elements.js';
import {
  jsonAnswer,
  type WidgetCaller,
  type WidgetFromMemory,
  type WidgetRequest,
  widgetCaller,
} from './widget-fast-path.js';

/**
 * POST /api/v1/elements/preview without Hono's pipeline: the widget asks for it on every change of
 * the basket. Taken when memory can vouch for the caller ({@link widgetCaller}); otherwise the
 * full pipeline answers.
 *
 * Once taken, it does what the pipeline does from there on, in the same order, with the same
 * functions: the per-IP allowance (counted in memory, see {@link PreviewMemory}), the body's limit
 * and JSON, then {@link previewForVisitor}; errors are answered with the flat error body the app's
 * error handler sends, CORS and the request id included.
 */
export function previewFastPath(deps: AppDeps, memory: PreviewMemory): WidgetFromMemory {
  return function answerPreviewFromMemory(request) {
    const caller = widgetCaller(deps, request, PREVIEW_PATH);
    return caller && answerPreview(deps, memory, caller, request);
  };
}

async function answerPreview(
  deps: AppDeps,
  memory: PreviewMemory,
  { auth, corsOrigin, ip }: WidgetCaller,
  request: WidgetRequest,
) {
  const id = requestId();
  try {
    const { name, limit, windowMs } = PREVIEW_PER_IP;
    memory.counters.enforce(perIpBucket(name, auth.key.org_id, ip), limit, deps.now(), windowMs);
    const bytes = await request.body();
    if (bytes.byteLength > MAX_BODY_BYTES) throw payloadTooLarge();
    const data = await previewForVisitor(deps, memory, { auth, json: parseJsonBytes(bytes), ip });
    return jsonAnswer(200, JSON.stringify({ data }), id, corsOrigin, {});
  } catch (error) {
    const refusal = apiErrorFor(error, deps.logger, id);
    return jsonAnswer(
      refusal.status,
      JSON.stringify(errorBody(refusal, id)),
      id,
      corsOrigin,
      refusal.headers,
    );
  }
}
