import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BuiltinEmbedder, createEmbedder, RemoteEmbedder } from '@hindsight/embedding';
import { DependencyUnavailableError } from '@hindsight/errors';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEmbedderContract } from '../../../shared/embedding/test/support/embedder-contract.ts';
import { OpenAiCompatibleTestServer } from '../../../shared/embedding/test/support/openai-compatible-server.ts';
import { embedderSettings } from '../src/adapters/embedder.ts';
import { createMetrics } from '../src/metrics.ts';
import { silentLogger, testApp, testConfig } from './support.ts';

async function listening(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

describeEmbedderContract('remote (RemoteEmbedder → embedder service over real HTTP)', async () => {
  const { app } = await testApp();
  const url = await listening(app);
  return { embedder: await RemoteEmbedder.connect({ url }), cleanup: () => app.close() };
});

describe('RemoteEmbedder against the embedder service over real HTTP', () => {
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    ({ app } = await testApp({ env: { EMBEDDINGS_DIM: '128' } }));
    url = await listening(app);
  });
  afterAll(() => app.close());

  it('learns model and dimension from GET /models and returns the service vectors', async () => {
    const remote = await RemoteEmbedder.connect({ url });
    expect(remote.model).toBe('builtin-v11-128');
    expect(remote.dimension).toBe(128);
    const [v] = await remote.embed(['across the wire']);
    const [local] = await new BuiltinEmbedder({ dimension: 128 }).embed(['across the wire']);
    expect(Array.from(v as Float32Array)).toEqual(Array.from(local as Float32Array));
  });

  it("aligns texts with a query as the service's built-in embedder does", async () => {
    const remote = await RemoteEmbedder.connect({ url });
    const texts = ['has two cats named Pixel and Mochi', 'works night shifts at the hospital'];
    const scores = await remote.align('does she have any pets?', texts);
    expect(scores).toEqual(await new BuiltinEmbedder({ dimension: 128 }).align('does she have any pets?', texts));
    expect((scores as number[])[0]).toBeGreaterThan((scores as number[])[1] as number);
  });

  it('answers no alignment for a model server, and does not ask the service again (local OpenAI-protocol server)', async () => {
    const server = new OpenAiCompatibleTestServer(24);
    const baseUrl = await server.start();
    const env = { EMBEDDINGS_PROVIDER: 'openai', EMBEDDINGS_BASE_URL: baseUrl, EMBEDDINGS_MODEL: 'local-model' };
    const metrics = createMetrics();
    const embedder = await createEmbedder(embedderSettings(testConfig(env), { metrics, logger: silentLogger() }));
    const { app: provider } = await testApp({ env, embedder, metrics });
    const remote = await RemoteEmbedder.connect({ url: await listening(provider) });
    expect(await remote.align('pets?', ['two cats'])).toBeUndefined();
    // The service is gone: a second request would fail; none is sent.
    await provider.close();
    await server.stop();
    expect(await remote.align('pets?', ['two cats'])).toBeUndefined();
  });

  it('learns the model on first use when check() was not called', async () => {
    const remote = new RemoteEmbedder({ url });
    expect(() => remote.model).toThrow(DependencyUnavailableError);
    await remote.embed(['first use']);
    expect(remote.model).toBe('builtin-v11-128');
  });

  it('passes a service error through with its message (413 limit)', async () => {
    const remote = await RemoteEmbedder.connect({ url });
    const error = await remote.embed(['x'.repeat(8001)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as Error).message).toContain('HTTP 413: texts[0] has 8001 characters');
  });

  it('refuses to go on when the service behind its URL now serves another model', async () => {
    // A forwarding proxy stands for a load balancer whose backend was redeployed with another model.
    const { app: other } = await testApp({ env: { EMBEDDINGS_DIM: '64' } });
    const otherUrl = await listening(other);
    let target = url;
    const proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const upstream = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers: { 'content-type': 'application/json' },
        body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
      });
      res.writeHead(upstream.status, { 'content-type': 'application/json' });
      res.end(await upstream.text());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      const remote = await RemoteEmbedder.connect({ url: proxyUrl });
      expect(remote.model).toBe('builtin-v11-128');
      target = otherUrl;
      await expect(remote.embed(['after the redeploy'])).rejects.toThrow(
        /serves model "builtin-v11-64", not "builtin-v11-128"/,
      );
      await expect(remote.check()).rejects.toThrow(/now serves builtin-v11-64 \(64\), was builtin-v11-128 \(128\)/);
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
      await other.close();
    }
  });

  it('sends consecutive and concurrent embeds over kept-alive connections, with the same vectors', async () => {
    const connections: unknown[] = [];
    const onConnection = (socket: unknown) => connections.push(socket);
    app.server.on('connection', onConnection);
    try {
      const remote = await RemoteEmbedder.connect({ url });
      const local = new BuiltinEmbedder({ dimension: 128 });
      for (let i = 0; i < 20; i++) {
        const [vector] = await remote.embed([`the spare key is under flowerpot ${i}`]);
        expect(vector).toEqual(local.embedOne(`the spare key is under flowerpot ${i}`));
      }
      // check() took the first connection; the twenty embeds after it reused it.
      expect(connections.length).toBe(1);
      const together = await Promise.all(Array.from({ length: 8 }, (_, i) => remote.embed([`together ${i}`])));
      expect(together.map(([v]) => v)).toEqual(Array.from({ length: 8 }, (_, i) => local.embedOne(`together ${i}`)));
      expect(connections.length).toBeLessThanOrEqual(8);
      await remote.close();
    } finally {
      app.server.off('connection', onConnection);
    }
  });

  it('fails an embed the service does not answer within the timeout, naming the wait', async () => {
    // A local server speaking the service's protocol whose /embed never answers.
    const stalled = createServer((request, response) => {
      if (request.url === '/models') return response.end(JSON.stringify({ model: 'stalled', dim: 8 }));
      if (request.url === '/ready') return response.end(JSON.stringify({ status: 'ready' }));
      request.resume();
    });
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    const stalledUrl = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}`;
    try {
      const remote = await RemoteEmbedder.connect({ url: stalledUrl, timeoutMs: 200 });
      const error = await remote.embed(['anyone there?']).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DependencyUnavailableError);
      expect((error as Error).message).toMatch(`no answer from ${stalledUrl}/embed within 200 ms`);
      await remote.close();
    } finally {
      stalled.closeAllConnections();
      await new Promise((resolve) => stalled.close(resolve));
    }
  });

  it('reports a stopped service as DependencyUnavailableError("embedder") naming the URL', async () => {
    const { app: doomed } = await testApp();
    const doomedUrl = await listening(doomed);
    const remote = await RemoteEmbedder.connect({ url: doomedUrl, timeoutMs: 1000 });
    await doomed.close();
    const error = await remote.embed(['anyone there?']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as Error).message).toMatch(new RegExp(`^embedder unavailable: cannot reach ${doomedUrl}/embed`));
    await expect(remote.check()).rejects.toThrow(/embedder unavailable/);
  });
});
