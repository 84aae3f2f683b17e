import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BuiltinEmbedder, encodeVectorBase64 } from '@hindsight/embedding';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * A small local server speaking the embedder service's protocol (GET /models, GET /ready,
 * POST /embed in base64), whose /embed can be told to stall: the read path must answer
 * before its deadline with what is ready and say `timed_out`.
 */
function slowEmbedderService(): { server: Server; stallMs: { value: number } } {
  const builtin = new BuiltinEmbedder();
  const stallMs = { value: 0 };
  const server = createServer((request, response) => {
    const send = (body: unknown) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(body));
    };
    if (request.method === 'GET' && request.url === '/models')
      return send({ model: builtin.model, dim: builtin.dimension });
    if (request.method === 'GET' && request.url === '/ready') return send({ status: 'ready' });
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', async () => {
      const { texts } = JSON.parse(raw) as { texts: string[] };
      const vectors = (await builtin.embed(texts)).map(encodeVectorBase64);
      setTimeout(() => send({ model: builtin.model, dim: builtin.dimension, vectors }), stallMs.value);
    });
  });
  return { server, stallMs };
}

let t: TestApp;
let embedder: ReturnType<typeof slowEmbedderService>;

beforeAll(async () => {
  embedder = slowEmbedderService();
  await new Promise<void>((resolve) => embedder.server.listen(0, '127.0.0.1', resolve));
  const { port } = embedder.server.address() as AddressInfo;
  t = await startTestApp({ EMBEDDER_URL: `http://127.0.0.1:${port}`, EMBED_CACHE_SIZE: '0' });
});
afterAll(async () => {
  await t.close();
  embedder.server.closeAllConnections();
  await new Promise((resolve) => embedder.server.close(resolve));
});

describe('search deadline', () => {
  it('answers keyword results before the deadline when embedding stalls, with timed_out', async () => {
    const stored = await t.app.inject({
      method: 'POST',
      url: '/store',
      payload: { content: 'The spare key is under the flowerpot', user_id: 'd' },
    });
    expect(stored.statusCode).toBe(201);

    embedder.stallMs.value = 3_000;
    const response = await t.app.inject({
      method: 'POST',
      url: '/retrieve',
      payload: { query: 'where is the spare key', user_id: 'd', deadline_ms: 300 },
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.timed_out).toBe(true);
    expect(body.results.map((r: { content: string }) => r.content)).toEqual(['The spare key is under the flowerpot']);
    embedder.stallMs.value = 0;

    const normal = (
      await t.app.inject({
        method: 'POST',
        url: '/retrieve',
        payload: { query: 'where is the spare key', user_id: 'd' },
      })
    ).json();
    expect(normal.timed_out).toBe(false);
    expect(normal.results[0].scores.similarity).toBeGreaterThan(0);
  });
});
