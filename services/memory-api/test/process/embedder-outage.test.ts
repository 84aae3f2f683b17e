import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitForReady } from '@hindsight/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, spawnService } from '../support/process.ts';

/**
 * The embedder service frozen (SIGSTOP) and killed under a running memory-api (issue 12.10):
 * writes answer 503 dependency_unavailable, and after the first one that found the embedder
 * failing they answer at once, saying so, instead of waiting out a timeout each; searches
 * answer keyword results; everything comes back when the embedder does.
 */
let dataDir: string;
let embedder: ServiceProcess | undefined;
let api: ServiceProcess | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hindsight-embedder-outage-'));
});
afterAll(async () => {
  embedder?.child.kill('SIGCONT');
  await api?.stop('SIGKILL');
  await embedder?.stop('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

interface Reply {
  status: number;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}

async function call(method: string, path: string, body?: unknown): Promise<Reply> {
  const response = await fetch(`${api?.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: response.status, body: (await response.json()) as Reply['body'] };
}

const fact = (content: string) => ({ content, memory_type: 'fact', user_id: 'eo' });

/** Every kind of write that needs vectors, each different (nothing is a duplicate of a cached text). */
function writes(memoryId: string, round: string): Array<[string, string, unknown]> {
  return [
    ['POST', '/store', fact(`The user restores old bicycles (${round})`)],
    [
      'POST',
      '/v1/memories',
      { items: [fact(`The user swims at dawn (${round})`), fact(`The user bakes rye (${round})`)] },
    ],
    ['PATCH', `/v1/memories/${memoryId}`, { content: `The user plays the viola now (${round})` }],
    ['POST', '/store', fact(`The user keeps bees on the roof (${round})`)],
  ];
}

async function refusedWrites(memoryId: string, round: string): Promise<Array<{ request: string } & Reply>> {
  const answers = [];
  for (const [method, path, body] of writes(memoryId, round)) {
    answers.push({ request: `${method} ${path}`, ...(await call(method, path, body)) });
  }
  return answers;
}

describe('memory-api while the embedder service is frozen or killed', () => {
  it('fails writes fast with 503, answers searches by keywords, and recovers when the embedder answers again', async () => {
    embedder = await spawnService('embedder', {});
    api = await spawnService('memory-api', {
      DATA_DIR: dataDir,
      REDIS_PREFIX: `test-${randomUUID()}`,
      EMBEDDER_URL: embedder.url,
      EMBED_DEADLINE_MS: '2000',
      // Longer than the test: recovery must come from the embedder answering /ready, not the clock.
      EMBED_COOLDOWN_MS: '600000',
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    });
    const stored = await call('POST', '/store', fact('The user plays the cello'));
    expect(stored.status).toBe(201);
    const memoryId = stored.body.id as string;

    embedder.child.kill('SIGSTOP');
    const frozen = await refusedWrites(memoryId, 'frozen');
    for (const answer of frozen) {
      expect(answer, JSON.stringify(answer)).toMatchObject({
        status: 503,
        body: { error: { code: 'dependency_unavailable' } },
      });
    }
    expect(frozen[0]?.body.error?.message).toBe('embedder unavailable: no vectors within 2000 ms');
    // Every later write is refused at once, naming why, instead of waiting out its own timeout.
    for (const answer of frozen.slice(1)) {
      expect(answer.body.error?.message, answer.request).toMatch(
        /^embedder unavailable: failing \(no vectors within 2000 ms\); not called again for \d+ s$/,
      );
    }
    const searched = await call('POST', '/retrieve', { query: 'what instrument does the user play?', user_id: 'eo' });
    expect(searched.status).toBe(200);
    expect(searched.body.dense_skipped).toBe(true);
    expect((searched.body.results as Array<{ id: string }>).map((r) => r.id)).toContain(memoryId);
    const ready = await call('GET', '/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.checks).toMatchObject({ embedder: { ok: false }, store: { ok: true }, redis: { ok: true } });

    embedder.child.kill('SIGCONT');
    await waitForReady({ ...api, name: 'memory-api' }, '/ready', 30_000);
    expect((await call('POST', '/store', fact('The user restores old bicycles'))).status).toBe(201);

    await embedder.stop('SIGKILL');
    const killed = await refusedWrites(memoryId, 'killed');
    expect(killed.map((a) => a.status)).toEqual([503, 503, 503, 503]);
    expect(killed[0]?.body.error?.message).toMatch(
      /^embedder unavailable: cannot reach http:\/\/127\.0\.0\.1:\d+\/embed/,
    );
    for (const answer of killed.slice(1)) {
      expect(answer.body.error?.message, answer.request).toMatch(/^embedder unavailable: failing \(cannot reach /);
    }

    // Nothing of the refused writes was stored: the first memory (unchanged) and the one written in between.
    const listed = await call('GET', '/v1/memories?user_id=eo&limit=50');
    const contents = (listed.body.items as Array<{ content: string }>).map((m) => m.content).sort();
    expect(contents).toEqual(['The user plays the cello', 'The user restores old bicycles']);
  }, 120_000);
});
