import { CircuitBreaker, type Embedder } from '@hindsight/embedding';
import type { Logger } from '@hindsight/logger';

export interface QueryEmbeddingSettings {
  /** How long a search waits for its query vector before it goes on with keywords alone. */
  timeoutMs: number;
  /** After a failure or a timeout, searches skip the embedder this long (then one tries again). */
  cooldownMs: number;
}

class QueryEmbeddingTimeout extends Error {
  constructor(ms: number) {
    super(`no query vector within ${ms} ms`);
    this.name = 'QueryEmbeddingTimeout';
  }
}

/**
 * The query vector of a search, or the reason there is none. An embedder that is down (refused
 * connections: an instant error) or frozen (no answer: the timeout) costs one search the wait;
 * the searches after it skip the embedder at once until the cool-down has passed and a trial
 * call succeeds, so the read path answers keyword results quickly instead of 503 or the deadline.
 */
export class QueryEmbedding {
  private readonly circuit: CircuitBreaker;

  constructor(
    private readonly embedder: Pick<Embedder, 'embed'>,
    private readonly settings: QueryEmbeddingSettings,
    private readonly log: Logger,
  ) {
    this.circuit = new CircuitBreaker({ failureThreshold: 1, cooldownMs: settings.cooldownMs });
  }

  /**
   * The vector, or why there is none: `unavailable` (the embedder failed, timed out or is cooling
   * down) or `deadline` (the search's own time ran out first; that is not held against the embedder).
   */
  async embed(
    query: string,
    budgetMs: number,
  ): Promise<{ vector: Float32Array } | { skipped: 'unavailable' | 'deadline' }> {
    const attempt = this.circuit
      .run(() => this.withTimeout(query, this.settings.timeoutMs))
      .then(
        (vector) => ({ vector }),
        (error: unknown) => {
          this.log.warn({ err: error }, 'query embedding unavailable: searching by keywords only');
          return { skipped: 'unavailable' as const };
        },
      );
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<{ skipped: 'deadline' }>((resolve) => {
      timer = setTimeout(() => resolve({ skipped: 'deadline' }), Math.max(0, budgetMs));
    });
    try {
      return await Promise.race([attempt, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async withTimeout(query: string, waitMs: number): Promise<Float32Array> {
    const work = this.embedder.embed([query]);
    let timer: NodeJS.Timeout | undefined;
    const expiry = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new QueryEmbeddingTimeout(waitMs)), waitMs);
    });
    // A call that answers after the timeout must not surface as an unhandled rejection.
    work.catch((error: unknown) => this.log.debug({ err: error }, 'late query embedding failed'));
    try {
      const [vector] = await Promise.race([work, expiry]);
      if (!vector) throw new Error('the embedder answered no vector for the query');
      return vector;
    } finally {
      clearTimeout(timer);
    }
  }
}
