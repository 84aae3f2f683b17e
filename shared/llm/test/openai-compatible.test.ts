import { DependencyUnavailableError } from '@hindsight/errors';
import { freePort, startChatCompletionsServer } from '@hindsight/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LlmAnswerError, OpenAiCompatibleLlm, parseJsonAnswer } from '../src/index.ts';

type Server = Awaited<ReturnType<typeof startChatCompletionsServer>>;
let server: Server;
let next: { content?: string; toolCalls?: Array<{ name: string; arguments: unknown }> } = {};

beforeAll(async () => {
  server = await startChatCompletionsServer(() => next);
});
afterAll(async () => {
  await server?.close();
});

describe('OpenAiCompatibleLlm against a local server speaking the OpenAI chat-completions protocol', () => {
  it('sends a JSON-mode request with its limits and answers the content and the tokens spent', async () => {
    next = { content: '{"relation": "refines"}' };
    const llm = new OpenAiCompatibleLlm('judge-model', { baseUrl: server.url, timeoutMs: 5000 });
    const answer = await llm.complete({
      json: true,
      maxTokens: 20,
      temperature: 0,
      messages: [
        { role: 'system', content: 'Compare.' },
        { role: 'user', content: 'older / newer' },
      ],
    });
    expect(llm.name).toBe('llm:judge-model');
    expect(answer).toEqual({ content: '{"relation": "refines"}', toolCalls: [], totalTokens: 15 });
    expect(server.requests.at(-1)).toMatchObject({
      model: 'judge-model',
      response_format: { type: 'json_object' },
      max_tokens: 20,
      temperature: 0,
      messages: [
        { role: 'system', content: 'Compare.' },
        { role: 'user', content: 'older / newer' },
      ],
    });
  });

  it('offers functions, returns the calls the model makes, and sends the calls and their results back', async () => {
    next = { toolCalls: [{ name: 'memory_search', arguments: { query: 'allergies' } }] };
    const llm = new OpenAiCompatibleLlm('chat-model', { baseUrl: server.url, timeoutMs: 5000 });
    const tools = [
      { name: 'memory_search', description: 'Search memory', parameters: { type: 'object', properties: {} } },
    ];
    const first = await llm.complete({ messages: [{ role: 'user', content: 'Am I allergic to anything?' }], tools });
    expect(first.content).toBeNull();
    expect(first.toolCalls).toEqual([
      { id: expect.any(String), name: 'memory_search', arguments: '{"query":"allergies"}' },
    ]);
    const sent = server.requests.at(-1) as unknown as Record<string, unknown>;
    expect(sent.tool_choice).toBe('auto');
    expect(sent.response_format).toBeUndefined();

    next = { content: 'You are allergic to peanuts.' };
    const call = first.toolCalls[0] as (typeof first.toolCalls)[number];
    const second = await llm.complete({
      tools,
      messages: [
        { role: 'user', content: 'Am I allergic to anything?' },
        { role: 'assistant', content: null, toolCalls: [call] },
        { role: 'tool', toolCallId: call.id, content: '[{"content":"The user is allergic to peanuts"}]' },
      ],
    });
    expect(second.content).toBe('You are allergic to peanuts.');
    expect(server.requests.at(-1)?.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: call.id, type: 'function', function: { name: 'memory_search', arguments: call.arguments } }],
      },
      { role: 'tool', tool_call_id: call.id, content: '[{"content":"The user is allergic to peanuts"}]' },
    ]);
  });

  it('fails with DependencyUnavailableError naming the llm when no server answers', async () => {
    const llm = new OpenAiCompatibleLlm('gone', {
      baseUrl: `http://127.0.0.1:${await freePort()}/v1`,
      timeoutMs: 2000,
    });
    const failure = llm.complete({ messages: [{ role: 'user', content: 'hello' }] });
    await expect(failure).rejects.toBeInstanceOf(DependencyUnavailableError);
    await expect(failure).rejects.toThrow(/llm/);
  });
});

describe('parseJsonAnswer', () => {
  const Verdict = z.object({ relation: z.enum(['contradicts', 'refines', 'unrelated']) });

  it('reads an answer of the expected shape', () => {
    expect(parseJsonAnswer('{"relation":"unrelated"}', Verdict, '{"relation": …}')).toEqual({ relation: 'unrelated' });
  });

  it('refuses no JSON, JSON of another shape and no answer at all, quoting at most the start', () => {
    expect(() => parseJsonAnswer('I think so!', Verdict, '{"relation": …}')).toThrow(LlmAnswerError);
    expect(() => parseJsonAnswer(`${'x'.repeat(500)}`, Verdict, '{"relation": …}')).toThrow(
      /^the LLM answered invalid JSON: "x{120}"$/,
    );
    expect(() => parseJsonAnswer('{"relation":"maybe"}', Verdict, '{"relation": …}')).toThrow(
      'the LLM answer is not {"relation": …}',
    );
    expect(() => parseJsonAnswer(null, Verdict, '{"relation": …}')).toThrow(LlmAnswerError);
  });
});
