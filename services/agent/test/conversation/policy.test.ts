import type { SearchHit } from '@hindsight/memory-model';
import { estimateTokens } from '@hindsight/text';
import { describe, expect, it } from 'vitest';
import { functionTool } from '../../src/conversation/model-turn.ts';
import { classifyMessage, recommend } from '../../src/conversation/offline-policy.ts';
import { buildProfileSection } from '../../src/conversation/profile.ts';
import { isVague, withRecentTopics } from '../../src/conversation/query-rewrite.ts';

function hit(id: string, content: string, category = 'preference'): SearchHit {
  return {
    id,
    content,
    layer: 'semantic',
    category,
    score: 1,
    scores: { similarity: 0.5, keyword: 0, recency: 1, confidence: 0.9 },
    status: 'active',
    tags: [],
    occurred_at: '2025-01-01T00:00:00.000Z',
    created_at: '2025-01-01T00:00:00.000Z',
    metadata: {},
    source: { kind: 'consolidation' },
  };
}

describe('profile section', () => {
  it('never takes more than its share of the context, keeping the summary first', () => {
    const summary = 'Works as a nurse on night shifts. Lives in Lyon with two cats. '.repeat(100);
    const preferences = Array.from({ length: 200 }, (_, i) =>
      hit(`p${i}`, `Prefers option number ${i} for everything`),
    );
    const cap = Math.floor(8192 * 0.15);
    const section = buildProfileSection(summary, preferences, cap);
    expect(estimateTokens(section.text)).toBeLessThanOrEqual(cap);
    expect(section.text.startsWith('Profile: Works as a nurse')).toBe(true);
    expect(section.text).toMatch(/cats\.…\n- preference: Prefers option number 0 for everything/);
    expect(section.used.length).toBeGreaterThan(0);

    const small = buildProfileSection('Nurse in Lyon.', preferences, cap);
    expect(small.used.length).toBeGreaterThan(5);
    expect(small.used.length).toBeLessThan(200);
    expect(estimateTokens(small.text)).toBeLessThanOrEqual(cap);
  });

  it('is empty when there is nothing to say', () => {
    expect(buildProfileSection(null, [], 100)).toEqual({ text: '', used: [] });
  });
});

describe('vague messages', () => {
  it('are recognised in English and Chinese', () => {
    expect(isVague('what about that thing from last time?')).toBe(true);
    expect(isVague('上次那个事怎么样了')).toBe(true);
    expect(isVague('recommend me a snack')).toBe(false);
    expect(isVague('给我推荐一个零食')).toBe(false);
  });

  it("get the session's recent user topics, newest first", () => {
    const turns = [
      { id: 't1', seq: 1, role: 'user' as const, content: 'Planning a trip to Kyoto', timestamp: '' },
      { id: 't2', seq: 2, role: 'assistant' as const, content: 'Sounds lovely, cherry blossoms!', timestamp: '' },
      { id: 't3', seq: 3, role: 'user' as const, content: '还要订酒店', timestamp: '' },
    ];
    expect(withRecentTopics('that thing?', turns)).toBe('that thing? (还要订酒店 planning trip kyoto)');
    expect(withRecentTopics('that thing?', [])).toBe('that thing?');
  });
});

describe('offline intents', () => {
  it('tell remember requests, recommendations and recall apart', () => {
    expect(classifyMessage('Please remember that I love green tea!')).toEqual({
      kind: 'remember',
      fact: 'I love green tea',
      memoryType: 'preference',
    });
    expect(classifyMessage('记住我住在上海')).toEqual({ kind: 'remember', fact: '我住在上海', memoryType: 'fact' });
    expect(classifyMessage('recommend me a snack')).toEqual({ kind: 'recommend', food: true });
    expect(classifyMessage('can you suggest a movie')).toEqual({ kind: 'recommend', food: false });
    expect(classifyMessage('what do you know about me?')).toEqual({ kind: 'recall' });
    expect(classifyMessage('the weather is nice')).toEqual({ kind: 'chat' });
  });

  it('recommend around every allergy and diet, and prefer what the user likes', () => {
    const answer = recommend('en', true, [
      hit('a', 'Allergic to peanuts and sesame', 'fact'),
      hit('b', 'Lactose intolerant: avoids milk', 'fact'),
      hit('c', 'Loves popcorn'),
      hit('d', 'Works in Berlin', 'fact'),
    ]);
    expect(answer.reply).toBe(
      "Since you're allergic to peanuts and sesame and you avoid dairy, I'd steer clear of anything with peanuts, sesame and dairy. How about lightly salted popcorn, or beef jerky?",
    );
    expect(answer.used.map((m) => m.id)).toEqual(['a', 'b', 'c']);
  });
});

describe('offline recommendations in Chinese', () => {
  it('name each allergy once, however many memories repeat it', () => {
    const answer = recommend('zh', true, [
      hit('f', '用户对花生过敏，推荐食物时必须避开花生。', 'fact'),
      hit('s', '会话总结：[fact] 用户对花生过敏。', 'summary'),
    ]);
    expect(answer.reply).toBe(
      '考虑到你对花生过敏，我会避开含花生的零食。可以试试苹果片配一点奶酪，或者鹰嘴豆泥配胡萝卜和黄瓜条。',
    );
    expect(answer.used.map((m) => m.id)).toEqual(['f']);
  });
});

describe('MCP tools as model functions', () => {
  it('hide user_id from the model', () => {
    const tool = functionTool({
      name: 'memory_search',
      description: 'search',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { query: { type: 'string' }, user_id: { type: 'string' } },
        required: ['query', 'user_id'],
        additionalProperties: false,
      },
    });
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
      additionalProperties: false,
    });
  });
});
