import type { RetryOptions } from '@hindsight/embedding';
import { QdrantClientResourceExhaustedError, QdrantClientTimeoutError } from '@qdrant/js-client-rest';

export type RetryPolicy = Pick<RetryOptions, 'retries' | 'baseDelayMs' | 'maxDelayMs'>;

export const DEFAULT_RETRY: RetryPolicy = { retries: 3, baseDelayMs: 100, maxDelayMs: 2000 };

const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Whether a failed Qdrant call may succeed when repeated: the server was
 * unreachable, timed out, overloaded (429) or failed internally (5xx).
 * Other answers (bad filter, wrong dimension, missing collection) never will.
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof QdrantClientTimeoutError || error instanceof QdrantClientResourceExhaustedError) return true;
  if (!(error instanceof Error)) return false;
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') return status === 429 || status >= 500;
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && TRANSIENT_CODES.has(code)) return true;
  // undici reports an unreachable server as `TypeError: fetch failed`.
  return error.name === 'TypeError' && error.message === 'fetch failed';
}

/** The pause Qdrant asked for with Retry-After (429), in ms. */
export function requestedDelayMs(error: unknown): number | undefined {
  if (error instanceof QdrantClientResourceExhaustedError && Number.isFinite(error.retry_after)) {
    return error.retry_after * 1000;
  }
  return undefined;
}

/**
 * Retry settings for Qdrant calls. Only idempotent calls are retried: every
 * write this adapter sends addresses fixed point ids, so repeating one
 * converges to the same state.
 */
export function qdrantRetryOptions(policy: RetryPolicy): RetryOptions {
  return { ...policy, isRetryable: isTransient, requestedDelayMs };
}
