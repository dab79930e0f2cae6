import { createParser } from 'eventsource-parser';

/** An error answered by the service (its flat `{ error, code }` body) or met on the way. */
export class SvcApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 0,
    readonly detail: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'SvcApiError';
  }
}

/** A drafted line as the service streams it. */
export interface DraftItem {
  descripcion: string;
  cantidad: number;
  unidad: string;
  precio_unitario: number;
  producto_id: string;
  sku: string;
  tax_rate: number | null;
  confidence: number;
}

/** Options of {@link ApiClient.send}. */
interface SendOptions {
  method?: 'GET' | 'POST';
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new DOMException('Aborted', 'AbortError'));
    });
  });

/** Whether an error deserves another try of the same request. */
export const isRetryable = (error: unknown): boolean =>
  error instanceof SvcApiError &&
  (error.code === 'network' ||
    error.status >= 500 ||
    error.status === 429 ||
    error.code === 'idempotency_in_progress');

/**
 * The widget's way to the service: a publishable key, JSON in and out, errors as
 * {@link SvcApiError}, the SSE stream of drafts read with eventsource-parser over `fetch` (an
 * EventSource cannot POST), and retries with backoff for submissions.
 */
export class ApiClient {
  constructor(
    readonly base: string,
    readonly key: string,
    readonly locale: () => string,
  ) {}

  async send<T>(path: string, options: SendOptions = {}): Promise<{ data: T; headers: Headers }> {
    let response: Response;
    try {
      response = await fetch(`${this.base}${path}`, {
        method: options.method ?? 'GET',
        headers: {
          Authorization: `Bearer ${this.key}`,
          'Accept-Language': this.locale(),
          ...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...options.headers,
        },
        body: options.body === undefined ? null : JSON.stringify(options.body),
        signal: options.signal ?? null,
      });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      // The browser hides a CORS refusal behind the same TypeError as a lost network.
      throw new SvcApiError('network', 'Network error');
    }
    if (!response.ok) throw await toError(response);
    const body = (await response.json()) as { data: T };
    return { data: body.data, headers: response.headers };
  }

  /**
   * Sends with retries on network errors, 5xx, 429 and "in progress", waiting 0.5 s, 1 s, 2 s…
   * (or what `Retry-After` says, up to 30 s). `onRetry` tells the UI how long it will wait.
   */
  async sendWithRetry<T>(
    path: string,
    options: SendOptions,
    onRetry?: (seconds: number) => void,
    attempts = 4,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.send<T>(path, options)).data;
      } catch (error) {
        if (!isRetryable(error) || attempt + 1 >= attempts) throw error;
        const retryAfter = Number((error as SvcApiError).detail.retryAfter);
        const wait =
          Number.isFinite(retryAfter) && retryAfter > 0
            ? Math.min(retryAfter, 30) * 1000
            : 500 * 2 ** attempt;
        onRetry?.(Math.ceil(wait / 1000));
        await sleep(wait, options.signal);
      }
    }
  }

  /** Streams drafted lines for `prompt`, calling `onItem` for each as it arrives. */
  async draft(
    prompt: string,
    currency: string,
    onItem: (item: DraftItem) => void,
    signal: AbortSignal,
  ): Promise<number> {
    let response: Response;
    try {
      response = await fetch(`${this.base}/elements/ai-draft`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${this.key}`,
          'Content-Type': 'application/json',
          Accept: 'text/event-stream',
        },
        body: JSON.stringify({ prompt, locale: this.locale(), currency }),
        signal,
      });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new SvcApiError('network', 'Network error');
    }
    if (!response.ok || !response.body) throw await toError(response);
    let count = 0;
    let failure: SvcApiError | undefined;
    let done = false;
    const parser = createParser({
      onEvent(event) {
        if (event.event === 'item') {
          count++;
          onItem(JSON.parse(event.data) as DraftItem);
        } else if (event.event === 'error') {
          const body = JSON.parse(event.data) as { error: string; code: string };
          failure = new SvcApiError(body.code, body.error);
        } else if (event.event === 'done') {
          done = true;
        }
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { value, done: ended } = await reader.read();
        if (ended) break;
        parser.feed(value);
      }
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new SvcApiError('network', 'Network error', 0, { count });
    }
    if (failure) throw failure;
    if (!done) throw new SvcApiError('network', 'The stream ended early', 0, { count });
    return count;
  }
}

async function toError(response: Response): Promise<SvcApiError> {
  const retryAfter = response.headers.get('Retry-After');
  try {
    const body = (await response.json()) as { error?: string; code?: string } & Record<string, unknown>;
    return new SvcApiError(
      body.code ?? 'internal_error',
      body.error ?? response.statusText,
      response.status,
      { ...body, retryAfter },
    );
  } catch {
    return new SvcApiError(
      response.status >= 500 ? 'service_unavailable' : 'internal_error',
      response.statusText,
      response.status,
      {
        retryAfter,
      },
    );
  }
}
