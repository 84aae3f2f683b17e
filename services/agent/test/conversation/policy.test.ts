import type { SearchHit } from '@hindsight/memory-model';
import { estimateTokens } from '@hindsight/text';
import { describe, expect, it } from 'vitest';
import { correctedMemory, parseCorrection } from '../../src/conversation/correction.ts';
import { classifyMessage, type MessageKind } from '../../src/conversation/message-kind.ts';
import { functionTool } from '../../src/conversation/model-turn.ts';
import { answerQuestion, type ReplyStyle } from '../../src/conversation/offline-policy.ts';
import { buildProfileSection } from '../../src/conversation/profile.ts';
import { isVague, withRecentTopics } from '../../src/conversation/query-rewrite.ts';
import { recommendFood } from '../../src/conversation/recommendation.ts';
import { addressedToUser, swapPerson } from '../../src/conversation/second-person.ts';

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

describe('what a message is', () => {
  const cases: Array<[string, MessageKind['kind']]> = [
    ['Do I have any allergies?', 'question'],
    ["What is my daughter's name?", 'question'],
    ['Can you remind me what I do for work?', 'question'],
    ['Can you tell me where I live', 'question'],
    ['Where am I from', 'question'],
    ['Is there anything I cannot eat', 'question'],
    ['Remember what I said about my job?', 'question'],
    ['我住在哪里？', 'question'],
    ['我女儿叫什么名字', 'question'],
    ['你知道我喜欢喝什么吗', 'question'],
    ['请问我在哪儿工作', 'question'],
    ['我儿子几岁了', 'question'],
    ['Any idea what snack I could bring to the party?', 'request'],
    ['What should I cook tonight?', 'request'],
    ['Can you suggest a movie', 'request'],
    ['给我推荐一个零食吧', 'request'],
    ['今晚吃什么好', 'request'],
    ['Please keep your answers short.', 'instruction'],
    ['Can you keep your answers short?', 'instruction'],
    ['Call me Sam.', 'instruction'],
    ['请用中文回答我。', 'instruction'],
    ['以后回答简短一点', 'instruction'],
    ["Actually it's Lisbon, not Berlin.", 'correction'],
    ['My daughter is eight, not seven.', 'correction'],
    ['其实我住在上海，不是北京。', 'correction'],
    ["Hi! I'm allergic to peanuts.", 'statement'],
    ['When I was young I lived in Rome.', 'statement'],
    ['What a lovely day it was.', 'statement'],
    ['我什么都吃。', 'statement'],
    ['你好，我对花生过敏。', 'statement'],
    ['Hi!', 'social'],
    ['Thanks, that is all for today.', 'social'],
    ['好的，谢谢。', 'social'],
    ['How are you?', 'social'],
    ["What's your name?", 'social'],
    ['你是谁？', 'social'],
    ['Do you know my name?', 'question'],
    ['Do you remember that thing?', 'question'],
  ];
  it.each(cases)('%s → %s', (message, kind) => {
    expect(classifyMessage(message).kind).toBe(kind);
  });

  it('takes an explicit "remember …" as a fact or preference to store', () => {
    expect(classifyMessage('Please remember that I love green tea!')).toEqual({
      kind: 'remember',
      fact: 'I love green tea',
      memoryType: 'preference',
    });
    expect(classifyMessage('记住我住在上海')).toEqual({ kind: 'remember', fact: '我住在上海', memoryType: 'fact' });
  });
});

describe('memories told back in the second person', () => {
  it.each([
    ['The user is allergic to peanuts; never suggest anything that contains peanuts.', "you're allergic to peanuts"],
    ["The user's daughter is called Mia and she is seven.", 'your daughter is called Mia and she is seven'],
    ["The user wants the assistant to keep the assistant's answers short.", 'you want me to keep my answers short'],
    [
      'The user does not tolerate lactose (lactose makes them ill); avoid it.',
      'you do not tolerate lactose (lactose makes you ill)',
    ],
    ['The user no longer eats meat.', 'you no longer eat meat'],
    ['The user studies law.', 'you study law'],
    ['The user said: Hi! I work as a nurse.', 'you work as a nurse'],
    ['The user said: Please keep your answers short.', 'Please keep my answers short'],
    ['Loves salted popcorn', 'you love salted popcorn'],
    ['Allergic to peanuts', "you're allergic to peanuts"],
    ['Paris is lovely in May', 'Paris is lovely in May'],
    ['用户对虾过敏，推荐食物或用品时必须避开虾。', '你对虾过敏'],
    ['The user said: 我住在成都。', '你住在成都'],
    ['用户提到，其实用户在上海工作，不是北京。', '你在上海工作，不是北京'],
  ])('%s → %s', (memory, told) => {
    expect(addressedToUser(memory)).toBe(told);
  });

  it("swaps who speaks in the user's own words", () => {
    expect(swapPerson('I told you my daughter is seven and you forgot')).toBe(
      'you told me your daughter is seven and I forgot',
    );
    expect(swapPerson('请用中文回答我')).toBe('请用中文回答你');
  });
});

const style = (language: 'en' | 'zh' = 'en', short = false): ReplyStyle => ({
  language,
  short,
  now: new Date('2026-06-01T12:00:00Z'),
});

