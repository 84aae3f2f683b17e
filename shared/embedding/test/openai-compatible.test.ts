import { DependencyUnavailableError } from '@hindsight/errors';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BuiltinEmbedder, cosine, OpenAiCompatibleEmbedder, type OpenAiCompatibleSettings } from '../src/index.ts';
import { describeEmbedderContract } from './support/embedder-contract.ts';
import { OpenAiCompatibleTestServer } from './support/openai-compatible-server.ts';

describeEmbedderContract('openai-compatible against a local server speaking /v1/embeddings', async () => {
  const server = new OpenAiCompatibleTestServer();
  const baseUrl = await server.start();
  return {
    embedder: await OpenAiCompatibleEmbedder.connect({ baseUrl, model: 'test-embed' }),
    cleanup: () => server.stop(),
  };
});

describe('OpenAiCompatibleEmbedder against a local server speaking the real /v1/embeddings protocol', () => {
  let server: OpenAiCompatibleTestServer;
  let baseUrl: string;
  const settings = (more: Partial<OpenAiCompatibleSettings> = {}): OpenAiCompatibleSettings => ({
    baseUrl,
    model: 'test-embed',
    dimension: 48,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 5,
    providerName: 'local-test',
    ...more,
  });

  beforeEach(async () => {
    server = new OpenAiCompatibleTestServer(48);
    baseUrl = await server.start();
  });
  afterEach(async () => {
    await server.stop();
  });

  it('learns the dimension with one probe call when it is not configured', async () => {
    const embedder = await OpenAiCompatibleEmbedder.connect(settings({ dimension: undefined }));
    expect(embedder.dimension).toBe(48);
    expect(embedder.model).toBe('openai:test-embed:48');
    expect(server.requests).toHaveLength(1);
  });

  it('sends model, inputs, float encoding and the API key; returns unit vectors in input order', async () => {
    const embedder = await OpenAiCompatibleEmbedder.connect(settings({ apiKey: 'sk-test' }));
    const vectors = await embedder.embed(['alpha beta', 'gamma delta']);
    expect(server.requests[0]).toEqual({
      model: 'test-embed',
      input: ['alpha beta', 'gamma delta'],
      encodingFormat: 'float',
      authorization: 'Bearer sk-test',
    });
    const [expected] = await new BuiltinEmbedder({ dimension: 48 }).embed(['gamma delta']);
    expect(cosine(vectors[1] as Float32Array, expected as Float32Array)).toBeCloseTo(1, 5);
  });

  it('puts vectors back in input order when the server answers them shuffled (by index)', async () => {
    const embedder = await OpenAiCompatibleEmbedder.connect(settings());
    server.inject({ kind: 'shuffled' });
    const [first] = await embedder.embed(['alpha beta', 'gamma delta']);
    const [expected] = await new BuiltinEmbedder({ dimension: 48 }).embed(['alpha beta']);
    expect(cosine(first as Float32Array, expected as Float32Array)).toBeCloseTo(1, 5);
  });

  it('retries after 429 and 503, then succeeds', async () => {
    const embedder = await OpenAiCompatibleEmbedder.connect(settings({ retries: 3 }));
    server.inject({ kind: 'status', status: 429, retryAfterSeconds: 0 }, { kind: 'status', status: 503 });
    const vectors = await embedder.embed(['hello there']);
    expect(vectors).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after the configured retries with an error naming the provider and the status', async () => {
    const embedder = await OpenAiCompatibleEmbedder.connect(settings({ retries: 1 }));
    server.inject({ kind: 'status', status: 500 }, { kind: 'status', status: 500 });
    const error = await embedder.embed(['x']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as Error).message).toMatch(/^local-test unavailable: HTTP 500/);
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a 401: the key is wrong, not the moment', async () => {
    const embedder = await OpenAiCompatibleEmbedder.connect(settings({ retries: 3 }));
    server.inject({ kind: 'status', status: 401 });
    await expect(embedder.embed(['x'])).rejects.toThrow(/HTTP 401/);
    expect(server.requests).toHaveLength(1);
  });

  it('times out a server that does not answer in time', async () => {
    const embedder = await OpenAiCompatibleEmbedder.connect(settings({ timeoutMs: 100, retries: 0 }));
    server.inject({ kind: 'delay', ms: 1_000 });
    await expect(embedder.embed(['slow'])).rejects.toThrow(/timed out/);
  });

  it.each([
    ['wrong-count', /returned 1 vectors for 2 inputs/],
    ['wrong-dimension', /dimension 47, expected 48/],
    ['non-numeric', /non-numeric value/],
  ] as const)('rejects a malformed response (%s) with a clear error', async (kind, message) => {
    const embedder = await OpenAiCompatibleEmbedder.connect(settings({ retries: 0 }));
    server.inject({ kind });
    const error = await embedder.embed(['one', 'two']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as Error).message).toMatch(message);
  });

  it('rejects a response body that is not JSON', async () => {
    const embedder = await OpenAiCompatibleEmbedder.connect(settings({ retries: 0 }));
    server.inject({ kind: 'not-json' });
    await expect(embedder.embed(['one'])).rejects.toBeInstanceOf(DependencyUnavailableError);
  });

  it('opens the circuit after consecutive failures and stops calling the server, then recovers', async () => {
    const embedder = await OpenAiCompatibleEmbedder.connect(
      settings({ retries: 0, breakerThreshold: 2, breakerCooldownMs: 200 }),
    );
    server.inject({ kind: 'status', status: 502 }, { kind: 'status', status: 502 });
    await expect(embedder.embed(['a'])).rejects.toThrow(/HTTP 502/);
    await expect(embedder.embed(['a'])).rejects.toThrow(/HTTP 502/);
    const callsWhenOpened = server.requests.length;
    await expect(embedder.embed(['a'])).rejects.toThrow(/circuit open/);
    expect(server.requests).toHaveLength(callsWhenOpened);

    await new Promise((resolve) => setTimeout(resolve, 250));
    await expect(embedder.embed(['a'])).resolves.toHaveLength(1);
    expect(server.requests).toHaveLength(callsWhenOpened + 1);
  });

  it('reports an unreachable server by its URL', async () => {
    await server.stop();
    const error = await OpenAiCompatibleEmbedder.connect(settings({ dimension: undefined, retries: 0 })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as Error).message).toContain(`cannot reach ${baseUrl}`);
    server = new OpenAiCompatibleTestServer(48);
    baseUrl = await server.start();
  });
});
