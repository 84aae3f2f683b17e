import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_REDIS_CACHE_ENTRIES } from '@hindsight/embedding';
import { type ChatCompletionsScript, startChatCompletionsServer } from '@hindsight/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securityRedisUrl } from '../security/support/state.ts';
import { type ServiceProcess, spawnService } from '../support/process.ts';
import { keysHolding, occurrences, redisValues, sqliteFiles } from './traces.ts';

/**
 * Issue 10.7 as an outsider saw it: a user is erased while a consolidation of their session is
 * running in a real worker process (its model call held by a local OpenAI-compatible server —
 * the stand-in for a remote LLM), with memory-api, the embedder (Redis-cached vectors) and the
 * worker as real processes on a real SQLite file and Redis. Afterwards neither the SQLite file
 * and its WAL nor any Redis key or stream may hold a byte of the user's text, no job of the
 * user may survive, the running job may not write the user back, and a tombstone says what
 * went where.
 */
const tag = randomBytes(4).toString('hex');
const FRUIT = `kumquat${tag}`;
const OLD_FRUIT = `quince${tag}`;
const PLACE = `zanzibar${tag}`;
const PHRASES = [FRUIT, OLD_FRUIT, PLACE];
const ADMIN = `admin-${tag}`;
const KEY = `key-${tag}`;
const USER = 'erin';

let dataDir: string;
let redisPrefix: string;
let redis: Redis;
let llm: Awaited<ReturnType<typeof startChatCompletionsServer>>;
let embedder: ServiceProcess;
let api: ServiceProcess;
let worker: ServiceProcess;
let modelCalled: Promise<void>;
let releaseModel: () => void;

const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: the assertions read the fields they check.
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any };
};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hindsight-erase-'));
  redisPrefix = `test-erase-${randomUUID()}`;
  redis = new Redis(securityRedisUrl(), { maxRetriesPerRequest: 2 });
  let called!: () => void;
  modelCalled = new Promise((resolve) => {
    called = resolve;
  });
  const released = new Promise<void>((resolve) => {
    releaseModel = resolve;
  });
  // The model extracts the place the user named, after the test lets it answer.
  const script: ChatCompletionsScript = async () => {
    called();
    await released;
    return {
      content: JSON.stringify({
        items: [
          {
            category: 'fact',
            key: 'user.trip.destination',
            query: 'Where is the user travelling?',
            value: `The user is travelling to ${PLACE} in May.`,
            answer: PLACE,
            confidence: 0.9,
            turn_ids: ['t1'],
          },
        ],
      }),
    };
  };
  llm = await startChatCompletionsServer(script);
  const common = { REDIS_URL: securityRedisUrl(), REDIS_PREFIX: redisPrefix, QUEUE_NAME: `erase-${tag}` };
  embedder = await spawnService('embedder', { ...common, EMBED_CACHE_REDIS_PREFIX: `${redisPrefix}:emb:` });
  api = await spawnService('memory-api', {
    ...common,
    DATA_DIR: dataDir,
    API_KEYS: `acme:${KEY}`,
    ADMIN_API_KEY: ADMIN,
    EMBEDDER_URL: embedder.url,
    SESSION_IDLE_SECONDS: '0',
    ERASE_JOB_WAIT_MS: '30000',
  });
  worker = await spawnService('consolidation-worker', {
    ...common,
    MEMORY_API_URL: api.url,
    MEMORY_API_KEY: ADMIN,
    EXTRACTOR: 'llm',
    LLM_BASE_URL: llm.url,
    LLM_MODEL: 'local-test',
    SUMMARY_DELAY_MS: '100',
    SCHEDULES_ENABLED: 'false',
  });
}, 120_000);

