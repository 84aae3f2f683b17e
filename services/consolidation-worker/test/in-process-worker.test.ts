import { createLogger } from '@hindsight/logger';
import { MemoryApiClient } from '@hindsight/memory-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorker, type ConsolidationWorker } from '../src/app.ts';
import { loadWorkerConfig } from '../src/config.ts';
import { openWorkerDependencies, type WorkerDependencies } from '../src/dependencies.ts';
import { RuleExtractor } from '../src/extraction/rules.ts';
import { KEYS, type Stack, startStack } from './support/stack.ts';

let stack: Stack;
let consolidation: ConsolidationWorker;
let extractorCalls = 0;

beforeAll(async () => {
  stack = await startStack({ noWorker: true });
  const config = loadWorkerConfig({
    MEMORY_API_URL: stack.url,
    MEMORY_API_KEY: KEYS.ADMIN_API_KEY,
    REDIS_PREFIX: stack.redisPrefix,
    QUEUE_NAME: stack.queueName,
    SCHEDULES_ENABLED: 'false',
    SUMMARY_DELAY_MS: '0',
    LOG_LEVEL: 'silent',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  });
  const log = createLogger({ service: 'worker-test', level: 'silent' });
  // The real dependencies, with the extractor handed in by the test: the real rules, counted.
  const real = openWorkerDependencies(config, log);
  const rules = new RuleExtractor();
  const deps: WorkerDependencies = {
    ...real,
    extractor: {
      name: rules.name,
      extract: (turns) => {
        extractorCalls++;
        return rules.extract(turns);
      },
    },
  };
  consolidation = buildWorker(config, deps, log);
  void consolidation.worker.run();
});

afterAll(async () => {
  await consolidation?.close();
  await stack?.close();
});

describe('the worker built in process on injected dependencies', () => {
  it('consolidates an ended session through the real queue, memory-api and Redis with the extractor it was given', async () => {
    const userId = 'in-process-user';
    await stack.client.appendTurns('in-process-session', [
      { user_id: userId, role: 'user', content: "I'm allergic to shellfish, so no prawns for me." },
      { user_id: userId, role: 'assistant', content: 'Noted, no shellfish.' },
    ]);
    const ended = await stack.client.endSession('in-process-session', userId);
    const job = await stack.waitForJob(ended.job_id, ['completed', 'failed']);

    expect(job.state).toBe('completed');
    expect(extractorCalls).toBeGreaterThanOrEqual(1);
    const found = await new MemoryApiClient({ baseUrl: stack.url, apiKey: 'key-acme' }).search({
      query: 'what is the user allergic to',
      user_id: userId,
      top_k: 5,
    });
    expect(found.results.some((r) => /shellfish/i.test(r.content))).toBe(true);
  });
});
