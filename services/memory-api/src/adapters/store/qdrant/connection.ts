import { type RetryOptions, withRetries } from '@hindsight/embedding';
import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import { chunks } from './paging.ts';
import { DEFAULT_RETRY, qdrantRetryOptions, type RetryPolicy } from './retry.ts';

export interface QdrantConnectionOptions {
  url: string;
  apiKey?: string;
  /** Per-request timeout. */
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** Points per batch-update request. */
  batchSize?: number;
}

/** One Qdrant server as the store's parts reach it: the client, calls retried on transient failures, batch size. */
export class QdrantConnection {
  readonly client: QdrantClient;
  readonly batchSize: number;
  private readonly retry: RetryOptions;

  constructor(options: QdrantConnectionOptions) {
    this.client = new QdrantClient({
      url: options.url,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      timeout: options.timeoutMs ?? 10_000,
      // The version is checked in `open`, with an error instead of a console warning.
      checkCompatibility: false,
    });
    this.retry = qdrantRetryOptions(options.retry ?? DEFAULT_RETRY);
    this.batchSize = options.batchSize ?? 128;
  }

  call<T>(work: () => Promise<T>): Promise<T> {
    return withRetries(work, this.retry);
  }

  /** Points of `collection` by id (each once), 256 a request. */
  async retrieve(
    collection: string,
    ids: readonly string[],
    select: Pick<Schemas['PointRequest'], 'with_payload' | 'with_vector'>,
  ): Promise<Schemas['Record'][]> {
    if (ids.length === 0) return [];
    const found: Schemas['Record'][] = [];
    for (const chunk of chunks([...new Set(ids)], 256)) {
      found.push(...(await this.call(() => this.client.retrieve(collection, { ids: chunk, ...select }))));
    }
    return found;
  }
}
