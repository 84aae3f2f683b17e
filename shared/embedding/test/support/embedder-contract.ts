import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/index.ts';

/**
 * The `Embedder` port's contract, run against every adapter (builtin, openai-compatible,
 * remote service, batcher, cache). `make` builds a fresh embedder; `cleanup` releases it.
 */
export function describeEmbedderContract(
  name: string,
  make: () => Promise<{ embedder: Embedder; cleanup?: () => Promise<void> }>,
): void {
  describe(`Embedder contract: ${name}`, () => {
    let embedder: Embedder;
    let cleanup: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      ({ embedder, cleanup } = await make());
    });
    afterAll(async () => {
      await cleanup?.();
    });

    it('names its model and a positive dimension', () => {
      expect(embedder.model).toMatch(/\S/);
      expect(embedder.dimension).toBeGreaterThan(0);
    });

    it('returns one unit-length vector of the declared dimension per text, in order', async () => {
      const texts = ['I am allergic to peanuts', 'The meeting moved to Friday', '用户喜欢简洁的回答'];
      const vectors = await embedder.embed(texts);
      expect(vectors).toHaveLength(3);
      for (const v of vectors) {
        expect(v).toBeInstanceOf(Float32Array);
        expect(v.length).toBe(embedder.dimension);
        expect(Math.hypot(...v)).toBeCloseTo(1, 4);
      }
      const [alone] = await embedder.embed([texts[1] as string]);
      expect(Array.from(alone as Float32Array)).toEqual(Array.from(vectors[1] as Float32Array));
    });

    it('gives the same vector for the same text every time', async () => {
      const [a] = await embedder.embed(['deterministic please']);
      const [b] = await embedder.embed(['deterministic please']);
      expect(Array.from(a as Float32Array)).toEqual(Array.from(b as Float32Array));
    });

    it('answers an empty batch with no vectors', async () => {
      expect(await embedder.embed([])).toEqual([]);
    });

    it('passes its readiness check', async () => {
      await expect(embedder.check()).resolves.toBeUndefined();
    });
  });
}
