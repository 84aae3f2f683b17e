import { OpenAiCompatibleLlm } from '@hindsight/llm';
import type { Turn } from '@hindsight/memory-model';
import { startChatCompletionsServer } from '@hindsight/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardExtraction } from '../../src/extraction/guard.ts';
import { LlmExtractor } from '../../src/extraction/llm.ts';
import type { Extractor } from '../../src/extraction/port.ts';
import { RuleExtractor } from '../../src/extraction/rules.ts';

/**
 * The Extractor contract, run against both adapters: the offline rules and the LLM extractor
 * against a local server speaking the OpenAI chat-completions protocol (answering as a careful
 * model would for these sessions). What an extractor yields goes through the worker's output checks
 * (guardExtraction) exactly as in a job.
 */
const at = (seq: number) => new Date(Date.UTC(2026, 2, 3, 9, seq)).toISOString();
const session = (lines: Array<['user' | 'assistant', string]>): Turn[] =>
  lines.map(([role, content], i) => ({ id: `t${i + 1}`, seq: i + 1, role, content, timestamp: at(i) }));

const FACTS = session([
  ['user', 'Hi there!'],
  ['assistant', 'Hello! How can I help?'],
  ['user', "I can't eat shellfish, I'm allergic."],
  ['assistant', 'Noted — no shellfish. You should also try the new sushi place downtown.'],
  ['user', 'My wife Priya is vegetarian.'],
]);
const SMALL_TALK = session([
  ['user', 'Hello!'],
  ['assistant', 'Hi! The weather is lovely today, and I love jazz.'],
  ['user', 'haha ok thanks'],
]);

/** What a careful model answers for each session (keyed by a line of its transcript). */
function modelAnswer(transcript: string): string {
  if (!transcript.includes('shellfish')) return JSON.stringify({ items: [] });
  return JSON.stringify({
    items: [
      {
        category: 'fact',
        key: 'user.allergy.shellfish',
        query: 'What is the user allergic to?',
        value: 'The user is allergic to shellfish.',
        answer: 'shellfish',
        confidence: 0.9,
        turn_ids: ['t3'],
      },
      {
        category: 'fact',
        key: 'person.priya.diet',
        query: "What is the user's wife's diet?",
        value: "The user's wife Priya is vegetarian.",
        answer: 'vegetarian',
        confidence: 0.9,
        turn_ids: ['t5'],
      },
    ],
  });
}

let model: Awaited<ReturnType<typeof startChatCompletionsServer>>;
beforeAll(async () => {
  model = await startChatCompletionsServer((request) => ({
    content: modelAnswer(request.messages.at(-1)?.content ?? ''),
  }));
});
afterAll(async () => {
  await model?.close();
});

const adapters: Array<[string, () => Extractor]> = [
  ['rules', () => new RuleExtractor()],
  [
    'llm',
    () =>
      new LlmExtractor(new OpenAiCompatibleLlm('notes', { baseUrl: model.url, timeoutMs: 5000 }), {
        maxCalls: 4,
        maxTokens: 20_000,
        charsPerCall: 6000,
      }),
  ],
];

const context = { sessionId: 's1', userId: 'u1' };
const idsOf = (turns: Turn[], role?: Turn['role']) =>
  new Set(turns.filter((t) => role === undefined || t.role === role).map((t) => t.id));

describe.each(adapters)('Extractor contract: %s', (_name, make) => {
  it("notes the user's allergy and the person around them, self-contained, citing the user's turns", async () => {
    const extraction = await make().extract(FACTS, context);
    const items = guardExtraction(extraction.items, idsOf(FACTS), idsOf(FACTS, 'user'));
    const allergy = items.find((i) => /shellfish/i.test(i.value));
    expect(allergy, JSON.stringify(items)).toBeDefined();
    expect(allergy?.turn_ids).toContain('t3');
    expect(allergy?.value).not.toMatch(/\b(?:I|I'm|my)\b/);
    expect(items.some((i) => /Priya/.test(i.value) && /vegetarian/i.test(i.value))).toBe(true);
    for (const item of items) expect(item.turn_ids.some((id) => idsOf(FACTS, 'user').has(id))).toBe(true);
  });

  it("keeps nothing of small talk or of the assistant's own words", async () => {
    const extraction = await make().extract(SMALL_TALK, context);
    expect(guardExtraction(extraction.items, idsOf(SMALL_TALK), idsOf(SMALL_TALK, 'user'))).toEqual([]);
    const facts = await make().extract(FACTS, context);
    const kept = guardExtraction(facts.items, idsOf(FACTS), idsOf(FACTS, 'user'));
    expect(kept.some((i) => /sushi/i.test(i.value))).toBe(false);
  });

  it('says what it spent: model calls and tokens (none offline)', async () => {
    const extraction = await make().extract(FACTS, context);
    expect(extraction.llmCalls).toBeGreaterThanOrEqual(0);
    expect(extraction.tokens).toBeGreaterThanOrEqual(0);
    expect(extraction.llmCalls === 0).toBe(extraction.tokens === 0);
  });
});
