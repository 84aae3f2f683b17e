import { OpenAiCompatibleLlm } from '@hindsight/llm';
import { createLogger } from '@hindsight/logger';
import { freePort, startChatCompletionsServer } from '@hindsight/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmContradictionJudge } from '../../src/adapters/llm/contradiction-judge.ts';
import { type ContradictionJudge, RuleContradictionJudge } from '../../src/memory/contradiction.ts';

/**
 * The ContradictionJudge contract, run against every adapter: the rule judge, the LLM judge with a
 * model that answers (a local server speaking the OpenAI chat-completions protocol, answering as a
 * careful model would), and the LLM judge whose model cannot be reached (it must decide by rules).
 */
const CONTRADICTIONS: Array<[string, string]> = [
  ['The user likes coffee', 'The user has quit coffee'],
  ['Tom lives in Berlin', 'Tom moved from Berlin to Madrid'],
  ['Maria is vegetarian', 'Maria is no longer vegetarian'],
  ['我吃素', '我不再吃素了'],
];
const REFINEMENTS: Array<[string, string]> = [['The user likes tea', 'The user likes green tea in the morning']];
const UNRELATED: Array<[string, string]> = [
  ['Maria is vegetarian', 'Maria is afraid of heights'],
  ['The user is lactose intolerant', 'The user is colour-blind'],
  ['The user loves coffee.', 'The user loves jazz.'],
];
const CONTENT_FREE = ['ok', '?', '👍', '"'];

const log = createLogger({ service: 'judge-contract', level: 'silent' });
const verdicts = new Map<string, string>([
  ...CONTRADICTIONS.map(([a, b]): [string, string] => [`${a}|${b}`, 'contradicts']),
  ...REFINEMENTS.map(([a, b]): [string, string] => [`${a}|${b}`, 'refines']),
  ...UNRELATED.map(([a, b]): [string, string] => [`${a}|${b}`, 'unrelated']),
]);
let model: Awaited<ReturnType<typeof startChatCompletionsServer>>;
let unreachable: string;

beforeAll(async () => {
  model = await startChatCompletionsServer((request) => {
    const asked = JSON.parse(request.messages.at(-1)?.content ?? '{}') as {
      older?: { statement: string };
      newer?: { statement: string };
    };
    const relation = verdicts.get(`${asked.older?.statement}|${asked.newer?.statement}`) ?? 'unrelated';
    return { content: JSON.stringify({ relation }) };
  });
  unreachable = `http://127.0.0.1:${await freePort()}/v1`;
});
afterAll(async () => {
  await model?.close();
});

const adapters: Array<[string, () => ContradictionJudge]> = [
  ['rules', () => new RuleContradictionJudge()],
  [
    'llm (a model answering)',
    () =>
      new LlmContradictionJudge(
        new OpenAiCompatibleLlm('judge', { baseUrl: model.url, timeoutMs: 5000 }),
        new RuleContradictionJudge(),
        log,
      ),
  ],
  [
    'llm (model unreachable: rules decide)',
    () =>
      new LlmContradictionJudge(
        new OpenAiCompatibleLlm('judge', { baseUrl: unreachable, timeoutMs: 2000 }),
        new RuleContradictionJudge(),
        log,
      ),
  ],
];

describe.each(adapters)('ContradictionJudge contract: %s', (_name, make) => {
  it('finds plain contradictions in English and Chinese, each with a reason', async () => {
    const judge = make();
    for (const [older, newer] of CONTRADICTIONS) {
      const relation = await judge.relate({ content: older }, { content: newer });
      expect(relation.kind, `${older} → ${newer}`).toBe('contradicts');
      expect(relation.reason).toMatch(/^(rule|judge):/);
    }
  });

  it('never relates facts of the same shape about different attributes', async () => {
    const judge = make();
    for (const [older, newer] of UNRELATED) {
      expect((await judge.relate({ content: older }, { content: newer })).kind, `${older} → ${newer}`).toBe(
        'unrelated',
      );
    }
  });

  it('never supersedes a refinement', async () => {
    const judge = make();
    for (const [older, newer] of REFINEMENTS) {
      expect((await judge.relate({ content: older }, { content: newer })).kind).not.toBe('contradicts');
    }
  });

  it('relates text without content words to nothing, either way round', async () => {
    const judge = make();
    for (const text of CONTENT_FREE) {
      expect((await judge.relate({ content: 'The user likes green tea' }, { content: text })).kind).toBe('unrelated');
      expect((await judge.relate({ content: text }, { content: 'The user likes green tea' })).kind).toBe('unrelated');
    }
  });

  it('takes a reversal that names the answer it replaces as a contradiction of that answer only', async () => {
    const judge = make();
    const older = { content: 'The user will fly to Rome.', answer: 'Rome' };
    expect(
      (await judge.relate(older, { content: 'The user decided to go to Paris.', answer: 'Paris', replaces: 'Rome' }))
        .kind,
    ).toBe('contradicts');
    expect(
      (
        await judge.relate(
          { content: 'The user booked a hotel in Lisbon.', answer: 'Lisbon' },
          { content: 'The user decided to go to Paris.', answer: 'Paris', replaces: 'Rome' },
        )
      ).kind,
    ).not.toBe('contradicts');
  });
});