afterAll(async () => {
  releaseModel?.();
  await worker?.stop();
  await api?.stop();
  await embedder?.stop();
  await llm?.close();
  if (redis) {
    const keys = await redis.keys(`${redisPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
  await rm(dataDir, { recursive: true, force: true });
});

describe('erasing a user while a consolidation of theirs is running', () => {
  it('leaves no byte of their text in SQLite, its WAL or Redis, and no job of theirs behind', async () => {
    // The user's long-term memories (one edited, so its old text sits in history), a profile, and a session.
    const fruit = await call('POST', '/store', {
      content: `The user's favourite fruit is ${OLD_FRUIT}`,
      memory_type: 'preference',
      user_id: USER,
    });
    expect(fruit.status).toBe(201);
    expect(
      (await call('PATCH', `/v1/memories/${fruit.body.id}`, { content: `The user's favourite fruit is ${FRUIT}` }))
        .status,
    ).toBe(200);
    for (const content of [`The user grows ${FRUIT} on the balcony`, `The user bought ${FRUIT} jam at the market`]) {
      expect((await call('POST', '/store', { content, memory_type: 'episodic', user_id: USER })).status).toBe(201);
    }
    expect((await call('PUT', `/v1/users/${USER}/summary`, { content: `Loves ${FRUIT}.` })).status).toBe(200);
    const turns = [`I am travelling to ${PLACE} in May`, `${PLACE} is where my grandmother was born`];
    expect(
      (
        await call('POST', '/v1/sessions/erin-s1/turns', {
          turns: turns.map((content) => ({ user_id: USER, role: 'user', content })),
        })
      ).status,
    ).toBe(201);
    const other = await call('POST', '/store', { content: 'The user likes plain tea', user_id: 'frank' });
    expect(other.status).toBe(201);

    const databasePath = join(dataDir, 'memory.db');
    const stored = Object.values(sqliteFiles(databasePath)).map((bytes) => occurrences(bytes, PHRASES));
    expect(stored.some((counts) => counts[FRUIT]! > 0)).toBe(true);

    // The consolidation starts and waits on its model call.
    const ended = await call('POST', '/v1/sessions/erin-s1/end', { user_id: USER });
    expect(ended.status).toBe(202);
    await modelCalled;

    // The erase begins while the job runs; once its tombstone is there, the model answers.
    const erasing = call('DELETE', `/v1/users/${USER}`);
    for (let tombstone = false; !tombstone; ) {
      const listed = await call('GET', `/v1/erasures?user_id=${USER}`);
      tombstone = listed.body.items.some((e: { status: string }) => e.status === 'erasing');
      if (!tombstone) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    releaseModel();
    const receipt = await erasing;

    expect(receipt.status).toBe(200);
    expect(receipt.body).toMatchObject({
      user_id: USER,
      status: 'completed',
      memories: 4,
      sessions: 1,
      turns: 2,
      jobs_running: 0,
      incomplete: [],
      store: { backend: 'sqlite', purged: true },
    });
    expect(receipt.body.memories_by_layer).toEqual({ semantic: 2, episodic: 2 });
    expect(receipt.body.jobs).toBeGreaterThanOrEqual(1);
    expect(receipt.body.job_events).toBeGreaterThanOrEqual(1);
    expect(receipt.body.embedding_cache_entries).toBeGreaterThanOrEqual(1);
    // The running job was refused when it tried to write the user back.
    await waitFor(() => worker.output().includes('user_erased'), 'the worker to report the refused write');

    // SQLite: the file, its WAL and its index of shared memory hold none of it.
    for (const [file, bytes] of Object.entries(sqliteFiles(databasePath))) {
      expect(occurrences(bytes, PHRASES), file).toEqual({ [FRUIT]: 0, [OLD_FRUIT]: 0, [PLACE]: 0 });
    }
    // Redis: no key of this deployment (working memory, queue, job events, replies, cached vectors) holds any of it.
    const values = await redisValues(redis, [redisPrefix]);
    expect(keysHolding(values, PHRASES)).toEqual({});
    expect([...values.keys()].filter((key) => key.includes(encodeURIComponent(USER)) && key.includes(':wm:'))).toEqual(
      [],
    );
    // No job of the user is left in any state, the profile refresh a finished consolidation enqueues included.
    const jobs = await jobsOf(USER);
    expect(jobs).toEqual([]);

    // The cached vectors of the erased texts are gone from their slots.
    const { model } = (await (await fetch(`${embedder.url}/models`)).json()) as { model: string };
    for (const text of turns) expect(await slotHolds(model, text), text).toBe(false);

    // The tombstone, with counts and no content.
    const tombstones = await call('GET', `/v1/erasures?user_id=${USER}`);
    expect(tombstones.body.items[0]).toEqual(receipt.body);
    expect(JSON.stringify(tombstones.body)).not.toMatch(new RegExp(PHRASES.join('|')));
    // The other user kept everything.
    expect((await call('GET', `/v1/memories/${other.body.id}`)).status).toBe(200);

    // The user may come back: new writes of their own are not fenced.
    expect((await call('POST', '/store', { content: 'The user now likes figs', user_id: USER })).status).toBe(201);
  }, 120_000);
});

async function jobsOf(userId: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}:bull:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      if ((await redis.type(key)) !== 'hash') continue;
      const data = await redis.hget(key, 'data');
      if (data?.includes(`"user_id":"${userId}"`)) found.push(key);
    }
  } while (cursor !== '0');
  return found;
}

/** Whether the embedder's Redis cache still holds `text`'s vector (its slot begins with the text's digest). */
async function slotHolds(model: string, text: string): Promise<boolean> {
  const digest = createHash('sha256').update(model).update('\n').update(text).digest();
  const slot = `${redisPrefix}:emb:${digest.readUInt32BE(0) % DEFAULT_REDIS_CACHE_ENTRIES}`;
  const stored = await redis.getrangeBuffer(slot, 0, 31);
  return stored.equals(digest);
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}:\n${worker.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
