import { DependencyUnavailableError } from '@hindsight/errors';
import { openAiClient } from '@hindsight/llm';
import OpenAI from 'openai';
import type { Embedder } from '../port.ts';
import { CircuitBreaker, CircuitOpenError } from '../resilience/circuit-breaker.ts';
import { withRetries } from '../resilience/retry.ts';
import { MalformedEmbeddingsError, validateVectors } from './validate.ts';

export interface OpenAiCompatibleSettings {
  /** e.g. https://api.openai.com/v1, http://127.0.0.1:11434/v1 (Ollama), http://tei:8080/v1 */
  baseUrl: string;
  model: string;
  /** Omit for local servers that need none. */
  apiKey?: string;
  /** Known output dimension; when omitted, `OpenAiCompatibleEmbedder.connect` learns it with one probe call. */
  dimension?: number;
  timeoutMs?: number;
  /** Attempts after the first on 429, 5xx, timeouts and network errors. */
  retries?: number;
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
  /** Consecutive failed calls (after retries) that open the circuit. */
  breakerThreshold?: number;
  breakerCooldownMs?: number;
  /** Name in error messages and metrics, e.g. "openai", "ollama". */
  providerName?: string;
}

const PROBE_TEXT = 'dimension probe';

/**
 * Any server speaking OpenAI's `POST /v1/embeddings` (OpenAI, Ollama, vLLM, text-embeddings-
 * inference, LM Studio). The SDK's own retries are off: retries, backoff and the circuit breaker
 * live here so every provider failure ends as one `DependencyUnavailableError` naming the cause.
 */
export class OpenAiCompatibleEmbedder implements Embedder {
  readonly model: string;
  readonly dimension: number;
  private readonly client: OpenAI;
  private readonly breaker: CircuitBreaker;
  private readonly provider: string;

  /** Builds the embedder, probing the server once when the dimension is not configured. */
  static async connect(settings: OpenAiCompatibleSettings): Promise<OpenAiCompatibleEmbedder> {
    if (settings.dimension !== undefined) return new OpenAiCompatibleEmbedder(settings, settings.dimension);
    const probe = new OpenAiCompatibleEmbedder(settings, undefined);
    const [vector] = await probe.embed([PROBE_TEXT]);
    return new OpenAiCompatibleEmbedder(settings, (vector as Float32Array).length);
  }

  private constructor(
    private readonly settings: OpenAiCompatibleSettings,
    dimension: number | undefined,
  ) {
    this.provider = settings.providerName ?? 'openai-compatible embeddings';
    // Retries are this adapter's own (with the breaker), not the SDK's.
    this.client = openAiClient({
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      timeoutMs: settings.timeoutMs ?? 10_000,
      maxRetries: 0,
    });
    this.breaker = new CircuitBreaker({
      failureThreshold: settings.breakerThreshold ?? 5,
      cooldownMs: settings.breakerCooldownMs ?? 30_000,
    });
    this.dimension = dimension ?? 0;
    this.model = `openai:${settings.model}:${this.dimension}`;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    try {
      return await this.breaker.run(() =>
        withRetries(() => this.request(texts), {
          retries: this.settings.retries ?? 3,
          baseDelayMs: this.settings.retryBaseDelayMs ?? 200,
          maxDelayMs: this.settings.retryMaxDelayMs ?? 5_000,
          isRetryable,
          requestedDelayMs: retryAfterMs,
        }),
      );
    } catch (error) {
      throw new DependencyUnavailableError(this.provider, describe(error, this.settings.baseUrl), { cause: error });
    }
  }

  async check(): Promise<void> {
    await this.embed([PROBE_TEXT]);
  }

  private async request(texts: readonly string[]): Promise<Float32Array[]> {
    // `float` explicitly: the SDK would ask for base64, which not every compatible server speaks.
    const response = await this.client.embeddings.create({
      model: this.settings.model,
      input: [...texts],
      encoding_format: 'float',
    });
    const data: unknown = (response as { data?: unknown }).data;
    if (!Array.isArray(data)) throw new MalformedEmbeddingsError('"data" is not an array');
    // Servers may answer out of order; `index` says which input each vector belongs to.
    const ordered = [...data].sort((a, b) => indexOf(a) - indexOf(b));
    return validateVectors(
      ordered.map((item) => (item as { embedding?: unknown }).embedding),
      texts.length,
      this.dimension === 0 ? undefined : this.dimension,
    );
  }
}

function indexOf(item: unknown): number {
  const index = (item as { index?: unknown } | null)?.index;
  return typeof index === 'number' ? index : 0;
}

function isRetryable(error: unknown): boolean {
  if (error instanceof OpenAI.APIConnectionError) return true; // includes timeouts
  if (error instanceof OpenAI.APIError) return error.status === 429 || (error.status ?? 0) >= 500;
  return false;
}

function retryAfterMs(error: unknown): number | undefined {
  if (!(error instanceof OpenAI.APIError)) return undefined;
  const value = error.headers?.get('retry-after');
  const seconds = value ? Number(value) : Number.NaN;
  return Number.isFinite(seconds) ? seconds * 1000 : undefined;
}

function describe(error: unknown, baseUrl: string): string {
  if (error instanceof CircuitOpenError) return error.message;
  if (error instanceof OpenAI.APIConnectionTimeoutError) return `request to ${baseUrl} timed out`;
  if (error instanceof OpenAI.APIConnectionError)
    return `cannot reach ${baseUrl} (${error.cause instanceof Error ? error.cause.message : error.message})`;
  if (error instanceof OpenAI.APIError) return `HTTP ${error.status ?? '?'} from ${baseUrl}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
