/** Retries with exponential backoff and full jitter, for transient provider failures (429, 5xx, network). */
export interface RetryOptions {
  /** Attempts after the first one. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Whether an error is worth another attempt; others are rethrown at once. */
  isRetryable: (error: unknown) => boolean;
  /** A delay the server asked for (Retry-After), honoured up to `maxDelayMs`. */
  requestedDelayMs?: (error: unknown) => number | undefined;
  sleep?: (ms: number) => Promise<void>;
}

export async function withRetries<T>(call: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 0; ; attempt++) {
    try {
      return await call(attempt);
    } catch (error) {
      if (attempt >= options.retries || !options.isRetryable(error)) throw error;
      const backoff = Math.random() * Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
      const requested = options.requestedDelayMs?.(error);
      await sleep(Math.min(options.maxDelayMs, Math.max(backoff, requested ?? 0)));
    }
  }
}
