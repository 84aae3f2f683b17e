import type { Embedder } from '../port.ts';

export interface MicroBatcherOptions {
  /** Most texts sent to the provider in one call. */
  maxBatchSize: number;
  /**
   * Longest a text waits for company before its batch is sent. 0 waits for nothing but the calls
   * made in the same turn of the event loop (sent on `setImmediate`, not a ≥ 1 ms timer).
   */
  maxWaitMs: number;
  /**
   * Most provider calls outstanding at once (unbounded when absent). Calls made while that many
   * are on their way wait and go together, in batches, as soon as one comes back: a lone call is
   * sent at once, and under load each round trip carries the calls that arrived during the last
   * one instead of one request per call.
   */
  maxInFlight?: number;
  /** Told the size of every provider batch (for a metric). */
  onBatch?: (size: number) => void;
}

interface Pending {
  texts: readonly string[];
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: unknown) => void;
}

/**
 * Coalesces concurrent `embed` calls into provider batches: remote models are far faster per
 * text in batches, and many small requests arrive at once under load. A batch is sent when it is
 * full or when its oldest text has waited `maxWaitMs`. A failed batch fails each of its callers.
 * Nothing outlives a request: the buffer holds only calls that are still awaiting an answer.
 */
export class MicroBatcher implements Embedder {
  private queue: Pending[] = [];
  private queuedTexts = 0;
  private inFlight = 0;
  /** Cancels the pending send of the queued calls; undefined when none is pending. */
  private cancelWait: (() => void) | undefined;

  constructor(
    private readonly inner: Embedder,
    private readonly options: MicroBatcherOptions,
  ) {
    if (options.maxBatchSize < 1) throw new RangeError('maxBatchSize must be at least 1');
    if (options.maxInFlight !== undefined && options.maxInFlight < 1) {
      throw new RangeError('maxInFlight must be at least 1');
    }
  }

  get model(): string {
    return this.inner.model;
  }

  get dimension(): number {
    return this.inner.dimension;
  }

  async align(query: string, texts: readonly string[]): Promise<number[] | undefined> {
    return this.inner.align?.(query, texts);
  }

  async forget(texts: readonly string[]): Promise<number> {
    return (await this.inner.forget?.(texts)) ?? 0;
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    if (texts.length >= this.options.maxBatchSize) return this.embedLarge(texts);
    return new Promise((resolve, reject) => {
      this.queue.push({ texts, resolve, reject });
      this.queuedTexts += texts.length;
      if (this.queuedTexts >= this.options.maxBatchSize) this.flush();
      else this.cancelWait ??= this.waitForCompany();
    });
  }

  check(): Promise<void> {
    return this.inner.check();
  }

  async close(): Promise<void> {
    this.flush();
    await this.inner.close?.();
  }

  /** Schedules the send of the queued calls; returns how to cancel it. */
  private waitForCompany(): () => void {
    if (this.options.maxWaitMs === 0) {
      const immediate = setImmediate(() => this.flush());
      return () => clearImmediate(immediate);
    }
    const timer = setTimeout(() => this.flush(), this.options.maxWaitMs);
    return () => clearTimeout(timer);
  }

  /** Sends queued calls in batches of at most `maxBatchSize` texts, without splitting a call. */
  private flush(): void {
    this.cancelWait?.();
    this.cancelWait = undefined;
    while (this.queue.length > 0 && this.inFlight < (this.options.maxInFlight ?? Number.POSITIVE_INFINITY)) {
      const batch: Pending[] = [];
      let size = 0;
      while (this.queue.length > 0 && size + (this.queue[0] as Pending).texts.length <= this.options.maxBatchSize) {
        const next = this.queue.shift() as Pending;
        batch.push(next);
        size += next.texts.length;
      }
      this.queuedTexts -= size;
      void this.send(batch, size);
    }
  }

  private async send(batch: Pending[], size: number): Promise<void> {
    this.options.onBatch?.(size);
    this.inFlight++;
    try {
      const vectors = await this.inner.embed(batch.flatMap((p) => p.texts));
      let offset = 0;
      for (const pending of batch) {
        pending.resolve(vectors.slice(offset, offset + pending.texts.length));
        offset += pending.texts.length;
      }
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    } finally {
      this.inFlight--;
      // What queued behind the limit goes now (at once: it has waited a round trip already).
      if (this.queue.length > 0 && this.cancelWait === undefined) this.flush();
    }
  }

  /** A call that fills batches on its own is chunked directly, without waiting. */
  private async embedLarge(texts: readonly string[]): Promise<Float32Array[]> {
    const chunks: Promise<Float32Array[]>[] = [];
    for (let i = 0; i < texts.length; i += this.options.maxBatchSize) {
      const chunk = texts.slice(i, i + this.options.maxBatchSize);
      this.options.onBatch?.(chunk.length);
      chunks.push(this.inner.embed(chunk));
    }
    return (await Promise.all(chunks)).flat();
  }
}
