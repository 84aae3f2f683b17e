import { type RecordedRequest, startChatCompletionsServer } from '@hindsight/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent } from './support/agent.ts';
import {
  createDeployment,
  type Deployment,
  getJson,
  postJson,
  type ServiceProcess,
  spawnService,
} from './support/processes.ts';

let deployment: Deployment;
let memoryApi: ServiceProcess;
let model: Awaited<ReturnType<typeof startChatCompletionsServer>>;
let agent: Awaited<ReturnType<typeof startAgent>>;

const lastMessage = (request: RecordedRequest) => request.messages[request.messages.length - 1]!;

beforeAll(async () => {
  deployment = await createDeployment();
  memoryApi = await spawnService('memory-api', deployment.memoryApiEnv);
  model = await startChatCompletionsServer((request) => {
    const last = lastMessage(request);
    if (last.role === 'tool') {
      // Answers from what the tool returned, so the reply proves the result reached the model.
      const result = JSON.parse(last.content ?? '{}') as {
        results?: Array<{ content: string }>;
        id?: string;
        status?: string;
      };
      if (result.results) return { content: `From memory: ${result.results.map((r) => r.content).join('; ')}` };
      return { content: `Saved (${result.status}).` };
    }
    const text = last.content ?? '';
    if (!request.tools && /^Rewrite the user's last message/.test(request.messages[0]?.content ?? '')) {
      return { content: 'Kyoto ryokan booking in April' };
    }
    if (/that thing/i.test(text)) return { content: 'Noted.' };
    if (/daughter/i.test(text)) {
      // Answers from the memory lines in its prompt, as a model told to would.
      const line = (request.messages[0]?.content ?? '')
        .split('\n')
        .find((l) => /daughter/i.test(l) && l.startsWith('- ['));
      return { content: line ? `From your memories: ${line}` : "I don't know." };
    }
    if (/snack/i.test(text))
      return {
        toolCalls: [{ name: 'memory_search', arguments: { query: 'food allergies', user_id: 'someone-else' } }],
      };
    if (/popcorn/i.test(text)) {
      return {
        toolCalls: [
          { name: 'memory_write', arguments: { content: 'Loves salted popcorn', memory_type: 'preference' } },
        ],
      };
    }
    return { content: 'Hello!' };
  });
  agent = await startAgent({
    MEMORY_API_URL: memoryApi.url,
    MEMORY_API_KEY: deployment.apiKey,
    LLM_BASE_URL: model.url,
    LLM_MODEL: 'scripted-test-model',
    LLM_API_KEY: 'test-key',
  });
});

afterAll(async () => {
  await agent?.close();
  await model?.close();
  await memoryApi?.stop();
  await deployment?.cleanup();
});

