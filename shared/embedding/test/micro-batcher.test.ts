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
});
