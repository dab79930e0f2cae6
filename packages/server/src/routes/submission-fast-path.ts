import { parseJsonBytes } from '../http/json-body.js';
import { requestId } from '../ids.js';
import { countPerIp, idempotencyStaleSeconds } from '../middleware/endpoint.js';
import { fingerprintOf, KEY_RE } from '../middleware/idempotency.js';
import {
  type Answered,
  replayHeaders,
  runInBatch,
  STORED_RESPONSE_TYPE,
} from '../middleware/idempotency-batched.js';
import { chargeQuota } from '../middleware/quota.js';
import { widgetCallStoresOwnResponse } from '../services/quotes.js';
import type { AppDeps } from '../types.js';
import { CREATE_PER_IP, createQuoteAnswer } from './quotes.js';
import {
  bodyWithinLimit,
  jsonAnswer,
  refusalAnswer,
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
  try {
    const deferred = await countPerIp(deps, CREATE_PER_IP, auth.key.org_id, ip);
    const bytes = await bodyWithinLimit(request);
    let answer: WidgetAnswer;
    const replayed = await runInBatch(
      {
        db: deps.db,
        keyId: auth.key.id,
        idempotencyKey,
        staleSeconds: idempotencyStaleSeconds(deps),
        charge: () => chargeQuota(deps.db, auth, deps.now()),
        fingerprint: fingerprintOf('POST', CREATE_PATH, bytes),
      },
      async (call): Promise<Answered> => {
        let error: unknown;
        try {
          const text = await createQuoteAnswer(deps, auth, {
            json: parseJsonBytes(bytes),
            ip,
            deferred,
            acceptLanguage: request.header('accept-language') ?? undefined,
            call,
          });
          answer = jsonAnswer(200, text, id, corsOrigin, { 'Content-Type': STORED_RESPONSE_TYPE });
        } catch (thrown) {
          // A response stored meanwhile (StoredMeanwhile) is replayed by runInBatch instead.
          error = thrown;
          answer = refusalAnswer(deps.logger, thrown, id, corsOrigin);
        }
        const { status, body } = answer;
        return { status, error, text: async () => body, type: STORED_RESPONSE_TYPE };
      },
    );
    if (replayed) {
      const headers = replayHeaders(replayed);
      return jsonAnswer(
        replayed.status,
        replayed.body,
        headers['Service-Request-Id'] ?? id,
        corsOrigin,
        headers,
      );
    }
    return answer!;
  } catch (error) {
    return refusalAnswer(deps.logger, error, id, corsOrigin);
  }
}