describe('answering a question from memory', () => {
  const memories = [
    hit('d', "The user's daughter is called Mia and she is seven.", 'fact'),
    hit('w', "The user's wife's name is Sara.", 'fact'),
    hit('b', "The user's brother lives in Toronto.", 'fact'),
    hit('h', 'The user lives in Lisbon.', 'fact'),
    hit('v', 'The user is vegetarian.', 'fact'),
    hit('a', 'The user said: What is my daughter called?', 'turn'),
    hit('r', 'The assistant said: Got it, thanks for telling me.', 'turn'),
  ];

  it('picks the memory about what is asked, not the one that merely scores close', () => {
    expect(answerQuestion("What's my wife called?", memories, style())).toEqual({
      reply: "On 1 January 2025 you told me your wife's name is Sara.",
      used: [memories[1]],
    });
    expect(answerQuestion('Where do I live?', memories, style()).used.map((m) => m.id)).toEqual(['h']);
    expect(answerQuestion('Where does my brother live?', memories, style()).used.map((m) => m.id)).toEqual(['b']);
    expect(answerQuestion('Do I eat meat?', memories, style()).used.map((m) => m.id)).toEqual(['v']);
  });

  it('says it does not know when nothing answers, in the language of the reply', () => {
    expect(answerQuestion("What's my mother's name?", memories, style()).reply).toBe(
      "I don't know — you haven't told me about that yet.",
    );
    expect(answerQuestion('我妈妈叫什么名字？', memories, style('zh')).reply).toBe('我不知道——你还没跟我说过这件事。');
    // Neither the user's earlier question nor the assistant's reply is something the user told.
    expect(answerQuestion('What did you say?', memories.slice(5), style()).used).toEqual([]);
  });

  it('answers briefly when the user asked for short answers', () => {
    expect(answerQuestion('Where do I live?', memories, style('en', true)).reply).toBe('You live in Lisbon.');
  });
});

describe('corrections', () => {
  it.each([
    ["Actually it's Lisbon, not Berlin.", { right: 'Lisbon', wrong: 'Berlin' }],
    ['No, not Tuesday but Thursday', { right: 'Thursday', wrong: 'Tuesday' }],
    ['My daughter is eight, not seven.', { right: 'eight', wrong: 'seven', clause: 'My daughter is eight' }],
    [
      'Sorry, I meant I live in New York, not Boston',
      { right: 'New York', wrong: 'Boston', clause: 'I live in New York' },
    ],
    ['其实我住在上海，不是北京。', { right: '上海', wrong: '北京', clause: '我住在上海' }],
    ['不是周二，是周四', { right: '周四', wrong: '周二' }],
  ])('%s', (message, expected) => {
    expect(parseCorrection(message)).toEqual(expected);
  });

  it('rewrite the memory that says the wrong thing, the distilled fact before the turn', () => {
    const memories = [
      hit('t', 'The user said: I work in Beijing.', 'turn'),
      hit('f', '用户在北京工作。', 'fact'),
      hit('a', 'The assistant said: 好的，记下了：你在北京工作。', 'turn'),
    ];
    expect(correctedMemory(parseCorrection('其实我在上海工作，不是北京。')!, memories)).toMatchObject({
      content: '用户在上海工作。',
      right: '上海',
      corrects: { id: 'f' },
      ownWords: false,
    });
    expect(correctedMemory(parseCorrection("Actually it's Lisbon, not Berlin")!, memories)).toBeUndefined();
  });
});

describe('offline recommendations', () => {
  it('avoid every allergy, diet and dislike known, and say which memories they used', () => {
    const answer = recommendFood('en', 'Can you recommend me a snack?', [
      hit('a', 'Allergic to peanuts and sesame', 'fact'),
      hit('b', 'Lactose intolerant: avoids milk', 'fact'),
      hit('o', 'The user hates olives.'),
      hit('c', 'Loves popcorn'),
      hit('d', 'Works in Berlin', 'fact'),
    ]);
    expect(answer.reply).toBe(
      "Since you told me you're allergic to peanuts and sesame, you're lactose intolerant: avoids milk, you hate olives and you love popcorn, how about lightly salted popcorn, or shrimp cocktail cups?",
    );
    expect(answer.used.map((m) => m.id)).toEqual(['a', 'b', 'o', 'c']);
  });

  it('fit the dish to the request and to a diet', () => {
    const dinner = recommendFood('en', 'What should I cook for dinner?', [hit('v', 'The user is vegan.', 'fact')]);
    expect(dinner.reply).toMatch(/^Since you told me you're vegan, how about /);
    expect(dinner.reply).not.toMatch(/carbonara|shrimp|beef|salmon|chicken|risotto/);
  });

  it('name each allergy once in Chinese, however many memories repeat it', () => {
    const answer = recommendFood('zh', '给我推荐一个零食吧', [
      hit('f', '用户对花生过敏，推荐食物时必须避开花生。', 'fact'),
      hit('s', '会话总结：[fact] 用户对花生过敏。', 'summary'),
    ]);
    expect(answer.reply).toBe('你跟我说过你对花生过敏，所以我照这个来挑。可以试试奶酪橄榄串，或者火腿奶酪小三明治。');
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
