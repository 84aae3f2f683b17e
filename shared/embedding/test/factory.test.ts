import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CachedEmbedder, createEmbedder, MicroBatcher } from '../src/index.ts';
import { OpenAiCompatibleTestServer } from './support/openai-compatible-server.ts';

describe('createEmbedder', () => {
  const server = new OpenAiCompatibleTestServer(32);
  let baseUrl: string;
  beforeAll(async () => {
    baseUrl = await server.start();
  });
  afterAll(() => server.stop());

  it('builds the builtin provider with the requested dimension and model', async () => {
    const embedder = await createEmbedder({ provider: 'builtin', dimension: 256 });
    expect(embedder.model).toBe('builtin-v11-256');
    expect((await createEmbedder({ provider: 'builtin', model: 'builtin-v11' })).model).toBe('builtin-v11-512');
    expect((await createEmbedder({ provider: 'builtin', model: 'builtin-v2' })).model).toBe('builtin-v2-512');
    expect((await createEmbedder({ provider: 'builtin', model: 'builtin-v4' })).model).toBe('builtin-v4-512');
    expect((await createEmbedder({ provider: 'builtin', model: 'builtin-v5' })).model).toBe('builtin-v5-512');
    expect((await createEmbedder({ provider: 'builtin', model: 'builtin-v9' })).model).toBe('builtin-v9-512');
    expect((await createEmbedder({ provider: 'builtin', model: 'builtin-v8' })).model).toBe('builtin-v8-512');
    expect((await createEmbedder({ provider: 'builtin', model: 'builtin-v7' })).model).toBe('builtin-v7-512');
    expect((await createEmbedder({ provider: 'builtin', model: 'builtin-v3' })).model).toBe('builtin-v3-512');
  });

  it('wraps the provider in the cache (outermost) and the batcher when asked', async () => {
    const embedder = await createEmbedder({
      provider: 'builtin',
      batch: { maxBatchSize: 8, maxWaitMs: 1 },
      cache: { lruSize: 16 },
    });
    expect(embedder).toBeInstanceOf(CachedEmbedder);
    expect(embedder.model).toBe('builtin-v11-512');
    await expect(embedder.embed(['works through both layers'])).resolves.toHaveLength(1);
  });

  it('builds the openai-compatible provider against a local /v1/embeddings server, learning the dimension', async () => {
    const embedder = await createEmbedder({
      provider: 'openai',
      baseUrl,
      model: 'm',
      batch: { maxBatchSize: 4, maxWaitMs: 1 },
    });
    expect(embedder).toBeInstanceOf(MicroBatcher);
    expect(embedder.dimension).toBe(32);
    expect(embedder.model).toBe('openai:m:32');
    await expect(embedder.embed(['a', 'b'])).resolves.toHaveLength(2);
  });
});
