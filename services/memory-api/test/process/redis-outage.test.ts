import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type RedisServer, startRedisServer, waitForReady } from '@hindsight/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, spawnService } from '../support/process.ts';

/**
 * Redis outages from a client's side (issue 12.10): a memory-api on a throwaway redis-server of
 * this test's own, which is killed and restarted (never the shared Redis).
 */
let dataDir: string;
let redis: RedisServer | undefined;
let api: ServiceProcess | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hindsight-redis-outage-'));
});
afterEach(async () => {
  await api?.stop('SIGKILL');
  await redis?.kill();
  api = undefined;
  redis = undefined;
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

interface Reply {
  status: number;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const response = await fetch(`${api?.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: (await response.json()) as Reply['body'] };
}

const apiEnv = (redisUrl: string) => ({
  DATA_DIR: join(dataDir, randomUUID()),
  REDIS_URL: redisUrl,
  REDIS_PREFIX: `test-${randomUUID()}`,
});

/** Every request of the REST surface that needs Redis, each well-formed (it succeeds while Redis is up). */
function redisRequests(memoryId: string): Array<[string, string, unknown?, Record<string, string>?]> {
  return [
    ['POST', '/store', { content: 'The user plays the cello on Tuesdays', memory_type: 'fact', user_id: 'ro' }],
    ['POST', '/store', { content: 'scratch: compare two hotels', memory_type: 'working', session_id: 'ro-s1' }],
    [
      'POST',
      '/store',
      { content: 'The user repairs old radios', memory_type: 'fact', user_id: 'ro' },
      { 'idempotency-key': 'ro-key-1' },
    ],
    ['POST', '/v1/memories', { items: [{ content: 'The user owns a red kayak', memory_type: 'fact', user_id: 'ro' }] }],
    ['PATCH', `/v1/memories/${memoryId}`, { tags: ['music'] }],
    ['POST', '/retrieve', { query: 'what does the user play?', user_id: 'ro', session_id: 'ro-s1' }],
    ['POST', '/v1/sessions/ro-s1/turns', { turns: [{ user_id: 'ro', role: 'user', content: 'Book the later train' }] }],
    ['GET', '/v1/sessions/ro-s1/turns'],
    ['POST', '/v1/sessions/ro-s1/end', { user_id: 'ro' }],
    ['GET', '/v1/jobs/some-job'],
    ['DELETE', '/v1/users/ro-erased'],
  ];
}

describe('memory-api while Redis is down', () => {
  it('answers 503 dependency_unavailable naming redis on every route that needs it, keeps serving reads, and recovers by itself', async () => {
    redis = await startRedisServer();
    api = await spawnService('memory-api', apiEnv(redis.url));
    const stored = await call('POST', '/store', {
      content: 'The user plays the cello',
      memory_type: 'fact',
      user_id: 'ro',
    });
    expect(stored.status).toBe(201);
    const memoryId = stored.body.id as string;
    expect(
      (
        await call('POST', '/v1/sessions/ro-s1/turns', {
          turns: [{ user_id: 'ro', role: 'user', content: 'hi there, planning a trip' }],
        })
      ).status,
    ).toBe(201);

    await redis.kill('SIGKILL');

    const answers = [];
    for (const [method, path, body, headers] of redisRequests(memoryId)) {
      const reply = await call(method, path, body, headers);
      answers.push({
        request: `${method} ${path}`,
        status: reply.status,
        code: reply.body.error?.code,
        message: reply.body.error?.message,
      });
    }
    for (const answer of answers) {
      expect(answer, JSON.stringify(answer)).toMatchObject({ status: 503, code: 'dependency_unavailable' });
      expect(answer.message, answer.request).toMatch(/^redis unavailable: /);
    }

    // What needs no Redis keeps answering.
    expect((await call('GET', '/health')).status).toBe(200);
    const ready = await call('GET', '/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.checks).toMatchObject({ redis: { ok: false }, store: { ok: true }, embedder: { ok: true } });
    const found = await call('POST', '/retrieve', { query: 'what does the user play?', user_id: 'ro' });
    expect(found.status).toBe(200);
    expect((found.body.results as Array<{ id: string }>).map((r) => r.id)).toContain(memoryId);
    expect((await call('GET', `/v1/memories/${memoryId}`)).status).toBe(200);
    // The refused writes changed nothing.
    const listed = await call('GET', '/v1/memories?user_id=ro');
    expect((listed.body.items as Array<{ id: string; tags: string[] }>).map((m) => [m.id, m.tags])).toEqual([
      [memoryId, []],
    ]);

    await redis.start();
    await waitForReady({ ...api, name: 'memory-api' }, '/ready', 20_000);
    expect(
      (await call('POST', '/store', { content: 'The user repairs old radios', memory_type: 'fact', user_id: 'ro' }))
        .status,
    ).toBe(201);
    expect(
      (
        await call('POST', '/v1/sessions/ro-s2/turns', {
          turns: [{ user_id: 'ro', role: 'user', content: 'Book the later train' }],
        })
      ).status,
    ).toBe(201);
  }, 90_000);

  it('starts without Redis, reports not-ready naming redis, serves what needs no Redis, and becomes ready when Redis comes', async () => {
    const port = await freePort();
    api = await spawnService('memory-api', apiEnv(`redis://127.0.0.1:${port}`), { waitReady: false });
    await waitForReady({ ...api, name: 'memory-api' }, '/health', 30_000);

    const ready = await call('GET', '/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('not_ready');
    expect(ready.body.checks).toMatchObject({ redis: { ok: false }, store: { ok: true } });
    expect((ready.body.checks as Record<string, { error?: string }>).redis?.error).toMatch(/redis/);

    const searched = await call('POST', '/retrieve', { query: 'anything about trains?', user_id: 'late' });
    expect(searched.status).toBe(200);
    expect(searched.body.results).toEqual([]);
    const refused = await call('POST', '/store', {
      content: 'The user takes the night train',
      memory_type: 'fact',
      user_id: 'late',
    });
    expect(refused).toMatchObject({ status: 503, body: { error: { code: 'dependency_unavailable' } } });
    expect(refused.body.error?.message).toMatch(/^redis unavailable: /);

    redis = await startRedisServer({ port });
    await waitForReady({ ...api, name: 'memory-api' }, '/ready', 20_000);
    expect(
      (
        await call('POST', '/store', {
          content: 'The user takes the night train',
          memory_type: 'fact',
          user_id: 'late',
        })
      ).status,
    ).toBe(201);
    await call('POST', '/v1/sessions/late-s1/turns', {
      turns: [{ user_id: 'late', role: 'user', content: 'I prefer window seats' }],
    });
    const ended = await call('POST', '/v1/sessions/late-s1/end', { user_id: 'late' });
    expect(ended.status, JSON.stringify(ended.body)).toBe(202);
    const job = await call('GET', `/v1/jobs/${ended.body.job_id}`);
    expect(job.status).toBe(200);
  }, 90_000);
});
