import type { ConsolidationResult } from '@hindsight/jobs';
import type { MemoryRecord, TurnInput } from '@hindsight/memory-model';
import { type RecordedRequest, startChatCompletionsServer } from '@hindsight/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from './support/stack.ts';

let stack: Stack;
let llm: Awaited<ReturnType<typeof startChatCompletionsServer>>;

/** What the stand-in model answers: good notes, and notes the output checks must leave out. */
const MODEL_ITEMS = [
  {
    category: 'fact',
    key: 'user.allergy.shellfish',
    query: 'What is the user allergic to?',
    value: 'The user is allergic to shellfish and cannot eat it.',
    answer: 'shellfish',
    confidence: 0.95,
    turn_ids: ['t1'],
  },
  {
    category: 'decision',
    key: 'decision.offsite_city',
    query: 'Where is the team offsite?',
    value: 'The user decided the team offsite will be in Lisbon.',
    answer: 'Lisbon',
    replaces: 'Berlin',
    confidence: 0.9,
    turn_ids: ['t3'],
  },
  // Only the assistant said this: not a fact about the user.
  {
    category: 'preference',
    key: 'preference.city',
    query: 'Which city does the user prefer?',
    value: 'The user prefers Berlin for its venues in Kreuzberg.',
    answer: 'Berlin',
    confidence: 0.6,
    turn_ids: ['t2'],
  },
  // First person: not a self-contained note.
  {
    category: 'fact',
    key: 'user.team',
    query: 'How big is the team?',
    value: 'I have a team of fourteen people.',
    answer: '14',
    confidence: 0.8,
    turn_ids: ['t1'],
  },
];

beforeAll(async () => {
  llm = await startChatCompletionsServer(() => ({ content: JSON.stringify({ items: MODEL_ITEMS }) }));
  stack = await startStack({ workerEnv: { EXTRACTOR: 'llm', LLM_BASE_URL: llm.url, LLM_MODEL: 'local-test' } });
});
afterAll(async () => {
  await stack?.close();
  await llm?.close();
});

describe('the llm extractor (a local OpenAI-compatible chat-completions server) through the real worker', () => {
  it('gets the same output checks, transcript and slot metadata as the offline extractor', async () => {
    const u = 'llm-notes-user';
    const at = (minute: number) => `2026-03-16T13:0${minute}:00.000Z`;
    const turns: TurnInput[] = [
      { user_id: u, role: 'user', content: "I can't eat shellfish, I'm allergic. We're 14 people.", timestamp: at(0) },
      { user_id: u, role: 'assistant', content: 'Berlin has great venues in Kreuzberg.', timestamp: at(1) },
      { user_id: u, role: 'user', content: 'Actually, make that Lisbon instead.', timestamp: at(2) },
    ];
    await stack.client.appendTurns('llm-notes-session', turns);
    const ended = await stack.client.endSession('llm-notes-session', u);
    const job = await stack.waitForJob(ended.job_id, ['completed', 'failed']);
    expect(job.state, JSON.stringify(job)).toBe('completed');
    const result = job.result as ConsolidationResult;
    expect(result).toMatchObject({ extractor: 'llm:local-test', llm_calls: 1, extracted: 2, created: 2 });
    expect(result.transcript).toEqual({ written: 3, duplicates: 0, rejected: 0 });

    // The model saw the transcript with conversation times, so it can resolve relative dates.
    const [request] = llm.requests as [RecordedRequest];
    expect(request.model).toBe('local-test');
    expect(request.messages[1]?.content).toBe(
      "t1 [2026-03-16 13:00] user: I can't eat shellfish, I'm allergic. We're 14 people.\n" +
        't2 [2026-03-16 13:01] assistant: Berlin has great venues in Kreuzberg.\n' +
        't3 [2026-03-16 13:02] user: Actually, make that Lisbon instead.\n',
    );

    const memories = (await stack.client.list({ user_id: u, limit: 100 })).items.filter(
      (m) => m.category !== 'profile',
    );
    const semantic = memories.filter((m) => m.layer === 'semantic');
    expect(semantic.map((m) => m.content).sort()).toEqual([
      'The user decided the team offsite will be in Lisbon.',
      'The user is allergic to shellfish and cannot eat it.',
    ]);
    const decision = semantic.find((m) => m.category === 'decision') as MemoryRecord;
    expect(decision.metadata).toEqual({ key: 'decision.offsite_city', answer: 'Lisbon', replaces: 'Berlin' });
    expect(decision.query).toBe('Where is the team offsite?');
    expect(decision.source).toEqual({
      kind: 'consolidation',
      session_id: 'llm-notes-session',
      turn_ids: ['t3'],
      extractor: 'llm:local-test',
    });
    // A fact one model read from one source stays below the confirmed-fact confidence.
    expect(decision.confidence).toBeLessThanOrEqual(0.7);
    expect(memories.filter((m) => m.category === 'turn')).toHaveLength(3);
  });
});
