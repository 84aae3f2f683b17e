import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type ServiceProcess, spawnService } from '../support/process.ts';

/**
 * Issue 12 item 10, the read side: memory-api and the embedder service as two real processes; the
 * embedder frozen (SIGSTOP) or killed (SIGKILL). `/retrieve` answers keyword results with
 * `dense_skipped` instead of 503 or waiting for the deadline, and uses the embedder again once it
 * is back.
 */
let dataDir: string;
let embedderPort: number;
let embedder: ServiceProcess | undefined;
let api: ServiceProcess | undefined;

const post = async (path: string, body: unknown) => {
  const response = await fetch(`${api?.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
type Answer = { results: Array<{ content: string }>; dense_skipped: boolean; timed_out: boolean };
const retrieve = async () => {
  const { status, body } = await post('/retrieve', { query: 'where is the spare key', user_id: 'down' });
  expect(status).toBe(200);
  return body as unknown as Answer;
};
/** Searches until one uses the embedder again (the cool-down is 300 ms here); fails after 100 tries. */
const untilDense = async () => {
  for (let attempt = 0; attempt < 100; attempt++) {
    const answer = await retrieve();
    if (!answer.dense_skipped) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('dense search never came back');
};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hindsight-embedder-down-'));
  embedderPort = await freePort();
  embedder = await spawnService('embedder', { PORT: String(embedderPort) });
  api = await spawnService('memory-api', {
    DATA_DIR: dataDir,
    REDIS_PREFIX: `test-${randomUUID()}`,
    EMBEDDER_URL: `http://127.0.0.1:${embedderPort}`,
    EMBED_CACHE_SIZE: '0',
    SEARCH_DEADLINE_MS: '10000',
    SEARCH_EMBED_TIMEOUT_MS: '500',
    SEARCH_EMBED_COOLDOWN_MS: '300',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  });
}, 90_000);
afterAll(async () => {
  embedder?.child.kill('SIGCONT');
  await api?.stop();
  await embedder?.stop('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

describe('search while the embedder is unavailable', () => {
  it('answers keyword results with dense_skipped when the embedder is frozen, then killed, and recovers', async () => {
    const stored = await post('/store', { content: 'The spare key is under the flowerpot', user_id: 'down' });
    expect(stored.status).toBe(201);
    expect((await retrieve()).dense_skipped).toBe(false);

    embedder?.child.kill('SIGSTOP');
    const frozen = await retrieve();
    expect(frozen.dense_skipped).toBe(true);
    // Answered by the query-embedding timeout (500 ms), not the 10 s deadline.
    expect(frozen.timed_out).toBe(false);
    expect(frozen.results.map((r) => r.content)).toEqual(['The spare key is under the flowerpot']);
    expect((await retrieve()).dense_skipped).toBe(true);

    embedder?.child.kill('SIGCONT');
    expect((await untilDense()).results[0]?.content).toBe('The spare key is under the flowerpot');

    await embedder?.stop('SIGKILL');
    const killed = await retrieve();
    expect(killed.dense_skipped).toBe(true);
    expect(killed.timed_out).toBe(false);
    expect(killed.results.map((r) => r.content)).toEqual(['The spare key is under the flowerpot']);

    embedder = await spawnService('embedder', { PORT: String(embedderPort) });
    expect((await untilDense()).results[0]?.content).toBe('The spare key is under the flowerpot');
  }, 90_000);
});
