import { apiErrorFor, errorBody } from '../http/error-handler.js';
import { MAX_BODY_BYTES, parseJsonBytes, payloadTooLarge } from '../http/json-body.js';
import { requestId } from '../ids.js';
import { perIpBucket } from '../middleware/endpoint.js';
import { fingerprintOf, KEY_RE } from '../middleware/idempotency.js';
import {
  type Answered,
  replayHeaders,
  runInBatch,
  STORED_RESPONSE_TYPE,
} from '../middleware/idempotency-batched.js';
import { chargeQuota } from '../middleware/quota.js';
import { type DeferredLimit, enforceRateLimit } from '../middleware/rate-limit.js';
import { PUBLISHABLE_LIMITS } from '../services/limits.js';
import { widgetCallStoresOwnResponse } from '../services/quotes.js';
import type { AppDeps } from '../types.js';
import { createQuoteAnswer } from './quotes.js';
import {
  jsonAnswer,
  type WidgetAnswer,
  type WidgetCaller,
  type WidgetFromMemory,
  type WidgetRequest,
  widgetCaller,
} from './widget-fast-path.js';

/** The path the widget submits its quote to. */
export const CREATE_PATH = '/api/v1/cotizaciones';

/**
 * The widget's submission, POST /api/v1/cotizaciones, without Hono's pipeline: taken when memory
 * can vouch for the caller ({@link widgetCaller}), the call carries a well-formed `Idempotency-Key`
 * (the widget always sends one) and its quote's statement stores the response
 * (`widgetCallStoresOwnResponse`). Anything else takes the full pipeline.
 *
 * Once taken, it does what the pipeline does from there on, in the same order, with the same
 * functions: the per-IP allowance (left to the creation's statement on PostgreSQL, counted by a
 * statement on PGlite), the body's limit, the key's fingerprint, {@link runInBatch} (the
 * idempotency middleware's own run, which holds the key, stores refusals and replays), and in it
 * {@link createQuoteAnswer}, the route's own work. Errors are answered with the flat body of the
 * app's error handler, CORS and the request id included.
 */
export function submissionFastPath(deps: AppDeps): WidgetFromMemory {
  return function answerSubmissionFromMemory(request) {
    const caller = widgetCaller(deps, request, CREATE_PATH);
    if (!caller || !widgetCallStoresOwnResponse(caller.auth)) return undefined;
    const idempotencyKey = request.header('idempotency-key');
    // A missing or malformed key (400 from the pipeline) goes the full way.
    if (idempotencyKey == null || !KEY_RE.test(idempotencyKey)) return undefined;
    return answerSubmission(deps, caller, idempotencyKey, request);
  };
}

async function answerSubmission(
  deps: AppDeps,
  { auth, corsOrigin, ip }: WidgetCaller,
  idempotencyKey: string,
  request: WidgetRequest,
): Promise<WidgetAnswer> {
  const id = requestId();
  const refused = (error: unknown) => {
    const refusal = apiErrorFor(error, deps.logger, id);
    return jsonAnswer(
      refusal.status,
      JSON.stringify(errorBody(refusal, id)),
      id,
      corsOrigin,
      refusal.headers,
    );
  };
  try {
    const { name, limit, windowMs } = PUBLISHABLE_LIMITS.create;
    const bucket = perIpBucket(name, auth.key.org_id, ip);
    let deferred: DeferredLimit | undefined;
    if (deps.db.kind === 'postgres') deferred = { bucket, limit, windowMs };
    else await enforceRateLimit(deps.db, bucket, limit, deps.now(), windowMs);
    const bytes = await request.body();
    if (bytes.byteLength > MAX_BODY_BYTES) throw payloadTooLarge();
    let answer: WidgetAnswer | undefined;
    const replayed = await runInBatch(
      {
        db: deps.db,
        keyId: auth.key.id,
        idempotencyKey,
        staleSeconds: deps.idempotencyStaleSeconds ?? 60,
        charge: () => chargeQuota(deps.db, auth, deps.now()),
        fingerprint: fingerprintOf('POST', CREATE_PATH, bytes),
      },
      async (call): Promise<Answered> => {
        try {
          const text = await createQuoteAnswer(deps, auth, {
            json: parseJsonBytes(bytes),
            ip,
            deferred,
            acceptLanguage: request.header('accept-language') ?? undefined,
            call,
          });
          answer = jsonAnswer(200, text, id, corsOrigin, { 'Content-Type': STORED_RESPONSE_TYPE });
        } catch (error) {
          // A response stored meanwhile (StoredMeanwhile) is replayed by runInBatch instead.
          answer = refused(error);
          return { status: answer.status, error, text: async () => answer!.body, type: STORED_RESPONSE_TYPE };
        }
        return { status: 200, error: undefined, text: async () => answer!.body, type: STORED_RESPONSE_TYPE };
      },
    );
    if (replayed) return jsonAnswer(replayed.status, replayed.body, id, corsOrigin, replayHeaders(replayed));
    return answer!;
  } catch (error) {
    return refused(error);
  }
}
