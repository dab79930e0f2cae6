import type { SvcDraftItemDetail } from '../events/svc-draft-item.js';

/**
 * An error answered by the service (its flat `{ error, code }` body) or met on the way: `code` is
 * the service's code, or `network` when no answer arrived (the browser reports a refused CORS
 * request the same way).
 */
export class SvcApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 0,
    /** The rest of the error body (`reason`, `request_id`…) and `retryAfter` in seconds. */
    readonly detail: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'SvcApiError';
  }
}

/** Options of {@link ApiClient.send}. */
export interface SendOptions {
  method?: 'GET' | 'POST';
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Whether an error deserves another try of the same request. */
export const isRetryable = (error: unknown): boolean =>
  error instanceof SvcApiError &&
  (error.code === 'network' ||
    error.status >= 500 ||
    error.status === 429 ||
    error.code === 'idempotency_in_progress');

const aborted = () => new DOMException('Aborted', 'AbortError');

/** Waits `ms`, or rejects with an AbortError when `signal` fires first. */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(aborted());
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(aborted());
    });
  });

/**
 * The widget's way to the service: a publishable key, JSON in and out, errors as
 * {@link SvcApiError}, retries with backoff for submissions, and the SSE stream of drafted lines
 * read over `fetch` (an EventSource cannot POST).
 */
export class ApiClient {
  constructor(
    readonly base: string,
    readonly key: string,
    readonly locale: () => string,
  ) {}

  async #fetch(path: string, options: SendOptions, accept = 'application/json'): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${this.base}${path}`, {
        method: options.method ?? 'GET',
        headers: {
          Authorization: `Bearer ${this.key}`,
          Accept: accept,
          'Accept-Language': this.locale(),
          ...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...options.headers,
        },
        body: options.body === undefined ? null : JSON.stringify(options.body),
        signal: options.signal ?? null,
      });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new SvcApiError('network', 'Network error');
    }
    if (!response.ok) throw await toError(response);
    return response;
  }

  /** One request; resolves with the body's `data`. */
  async send<T>(path: string, options: SendOptions = {}): Promise<T> {
    const response = await this.#fetch(path, options);
    try {
      return ((await response.json()) as { data: T }).data;
    } catch {
      // The answer was cut off (or is not ours): the same as no answer.
      throw new SvcApiError('network', 'Incomplete answer');
    }
  }

  /**
   * After a `network` error: whether the service answers this page at all. The service sends no
   * CORS headers to an origin that is not allowed, so the browser hides its 403 behind the same
   * error as a lost connection; an opaque `no-cors` answer tells the two apart.
   */
  async answers(path: string): Promise<boolean> {
    try {
      await fetch(`${this.base}${path}`, { mode: 'no-cors' });
      return true;
    } catch {
      return false;
    }
  }

  /**
   * {@link send} with retries on network errors, 5xx, 429 and "in progress": waits 1 s, 2 s, 4 s
   * (or what `Retry-After` says) and tries again, `attempts` times in all; a `Retry-After` over
   * 30 s is not waited for by a visitor, and its error is given at once. Submissions
   * carry an `Idempotency-Key`, so a retry of a request that did arrive cannot act twice.
   * @param onRetry - told how many seconds until the next attempt
   */
  async sendWithRetry<T>(
    path: string,
    options: SendOptions,
    onRetry?: (seconds: number) => void,
    attempts = 4,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.send<T>(path, options);
      } catch (error) {
        const retryAfter = Number((error as SvcApiError).detail?.retryAfter);
        if (!isRetryable(error) || attempt >= attempts || retryAfter > 30) throw error;
        const wait = retryAfter > 0 ? retryAfter * 1000 : 500 * 2 ** attempt * (0.8 + Math.random() * 0.4);
        onRetry?.(Math.ceil(wait / 1000));
        await sleep(wait, options.signal);
      }
    }
  }

  /**
   * Streams drafted lines (POST /elements/ai-draft), calling `onItem` for each as it arrives.
   * Resolves at the `done` event with the phrases the service skipped ("impresora"); rejects
   * with the stream's `error` event, with a `network` error when the stream ends early, or with
   * an AbortError when `signal` fires.
   */
  async draft(
    body: { prompt: string; locale: string; currency: string },
    onItem: (item: SvcDraftItemDetail) => void,
    signal: AbortSignal,
  ): Promise<string[]> {
    const response = await this.#fetch(
      '/elements/ai-draft',
      { method: 'POST', body, signal },
      'text/event-stream',
    );
    let failure: SvcApiError | undefined;
    let skipped: string[] | undefined;
    let buffer = '';
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    try {
      while (!skipped && !failure) {
        const { value, done } = await reader.read();
        if (done) break;
        // Our service's events: `event:` and one `data:` line each, a blank line after
        // (`: keep-alive` comments have no data). Smaller than a general SSE parser.
        const blocks = (buffer + value).replace(/\r/g, '').split('\n\n');
        buffer = blocks.pop()!;
        for (const block of blocks) {
          const data = /^data: ?(.*)/m.exec(block)?.[1];
          if (!data) continue;
          const event = /^event: ?(.*)/m.exec(block)?.[1];
          const json = JSON.parse(data);
          if (event === 'item') onItem(json);
          else if (event === 'error') failure = new SvcApiError(String(json.code), String(json.error));
          else if (event === 'done') skipped = (json.skipped ?? []).map((s: { text: string }) => s.text);
          if (skipped || failure) break;
        }
      }
    } catch (error) {
      if (signal.aborted) throw aborted();
      throw new SvcApiError('network', String(error));
    } finally {
      reader.releaseLock();
    }
    if (signal.aborted) throw aborted();
    if (failure) throw failure;
    if (!skipped) throw new SvcApiError('network', 'The stream ended early');
    return skipped;
  }
}

/** The service's flat error body as an {@link SvcApiError}. */
async function toError(response: Response): Promise<SvcApiError> {
  const retryAfter = response.headers.get('Retry-After');
  let body: Record<string, unknown> = {};
  try {
    body = (await response.json()) as Record<string, unknown>;
  } catch {}
  const code =
    typeof body.code === 'string'
      ? body.code
      : response.status >= 500
        ? 'service_unavailable'
        : 'internal_error';
  return new SvcApiError(code, String(body.error ?? response.statusText), response.status, {
    ...body,
    retryAfter,
  });
}
