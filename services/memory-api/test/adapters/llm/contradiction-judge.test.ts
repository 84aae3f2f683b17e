import { createServer, type Server } from 'node:http';
import { OpenAiCompatibleLlm } from '@hindsight/llm';
import { createLogger } from '@hindsight/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContradictionJudge, LlmContradictionJudge } from '../../../src/adapters/llm/contradiction-judge.ts';
import { RuleContradictionJudge } from '../../../src/memory/contradiction.ts';

const log = createLogger({ service: 'judge-test', level: 'silent' });
let server: Server;
let baseUrl: string;
let answers: string[];
const seen: Array<{ model: string; user: string }> = [];

/** A local stand-in for a remote LLM: OpenAI's chat-completions protocol on a loopback port. */
beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (c) => (body += c));
    request.on('end', () => {
      const parsed = JSON.parse(body) as { model: string; messages: Array<{ role: string; content: string }> };
      seen.push({ model: parsed.model, user: parsed.messages.find((m) => m.role === 'user')?.content ?? '' });
      const content = answers.shift() ?? '{"relation": "unrelated"}';
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: parsed.model,
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('LLM contradiction judge against a local OpenAI-compatible server', () => {
  it('asks the model and follows its verdict, naming it as the reason', async () => {
    answers = ['{"relation": "contradicts"}', '{"relation": "refines"}'];
    const judge = new LlmContradictionJudge(
      new OpenAiCompatibleLlm('judge-model', { baseUrl, timeoutMs: 5000 }),
      new RuleContradictionJudge(),
      log,
    );
    expect(
      await judge.relate(
        { content: 'The user lives in Oslo', query: 'Where does the user live?', key: 'identity.location' },
        { content: 'The user moved to Bergen' },
      ),
    ).toEqual({ kind: 'contradicts', reason: 'judge:llm:judge-model' });
    expect(await judge.relate({ content: 'The user likes tea' }, { content: 'The user likes green tea' })).toEqual({
      kind: 'refines',
      reason: 'judge:llm:judge-model',
    });
    expect(seen.at(-2)).toMatchObject({ model: 'judge-model' });
    expect(JSON.parse(seen.at(-2)?.user ?? '{}')).toEqual({
      older: { statement: 'The user lives in Oslo', question: 'Where does the user live?', key: 'identity.location' },
      newer: { statement: 'The user moved to Bergen' },
    });
  });

  it('never asks about text without content words, nor about a reversal that names its target', async () => {
    const judge = new LlmContradictionJudge(
      new OpenAiCompatibleLlm('judge-model', { baseUrl, timeoutMs: 5000 }),
      new RuleContradictionJudge(),
      log,
    );
    const asked = seen.length;
    answers = ['{"relation": "contradicts"}', '{"relation": "unrelated"}'];
    expect((await judge.relate({ content: 'The user likes green tea' }, { content: 'ok' })).kind).toBe('unrelated');
    expect(
      await judge.relate(
        { content: 'The user will fly to Rome.', answer: 'Rome' },
        { content: 'The user decided to go to Paris.', answer: 'Paris', replaces: 'Rome' },
      ),
    ).toEqual({ kind: 'contradicts', reason: 'rule:replaces-answer' });
    expect(seen.length).toBe(asked);
    answers = [];
  });

  it('falls back to the rules when the model answers nonsense', async () => {
    answers = ['I think so!', 'not json either', '{"relation": "maybe"}'];
    const judge = new LlmContradictionJudge(
      new OpenAiCompatibleLlm('judge-model', { baseUrl, timeoutMs: 5000 }),
      new RuleContradictionJudge(),
      log,
    );
    expect(await judge.relate({ content: 'The user loves coffee.' }, { content: 'The user has quit coffee.' })).toEqual(
      {
        kind: 'contradicts',
        reason: 'rule:changed-from',
      },
    );
    expect((await judge.relate({ content: 'The user loves coffee.' }, { content: 'The user loves jazz.' })).kind).toBe(
      'unrelated',
    );
    expect(
      (await judge.relate({ content: 'Maria is vegetarian' }, { content: 'Maria is afraid of heights' })).kind,
    ).toBe('unrelated');
  });

  it('is used only when LLM_BASE_URL and LLM_MODEL are both set', () => {
    const rules = new RuleContradictionJudge();
    expect(createContradictionJudge({ LLM_TIMEOUT_MS: 1000 }, rules, log)).toBe(rules);
    expect(createContradictionJudge({ LLM_BASE_URL: baseUrl, LLM_TIMEOUT_MS: 1000 }, rules, log)).toBe(rules);
    expect(
      createContradictionJudge({ LLM_BASE_URL: baseUrl, LLM_MODEL: 'm', LLM_TIMEOUT_MS: 1000 }, rules, log).name,
    ).toBe('llm:m');
  });
});
