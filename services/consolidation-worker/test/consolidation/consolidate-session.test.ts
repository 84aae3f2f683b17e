import { createLogger } from '@hindsight/logger';
import { MemoryApiClient } from '@hindsight/memory-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolidateSession, type ExtractionCheckpoint } from '../../src/consolidation/consolidate-session.ts';
import { RuleExtractor } from '../../src/extraction/rules.ts';
import { KEYS, type Stack, startStack } from '../support/stack.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ noWorker: true });
});
afterAll(async () => {
  await stack?.close();
});

describe('consolidateSession resuming from a checkpoint', () => {
  it('credits every memory to the extractor that made the checkpoint, not to the one running the retry', async () => {
    const userId = 'checkpoint-user';
    const sessionId = 'checkpoint-session';
    const appended = await stack.client.appendTurns(sessionId, [
      { user_id: userId, role: 'user', content: 'I have been drinking oolong tea every morning for years.' },
      { user_id: userId, role: 'assistant', content: 'Oolong is a lovely choice.' },
    ]);
    // An earlier attempt, on a worker with a model, extracted this before it died.
    const checkpoint: ExtractionCheckpoint = {
      through_seq: appended.last_seq,
      extractor: 'llm:local-model',
      items: [
        {
          category: 'preference',
          key: 'preference.tea',
          query: 'What does the user drink in the morning?',
          value: 'The user drinks oolong tea every morning.',
          confidence: 0.7,
          turn_ids: ['t1'],
        },
      ],
      llm_calls: 1,
      tokens: 120,
    };

    const result = await consolidateSession(
      {
        api: new MemoryApiClient({ baseUrl: stack.url, apiKey: KEYS.ADMIN_API_KEY, tenant: 'acme' }),
        extractor: new RuleExtractor(),
        log: createLogger({ service: 'worker-test', level: 'silent' }),
        checkpoint,
        saveCheckpoint: async () => undefined,
      },
      'checkpoint-job',
      { tenant: 'acme', user_id: userId, session_id: sessionId, through_seq: appended.last_seq, trigger: 'end' },
    );

    expect(result.extractor).toBe('llm:local-model');
    const [item] = result.memory_ids;
    expect((await stack.client.get(item as string)).source.extractor).toBe('llm:local-model');
    expect((await stack.client.get(result.summary_id as string)).source.extractor).toBe('llm:local-model');
  });
});
