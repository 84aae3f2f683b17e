import { BuiltinEmbedder, createEmbedder, decodeVectorBase64 } from '@hindsight/embedding';
import { parsePrometheusText } from '@hindsight/metrics';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiCompatibleTestServer } from '../../../shared/embedding/test/support/openai-compatible-server.ts';
import { embedderSettings } from '../src/adapters/embedder.ts';
import { buildApp } from '../src/app.ts';
import { createMetrics } from '../src/metrics.ts';
import { silentLogger, testApp, testConfig } from './support.ts';

describe('embedder service over HTTP (builtin provider)', () => {
  let app: FastifyInstance;
  const reference = new BuiltinEmbedder({ dimension: 512 });

  beforeAll(async () => {
    const metrics = createMetrics();
    const config = testConfig({ EMBED_MAX_TEXTS: '4', EMBED_MAX_TEXT_CHARS: '50' });
    const embedder = await createEmbedder(embedderSettings(config, { metrics, logger: silentLogger() }));
    app = await buildApp({ config, embedder, metrics });
  });
  afterAll(() => app.close());

  it('POST /embed returns unit vectors equal to the builtin embedder, in order', async () => {
    const res = await app.inject({ method: 'POST', url: '/embed', payload: { texts: ['I like tea', '我喜欢茶'] } });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { model: string; dim: number; encoding_format: string; vectors: number[][] };
    expect(body.model).toBe('builtin-v11-512');
    expect(body.dim).toBe(512);
    expect(body.encoding_format).toBe('float');
    const [expected] = await reference.embed(['我喜欢茶']);
    expect(body.vectors[1]).toEqual(Array.from(expected as Float32Array));
  });

  it('POST /embed with encoding_format=base64 returns little-endian float32 per vector', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/embed',
      payload: { texts: ['compact please'], encoding_format: 'base64' },
    });
    const body = res.json() as { vectors: string[] };
    const [expected] = await reference.embed(['compact please']);
    expect(Array.from(decodeVectorBase64(body.vectors[0] as string))).toEqual(Array.from(expected as Float32Array));
  });

  it('accepts the served model name and refuses another one with 409', async () => {
    const ok = await app.inject({ method: 'POST', url: '/embed', payload: { texts: ['x'], model: 'builtin-v11-512' } });
    expect(ok.statusCode).toBe(200);
    const res = await app.inject({
      method: 'POST',
      url: '/embed',
      payload: { texts: ['x'], model: 'builtin-v11-384' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.message).toContain('serves model "builtin-v11-512"');
  });

  it('refuses more texts than the batch limit with 413 too_many_texts', async () => {
    const res = await app.inject({ method: 'POST', url: '/embed', payload: { texts: ['a', 'b', 'c', 'd', 'e'] } });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({
      error: {
        code: 'too_many_texts',
        message: 'at most 4 texts per request, got 5: split the batch',
        details: { limit: 4, got: 5 },
      },
    });
  });

  it('refuses a text over the length limit with 413 text_too_long naming its index', async () => {
    const res = await app.inject({ method: 'POST', url: '/embed', payload: { texts: ['short', 'x'.repeat(51)] } });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('text_too_long');
    expect(res.json().error.message).toContain('texts[1] has 51 characters');
  });

  it.each([
    ['an empty list', { texts: [] }, 422, 'validation_failed'],
    ['a non-string text', { texts: [1] }, 422, 'validation_failed'],
    ['an unknown encoding', { texts: ['a'], encoding_format: 'binary' }, 422, 'validation_failed'],
    ['a blank text', { texts: ['ok', '   '] }, 422, 'empty_text'],
  ])('refuses %s with a 4xx error body', async (_name, payload, status, code) => {
    const res = await app.inject({ method: 'POST', url: '/embed', payload });
    expect(res.statusCode).toBe(status);
    expect(res.json().error.code).toBe(code);
    expect(typeof res.json().error.message).toBe('string');
  });

  it('refuses malformed JSON with 400', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/embed',
      headers: { 'content-type': 'application/json' },
      payload: '{"texts": [',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('bad_request');
  });

  it('POST /align scores each text by how its words match the query words, in order', async () => {
    const texts = ['sings alto in the parish choir', 'fixes cars in a garage', 'cat'];
    const res = await app.inject({
      method: 'POST',
      url: '/align',
      payload: { query: 'what music does she make?', texts },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { scores } = res.json() as { scores: number[] };
    expect(scores).toEqual(await reference.align('what music does she make?', texts));
    expect(scores).toHaveLength(3);
    for (const score of scores) expect(score).toBeGreaterThanOrEqual(0);
    expect(scores[0]).toBeGreaterThan(scores[1] as number);
  });

  it('refuses an /align without a query or texts with 422, and more texts than the limit with 413', async () => {
    for (const payload of [{ texts: ['a'] }, { query: 'q', texts: [] }, { query: '', texts: ['a'] }, { query: 'q' }]) {
      const res = await app.inject({ method: 'POST', url: '/align', payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
    }
    const many = await app.inject({
      method: 'POST',
      url: '/align',
      payload: { query: 'q', texts: ['a', 'b', 'c', 'd', 'e'] },
    });
    expect(many.statusCode).toBe(413);
    expect(many.json().error.code).toBe('too_many_texts');
  });

  it('POST /forget drops the cached vectors of the given texts (user erasure)', async () => {
    await app.inject({ method: 'POST', url: '/embed', payload: { texts: ['forget me', 'keep me'] } });
    const forgotten = await app.inject({ method: 'POST', url: '/forget', payload: { texts: ['forget me'] } });
    expect(forgotten.statusCode).toBe(200);
    expect(forgotten.json()).toEqual({ forgotten: 1 });
    expect((await app.inject({ method: 'POST', url: '/forget', payload: { texts: ['forget me'] } })).json()).toEqual({
      forgotten: 0,
    });
    const tooMany = await app.inject({ method: 'POST', url: '/forget', payload: { texts: ['a', 'b', 'c', 'd', 'e'] } });
    expect(tooMany.statusCode).toBe(413);
  });

  it('GET /models describes the served model, dimension and limits', async () => {
    const res = await app.inject({ method: 'GET', url: '/models' });
    expect(res.json()).toEqual({
      model: 'builtin-v11-512',
      dim: 512,
      provider: 'builtin',
      limits: { max_texts: 4, max_text_chars: 50 },
      models: [{ id: 'builtin-v11-512', dim: 512, provider: 'builtin' }],
    });
  });

  it('answers /health and /ready', async () => {
    expect((await app.inject({ method: 'GET', url: '/health' })).json()).toEqual({ status: 'ok' });
    const ready = await app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { provider: { ok: true } } });
  });

  it('exposes request latency, embed time and cache hits on /metrics', async () => {
    await app.inject({ method: 'POST', url: '/embed', payload: { texts: ['cached text'] } });
    await app.inject({ method: 'POST', url: '/embed', payload: { texts: ['cached text'] } });
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    const value = metricValue(res.body);
    expect(
      value('hindsight_http_request_duration_seconds_count', { method: 'POST', route: '/embed', status_code: '200' }),
    ).toBeGreaterThan(0);
    expect(value('embedder_embed_duration_seconds_count', { provider: 'builtin' })).toBeGreaterThan(0);
    expect(value('embedder_cache_lookups_total', { result: 'lru_hit' })).toBeGreaterThan(0);
    expect(value('embedder_cache_lookups_total', { result: 'miss' })).toBeGreaterThan(0);
  });

  it('answers an unknown route with a 404 error body', async () => {
    const res = await app.inject({ method: 'GET', url: '/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
  });
});

describe('embedder service with the openai provider against a local server speaking /v1/embeddings', () => {
  /** The service on the openai provider, against a local server of its own. */
  async function startOnProvider(): Promise<{ server: OpenAiCompatibleTestServer; app: FastifyInstance }> {
    const server = new OpenAiCompatibleTestServer(24);
    const baseUrl = await server.start();
    const env = {
      EMBEDDINGS_PROVIDER: 'openai',
      EMBEDDINGS_BASE_URL: baseUrl,
      EMBEDDINGS_MODEL: 'local-model',
      EMBEDDINGS_RETRIES: '0',
      EMBEDDINGS_TIMEOUT_MS: '2000',
      EMBED_CACHE_SIZE: '0',
      EMBED_BATCH_WAIT_MS: '20',
    };
    const config = testConfig(env);
    const metrics = createMetrics();
    const embedder = await createEmbedder(embedderSettings(config, { metrics, logger: silentLogger() }));
    const { app } = await testApp({ env, embedder, metrics });
    return { server, app };
  }

  let server: OpenAiCompatibleTestServer;
  let app: FastifyInstance;

  beforeAll(async () => {
    ({ server, app } = await startOnProvider());
  });
  afterAll(async () => {
    await app.close();
    await server.stop();
  });

  it('answers /align with null scores: a model server has no word vectors to align (local OpenAI-protocol server)', async () => {
    const res = await app.inject({ method: 'POST', url: '/align', payload: { query: 'pets?', texts: ['two cats'] } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ scores: null });
  });

  it('serves the provider model and its learned dimension', async () => {
    const res = await app.inject({ method: 'POST', url: '/embed', payload: { texts: ['hello'] } });
    expect(res.statusCode).toBe(200);
    expect(res.json().model).toBe('openai:local-model:24');
    expect(res.json().dim).toBe(24);
  });

  it('coalesces concurrent requests into provider batches and reports their size on /metrics', async () => {
    const before = server.requests.length;
    const replies = await Promise.all(
      ['one', 'two', 'three', 'four'].map((text) =>
        app.inject({ method: 'POST', url: '/embed', payload: { texts: [text] } }),
      ),
    );
    expect(replies.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    expect(server.requests.length - before).toBeLessThan(4);
    const value = metricValue((await app.inject({ method: 'GET', url: '/metrics' })).body);
    expect(value('embedder_provider_batch_size_count', {})).toBeGreaterThan(0);
  });

  it('answers 503 naming the provider and cause when it is down, and /ready turns not ready', async () => {
    // A provider of its own to take down: the other tests keep theirs, in whichever order they run.
    const { server, app } = await startOnProvider();
    try {
      server.inject({ kind: 'status', status: 500 });
      const res = await app.inject({ method: 'POST', url: '/embed', payload: { texts: ['fails'] } });
      expect(res.statusCode).toBe(503);
      expect(res.json().error.code).toBe('dependency_unavailable');
      expect(res.json().error.message).toMatch(
        /openai-compatible embeddings at http:\/\/127\.0\.0\.1:\d+\/v1 unavailable: HTTP 500/,
      );

      await server.stop();
      const ready = await app.inject({ method: 'GET', url: '/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json().status).toBe('not_ready');
      expect(ready.json().checks.provider.error).toMatch(/cannot reach/);
    } finally {
      await app.close();
      await server.stop();
    }
  });
});

/** Looks a sample up by name and the labels that matter, whatever order the exposition uses. */
function metricValue(exposition: string): (name: string, labels: Record<string, string>) => number | undefined {
  const samples = parsePrometheusText(exposition);
  return (name, labels) =>
    samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
