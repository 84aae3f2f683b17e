import type { AddressInfo } from 'node:net';
import { loadWordTable, RemoteEmbedder, WordSoftMatcher } from '@hindsight/embedding';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp } from './support.ts';

describe('POST /soft-match over real HTTP (RemoteEmbedder → embedder service)', () => {
  let app: FastifyInstance;
  let remote: RemoteEmbedder;

  beforeAll(async () => {
    ({ app } = await testApp({ softMatcher: new WordSoftMatcher(loadWordTable()) }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    remote = new RemoteEmbedder({ url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` });
  });
  afterAll(async () => {
    await remote.close();
    await app.close();
  });

  it('scores a text that answers the question in other words above one that does not', async () => {
    const scores = await remote.softScores({
      query: 'Which instrument does Kate play?',
      texts: ['Kate: I practised the cello for two hours today', 'Kate: the weather was rainy all weekend'],
    });
    expect(scores).toHaveLength(2);
    const [answer, other] = scores as [number, number];
    expect(answer).toBeGreaterThan(other);
    expect(answer).toBeGreaterThan(0);
    expect(answer).toBeLessThanOrEqual(1);
  });

  it('gives 1 to a text holding every content word of the question and 0 to a query without any', async () => {
    const [all] = await remote.softScores({ query: 'cello lessons', texts: ['My cello lessons start on Monday'] });
    expect(all).toBeCloseTo(1, 6);
    const [none] = await remote.softScores({ query: 'what is it?', texts: ['My cello lessons start on Monday'] });
    expect(none).toBe(0);
  });

  it('refuses a request without texts (422)', async () => {
    const response = await app.inject({ method: 'POST', url: '/soft-match', payload: { query: 'cello', texts: [] } });
    expect(response.statusCode).toBe(422);
  });
});
