import type { Turn } from '@hindsight/memory-model';
import { describe, expect, it } from 'vitest';
import { guardExtraction, isDegenerate } from '../../src/extraction/guard.ts';
import { ExtractionError } from '../../src/extraction/port.ts';
import { extractSentence, RuleExtractor } from '../../src/extraction/rules.ts';

const turn = (seq: number, role: Turn['role'], content: string): Turn => ({
  id: `t${seq}`,
  seq,
  role,
  content,
  timestamp: '2026-01-01T10:00:00.000Z',
});

describe('rule extractor', () => {
  it.each([
    ["I'm allergic to peanuts.", 'fact', /allergic to peanuts/],
    ['Please keep answers short.', 'preference', /answers kept short/],
    ['Remind me to renew my passport next month.', 'commitment', /reminded to renew their passport next month/],
    ['I love coffee', 'preference', /^The user loves coffee\.$/],
    ["I've quit coffee", 'preference', /^The user has quit coffee\.$/],
    ["I don't like horror movies", 'preference', /dislikes horror movies/],
    ['My name is Ada Lovelace', 'fact', /name is Ada Lovelace/],
    ['My timezone is UTC+8', 'fact', /timezone is UTC\+8/],
    ['I work as a nurse', 'fact', /works as a nurse/],
    ['We decided to use Postgres', 'decision', /decided: use Postgres/],
    ['I need to book a dentist appointment', 'todo', /needs to book a dentist appointment/],
    ["Actually it's Thursday", 'fact', /Correction from the user: it's Thursday/],
    ['我对花生过敏', 'fact', /花生过敏/],
    ['请保持回答简短', 'preference', /简短/],
    ['提醒我下个月续签护照', 'commitment', /续签护照/],
    ['我叫李雷', 'fact', /李雷/],
    ['我决定用Postgres', 'decision', /Postgres/],
    ['其实是星期四', 'fact', /星期四/],
  ])('extracts %j', (sentence, category, value) => {
    const finding = extractSentence(sentence);
    expect(finding?.category).toBe(category);
    expect(finding?.value).toMatch(value);
    expect(finding?.query).toMatch(/[?？]$/);
  });

  it.each([
    'Hi there!',
    'Thanks!',
    'ok',
    'haha that is funny',
    'The weather is lovely today',
    "I'm in a meeting right now",
    "What's the capital of France?",
    'I like it',
    '你好！',
    '今天天气真好',
    '我在开会',
    '谢谢',
  ])('skips small talk, transient state and questions: %j', (sentence) => {
    expect(extractSentence(sentence)).toBeUndefined();
  });

  it('reads only the user’s turns and cites the turn an item came from', async () => {
    const extraction = await new RuleExtractor().extract([
      turn(1, 'user', 'Hello!'),
      turn(2, 'assistant', "I'm allergic to nothing, I am an assistant. I love helping."),
      turn(3, 'user', "Great. I'm allergic to shellfish. Remind me to call mom."),
      turn(4, 'tool', 'I love tool output'),
    ]);
    expect(extraction.items.map((i) => [i.category, i.turn_ids])).toEqual([
      ['fact', ['t3']],
      ['commitment', ['t3']],
    ]);
  });
});

describe('extraction guard', () => {
  const item = {
    category: 'fact',
    key: 'k',
    query: 'What?',
    value: 'The user is allergic to peanuts.',
    confidence: 0.8,
    turn_ids: ['t1'],
  };

  it('merges exact repeats and keeps their provenance', () => {
    const items = guardExtraction([item, { ...item, turn_ids: ['t2'] }], new Set(['t1', 't2']));
    expect(items).toHaveLength(1);
    expect(items[0]?.turn_ids).toEqual(['t1', 't2']);
  });

  it.each([
    [{ ...item, category: 'gossip' }, /category/],
    [{ ...item, value: 'x'.repeat(201) }, /value/],
    [{ ...item, turn_ids: ['t9'] }, /not in the session/],
    [{ ...item, value: 'peanut peanut peanut peanut peanut peanut peanut peanut peanut' }, /degenerate/],
  ])('rejects bad output loudly: %j', (bad, message) => {
    expect(() => guardExtraction([bad], new Set(['t1']))).toThrow(ExtractionError);
    expect(() => guardExtraction([bad], new Set(['t1']))).toThrow(message);
  });

  it('tells repetitive text from normal text, in English and Chinese', () => {
    expect(isDegenerate('The user is allergic to peanuts and avoids them in every meal.')).toBe(false);
    expect(isDegenerate('好的好的好的好的好的好的好的好的好的')).toBe(true);
    expect(isDegenerate('用户对花生过敏，推荐食物、饮品或药品时必须避开花生。')).toBe(false);
  });
});
