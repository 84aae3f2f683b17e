import { createServer, type Server } from 'node:http';
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
      const content = answers.shift() ?? '{"contradicts": false}';
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
  it('asks the model and follows its verdict', async () => {
    answers = ['{"contradicts": true}', '{"contradicts": false}'];
    const judge = new LlmContradictionJudge(
      { baseUrl, model: 'judge-model', timeoutMs: 5000 },
      new RuleContradictionJudge(),
      log,
    );
    expect(await judge.contradicts('The user lives in Oslo', 'The user moved to Bergen')).toBe(true);
    expect(await judge.contradicts('The user likes tea', 'The user likes green tea')).toBe(false);
    expect(seen.at(-2)).toMatchObject({ model: 'judge-model' });
    expect(JSON.parse(seen.at(-2)?.user ?? '{}')).toEqual({
      older: 'The user lives in Oslo',
      newer: 'The user moved to Bergen',
    });
  });

  it('falls back to the rules when the model answers nonsense', async () => {
    answers = ['I think so!', 'not json either'];
    const judge = new LlmContradictionJudge(
      { baseUrl, model: 'judge-model', timeoutMs: 5000 },
      new RuleContradictionJudge(),
      log,
    );
    expect(await judge.contradicts('The user loves coffee.', 'The user has quit coffee.')).toBe(true);
    expect(await judge.contradicts('The user loves coffee.', 'The user loves jazz.')).toBe(false);
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
