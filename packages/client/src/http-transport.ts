import type { ApiErrorBody } from './api-types.js';
import { CompactorApiError, CompactorClientError, CompactorNetworkError } from './client-errors.js';
import { backoffDelay, type RetryPolicy, retryAfterMs } from './retry-policy.js';

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  fetch: typeof fetch;
  retry: RetryPolicy;
  /** Per attempt. */
  timeoutMs: number;
  onRetry?: ((event: RetryEvent) => void) | undefined;
}

/** A retry about to happen, for logs and metrics. */
export interface RetryEvent {
  method: string;
  path: string;
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
  /** Why the previous attempt failed. */
  error: CompactorClientError;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  /** Only for requests that are safe to repeat (reads, and writes made idempotent by ids). */
  retry: boolean;
  responseType?: 'json' | 'text';
  signal?: AbortSignal | undefined;
}

export interface TransportResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

export function createTransport(options: TransportOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');

  async function attempt(method: string, url: string, request: RequestOptions): Promise<Response> {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    try {
      return await options.fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${options.apiKey}`,
          accept: request.responseType === 'text' ? 'text/plain' : 'application/json',
          ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...request.headers,
        },
        ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
        signal,
      });
    } catch (error) {
      if (request.signal?.aborted) throw error;
      const reason = timeout.aborted ? `no answer within ${options.timeoutMs} ms` : String(error);
      throw new CompactorNetworkError(`${method} ${url} failed: ${reason}`, { cause: error });
    }
  }

  return async function send<T>(
    method: string,
    path: string,
    request: RequestOptions,
  ): Promise<TransportResponse<T>> {
    const url = `${base}${path}${queryString(request.query)}`;
    const retries = request.retry ? options.retry.retries : 0;
    for (let retry = 0; ; retry += 1) {
      let error: CompactorClientError;
      try {
        const response = await attempt(method, url, request);
        if (response.ok) {
          const body = (request.responseType === 'text' ? await response.text() : await response.json()) as T;
          return { status: response.status, headers: response.headers, body };
        }
        error = await apiError(response);
      } catch (thrown) {
        if (!CompactorClientError.isInstance(thrown)) throw thrown;
        error = thrown;
      }
      if (!error.isRetryable || retry >= retries) throw error;
      const delayMs = Math.min(
        options.retry.maxDelayMs,
        (CompactorApiError.isInstance(error) ? error.retryAfterMs : undefined) ??
          backoffDelay(retry, options.retry),
      );
      options.onRetry?.({ method, path, retry: retry + 1, delayMs, error });
      await sleep(delayMs, request.signal);
    }
  };
}

export type Transport = ReturnType<typeof createTransport>;

async function apiError(response: Response): Promise<CompactorApiError> {
  let body: ApiErrorBody | undefined;
  try {
    const parsed = (await response.json()) as Partial<ApiErrorBody>;
    if (parsed && typeof parsed.error?.code === 'string') body = parsed as ApiErrorBody;
  } catch {
    // Not JSON (a proxy's error page): the status alone says what happened.
  }
  return new CompactorApiError(response.status, body, retryAfterMs(response.headers.get('retry-after')));
}

function queryString(query: RequestOptions['query']): string {
  if (!query) return '';
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) parameters.set(name, String(value));
  }
  const text = parameters.toString();
  return text === '' ? '' : `?${text}`;
}

function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, milliseconds);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}
