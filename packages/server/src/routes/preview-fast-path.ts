import { parseJsonBytes } from '../http/json-body.js';
import { requestId } from '../ids.js';
import { countPerIp, type PerIpAllowance } from '../middleware/endpoint.js';
import type { AppDeps } from '../types.js';
import { PREVIEW_PATH, type PreviewMemory, previewForVisitor, previewPerIp } from './elements.js';
import {
  bodyWithinLimit,
  jsonAnswer,
  refusalAnswer,
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
  const perIp = previewPerIp(memory);
  return function answerPreviewFromMemory(request) {
    // The widget sends none: the pipeline checks one, stores the answer and replays it.
    if (request.header('idempotency-key') != null) return undefined;
    const caller = widgetCaller(deps, request, PREVIEW_PATH);
    return caller && answerPreview(deps, memory, perIp, caller, request);
  };
}

async function answerPreview(
  deps: AppDeps,
  memory: PreviewMemory,
  perIp: PerIpAllowance,
  { auth, corsOrigin, ip }: WidgetCaller,
  request: WidgetRequest,
) {
  const id = requestId();
  try {
    await countPerIp(deps, perIp, auth.key.org_id, ip);
    const json = parseJsonBytes(await bodyWithinLimit(request));
    const data = await previewForVisitor(deps, memory, { auth, json, ip });
    return jsonAnswer(200, JSON.stringify({ data }), id, corsOrigin, {});
  } catch (error) {
    return refusalAnswer(deps.logger, error, id, corsOrigin);
  }
}