describe('agent with a model (a local server speaking the OpenAI chat-completions protocol)', () => {
  it("sends the model's memory_search call through MCP to memory-api and the result back to the model", async () => {
    const stored = await postJson(
      `${memoryApi.url}/v1/memories`,
      { content: 'Allergic to peanuts', memory_type: 'fact', user_id: 'llm-dana' },
      { authorization: `Bearer ${deployment.apiKey}` },
    );
    expect(stored.status).toBe(201);

    const before = model.requests.length;
    const chat = await postJson(`${agent.url}/chat`, {
      user_id: 'llm-dana',
      session_id: 'llm-s1',
      message: 'Any snack ideas?',
    });
    expect(chat.status).toBe(200);
    expect(chat.body.reply).toBe('From memory: Allergic to peanuts');
    expect(chat.body.session_id).toBe('llm-s1');
    expect(chat.body.memories_used.map((m: { content: string }) => m.content)).toContain('Allergic to peanuts');

    const [first, second] = model.requests.slice(before);
    expect(first!.tools!.map((t) => t.function.name).sort()).toEqual([
      'memory_forget',
      'memory_search',
      'memory_write',
    ]);
    for (const tool of first!.tools!) expect(Object.keys(tool.function.parameters.properties)).not.toContain('user_id');
    // The profile (semantic memories) is in the system prompt already.
    expect(first!.messages[0]!.content).toMatch(/About the user[\s\S]*Allergic to peanuts/);

    // The tool result went back to the model, and it was the requesting user's memory despite the model naming another user.
    const toolMessage = lastMessage(second!);
    expect(toolMessage.role).toBe('tool');
    const result = JSON.parse(toolMessage.content!) as { results: Array<{ content: string }>; context: string };
    expect(result.results.map((r) => r.content)).toEqual(['Allergic to peanuts']);
    expect(result.context).toMatch(/fact: Allergic to peanuts/);

    // Both turns are in the session's working memory.
    const turns = await getJson(`${memoryApi.url}/v1/sessions/llm-s1/turns`, {
      authorization: `Bearer ${deployment.apiKey}`,
    });
    expect(turns.body.turns.map((t: { role: string; content: string }) => [t.role, t.content])).toEqual([
      ['user', 'Any snack ideas?'],
      ['assistant', 'From memory: Allergic to peanuts'],
    ]);
  });

  it('stores what the model writes through memory_write, for the chatting user and session', async () => {
    const chat = await postJson(`${agent.url}/chat`, {
      user_id: 'llm-paul',
      session_id: 'llm-s2',
      message: 'I could eat popcorn every day',
    });
    expect(chat.status).toBe(200);
    expect(chat.body.reply).toBe('Saved (created).');
    const list = await getJson(`${memoryApi.url}/v1/memories?user_id=llm-paul&category=preference`, {
      authorization: `Bearer ${deployment.apiKey}`,
    });
    expect(list.body.items).toEqual([
      expect.objectContaining({
        content: 'Loves salted popcorn',
        session_id: 'llm-s2',
        source: expect.objectContaining({ kind: 'mcp' }),
      }),
    ]);
  });

  it('rejects a chat without a message with 422 and records nothing', async () => {
    const chat = await postJson(`${agent.url}/chat`, { user_id: 'llm-dana', session_id: 'llm-s3' });
    expect(chat.status).toBe(422);
    expect(chat.body.error.message).toMatch(/message/);
    const turns = await getJson(`${memoryApi.url}/v1/sessions/llm-s3/turns`, {
      authorization: `Bearer ${deployment.apiKey}`,
    });
    expect(turns.body.turns).toEqual([]);
  });

  it('asks the model to make a vague message standalone before searching memory', async () => {
    const headers = { authorization: `Bearer ${deployment.apiKey}` };
    for (const content of [
      'Booked the ryokan in Kyoto for April 12',
      'Renewed the passport at the embassy',
      'Went to a jazz concert downtown',
      'Bought running shoes for the marathon',
      'Fixed the leaking kitchen tap',
    ]) {
      expect(
        (
          await postJson(
            `${memoryApi.url}/v1/memories`,
            { content, memory_type: 'event', user_id: 'llm-omar' },
            headers,
          )
        ).status,
      ).toBe(201);
    }
    const vague = 'What about that thing from last time?';
    // As asked, the message does not lead to the booking.
    const raw = await postJson(`${memoryApi.url}/v1/search`, { query: vague, user_id: 'llm-omar', top_k: 1 }, headers);
    expect(raw.body.results.map((r: { content: string }) => r.content)).not.toContain(
      'Booked the ryokan in Kyoto for April 12',
    );

    const narrow = await startAgent({
      MEMORY_API_URL: memoryApi.url,
      MEMORY_API_KEY: deployment.apiKey,
      LLM_BASE_URL: model.url,
      LLM_MODEL: 'scripted-test-model',
      SEARCH_TOP_K: '1',
    });
    try {
      const before = model.requests.length;
      const chat = await postJson(`${narrow.url}/chat`, { user_id: 'llm-omar', session_id: 'llm-v1', message: vague });
      expect(chat.status).toBe(200);
      const [rewrite, answer] = model.requests.slice(before);
      expect(rewrite!.tools).toBeUndefined();
      expect(lastMessage(rewrite!).content).toMatch(/Last message: What about that thing from last time\?/);
      expect(answer!.messages[0]!.content).toMatch(
        /Memories relevant to this message\n.*Booked the ryokan in Kyoto for April 12/,
      );
      expect(chat.body.memories_used.map((m: { content: string }) => m.content)).toContain(
        'Booked the ryokan in Kyoto for April 12',
      );
    } finally {
      await narrow.close();
    }
  });

  it('gives the model the memories that answer a question, dated, and the rule to say it does not know otherwise', async () => {
    const stored = await postJson(
      `${memoryApi.url}/v1/memories`,
      {
        content: "The user's daughter is called Mia.",
        memory_type: 'fact',
        user_id: 'llm-rosa',
        occurred_at: '2025-03-03T09:00:00.000Z',
      },
      { authorization: `Bearer ${deployment.apiKey}` },
    );
    expect(stored.status).toBe(201);
    const before = model.requests.length;
    const chat = await postJson(`${agent.url}/chat`, {
      user_id: 'llm-rosa',
      session_id: 'llm-r1',
      message: "What is my daughter's name?",
    });
    expect(chat.status).toBe(200);
    expect(chat.body.reply).toBe("From your memories: - [2025-03-03] fact: The user's daughter is called Mia.");
    expect(chat.body.memories_used.map((m: { content: string }) => m.content)).toContain(
      "The user's daughter is called Mia.",
    );
    const system = model.requests[before]!.messages[0]!.content ?? '';
    expect(system).toMatch(/say plainly that you don't know/);
    expect(system).toMatch(/speak to the user as "you"/);
  });

  it('answers with the offline policy when the model cannot be reached', async () => {
    const unreachable = await startAgent({
      MEMORY_API_URL: memoryApi.url,
      MEMORY_API_KEY: deployment.apiKey,
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
      LLM_MODEL: 'scripted-test-model',
      LLM_TIMEOUT_MS: '2000',
    });
    try {
      // Its own user with both memories: the test holds in any order.
      for (const memory of [
        { content: 'Allergic to peanuts', memory_type: 'fact' },
        { content: 'Loves salted popcorn', memory_type: 'preference' },
      ]) {
        const stored = await postJson(
          `${memoryApi.url}/v1/memories`,
          { ...memory, user_id: 'llm-dora' },
          { authorization: `Bearer ${deployment.apiKey}` },
        );
        expect(stored.status).toBe(201);
      }
      const chat = await postJson(`${unreachable.url}/chat`, {
        user_id: 'llm-dora',
        session_id: 'llm-down',
        message: 'Can you recommend me a snack?',
      });
      expect(chat.status).toBe(200);
      expect(chat.body.reply).toMatch(
        /^Since you told me you're allergic to peanuts and you love salted popcorn, how about lightly salted popcorn/,
      );
      const asked = await postJson(`${unreachable.url}/chat`, {
        user_id: 'llm-dora',
        session_id: 'llm-down',
        message: 'What am I allergic to?',
      });
      expect(asked.status).toBe(200);
      expect(asked.body.reply).toBe("You told me you're allergic to peanuts.");
    } finally {
      await unreachable.close();
    }
  });
});
