import { describe, expect, it } from 'vitest';
import { BuiltinEmbedder, type Embedder, MicroBatcher } from '../src/index.ts';
import { describeEmbedderContract } from './support/embedder-contract.ts';

/** Counts the provider calls the batcher makes and the texts in each. */
class CountingEmbedder implements Embedder {
  readonly calls: string[][] = [];
  private readonly inner = new BuiltinEmbedder({ dimension: 64 });
  failNext = false;
  readonly model = this.inner.model;
  readonly dimension = this.inner.dimension;

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    if (this.failNext) {
      this.failNext = false;
      throw new Error('provider failed');
    }
    return this.inner.embed(texts);
  }

  async check(): Promise<void> {
    return;
  }
}

describeEmbedderContract('micro-batched builtin', async () => ({
  embedder: new MicroBatcher(new BuiltinEmbedder(), { maxBatchSize: 16, maxWaitMs: 2 }),
}));

describe('MicroBatcher', () => {
  it('coalesces concurrent calls into one provider batch and hands each caller its own vectors', async () => {
    const provider = new CountingEmbedder();
    const sizes: number[] = [];
    const batcher = new MicroBatcher(provider, { maxBatchSize: 100, maxWaitMs: 20, onBatch: (n) => sizes.push(n) });
    const texts = Array.from({ length: 32 }, (_, i) => [`text number ${i}`, `another ${i}`]);
    const results = await Promise.all(texts.map((pair) => batcher.embed(pair)));

    expect(provider.calls).toHaveLength(1);
    expect(provider.calls[0]).toHaveLength(64);
    expect(sizes).toEqual([64]);
    const direct = await new BuiltinEmbedder({ dimension: 64 }).embed(['another 7']);
    expect(Array.from(results[7]?.[1] as Float32Array)).toEqual(Array.from(direct[0] as Float32Array));
  });

  it('sends a batch as soon as it is full, without splitting a call', async () => {
    const provider = new CountingEmbedder();
    const batcher = new MicroBatcher(provider, { maxBatchSize: 4, maxWaitMs: 10_000 });
    const results = await Promise.all([
      batcher.embed(['a', 'b']),
      batcher.embed(['c', 'd']),
      batcher.embed(['e', 'f', 'g']),
      batcher.embed(['h']),
    ]);
    expect(provider.calls).toEqual([
      ['a', 'b', 'c', 'd'],
      ['e', 'f', 'g', 'h'],
    ]);
    expect(results.map((r) => r.length)).toEqual([2, 2, 3, 1]);
  });

  it('with maxWaitMs 0 coalesces the calls of one event-loop turn and sends them on the next setImmediate, not a timer', async () => {
    const provider = new CountingEmbedder();
    const batcher = new MicroBatcher(provider, { maxBatchSize: 64, maxWaitMs: 0 });
    const sameTurn = Promise.all([batcher.embed(['one']), batcher.embed(['two'])]);
    expect(provider.calls).toEqual([]);
    // The batcher's setImmediate was queued first, so it has run when this one resolves.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(provider.calls).toEqual([['one', 'two']]);
    await sameTurn;
    await batcher.embed(['three']);
    expect(provider.calls).toEqual([['one', 'two'], ['three']]);
  });

  it('chunks one call larger than a batch into full batches', async () => {
    const provider = new CountingEmbedder();
    const batcher = new MicroBatcher(provider, { maxBatchSize: 3, maxWaitMs: 5 });
    const vectors = await batcher.embed(['1', '2', '3', '4', '5', '6', '7']);
    expect(vectors).toHaveLength(7);
    expect(provider.calls.map((c) => c.length)).toEqual([3, 3, 1]);
  });

  it('fails every caller of a failed batch and keeps serving afterwards', async () => {
    const provider = new CountingEmbedder();
    const batcher = new MicroBatcher(provider, { maxBatchSize: 10, maxWaitMs: 5 });
    provider.failNext = true;
    const outcomes = await Promise.allSettled([batcher.embed(['x']), batcher.embed(['y'])]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    await expect(batcher.embed(['z'])).resolves.toHaveLength(1);
  });

  it('with maxInFlight sends a lone call at once and the calls made during a round trip together when it returns', async () => {
    const provider = new GatedEmbedder();
    const batcher = new MicroBatcher(provider, { maxBatchSize: 64, maxWaitMs: 0, maxInFlight: 1 });
    const first = batcher.embed(['alone']);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(provider.calls).toEqual([['alone']]);
    // Three calls in three turns while the first is on its way: none is sent yet.
    const waiting: Promise<Float32Array[]>[] = [];
    for (const text of ['a', 'b', 'c']) {
      waiting.push(batcher.embed([text]));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    expect(provider.calls).toEqual([['alone']]);
    provider.release();
    expect(await first).toHaveLength(1);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(provider.calls).toEqual([['alone'], ['a', 'b', 'c']]);
    provider.release();
    const vectors = await Promise.all(waiting);
    const direct = await new BuiltinEmbedder({ dimension: 64 }).embed(['a', 'b', 'c']);
    expect(vectors.map(([v]) => Array.from(v as Float32Array))).toEqual(direct.map((v) => Array.from(v)));
  });

  it('with maxInFlight keeps serving after a failed round trip', async () => {
    const provider = new CountingEmbedder();
    const batcher = new MicroBatcher(provider, { maxBatchSize: 8, maxWaitMs: 0, maxInFlight: 1 });
    provider.failNext = true;
    const outcomes = await Promise.allSettled([batcher.embed(['x']), batcher.embed(['y'])]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    const after = await Promise.all(Array.from({ length: 20 }, (_, i) => batcher.embed([`after ${i}`])));
    expect(after.every((v) => v.length === 1)).toBe(true);
  });

  it('refuses a maxInFlight below 1', () => {
    expect(() => new MicroBatcher(new CountingEmbedder(), { maxBatchSize: 8, maxWaitMs: 0, maxInFlight: 0 })).toThrow(
      /maxInFlight/,
    );
  });
});

/** A provider whose calls wait until `release` lets the oldest one answer. */
class GatedEmbedder implements Embedder {
  readonly calls: string[][] = [];
  private readonly inner = new BuiltinEmbedder({ dimension: 64 });
  private readonly gates: Array<() => void> = [];
  readonly model = this.inner.model;
  readonly dimension = this.inner.dimension;

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    await new Promise<void>((resolve) => this.gates.push(resolve));
    return this.inner.embed(texts);
  }

  release(): void {
    this.gates.shift()?.();
  }

  async check(): Promise<void> {
    return;
  }
}
