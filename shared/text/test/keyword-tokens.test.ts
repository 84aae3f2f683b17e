import { describe, expect, it } from 'vitest';
import { analyzeText, estimateTokens, keywordTokens } from '../src/index.ts';

describe('keywordTokens', () => {
  it('lower-cases, stems and drops stop words', () => {
    expect(keywordTokens("What are Kate's hobbies? Cooking, skiing & hiking!")).toEqual([
      'kate',
      'hobbi',
      'cook',
      'ski',
      'hike',
    ]);
  });

  it('lets a Chinese paraphrase share character bigrams with the stored text', () => {
    const stored = new Set(keywordTokens('用户喜欢简洁的回答'));
    const query = keywordTokens('用户的回答偏好');
    expect(query.filter((t) => stored.has(t))).toEqual(expect.arrayContaining(['用户', '回答']));
    expect(query).not.toContain('的');
  });

  it('splits mixed Latin and CJK runs', () => {
    expect(keywordTokens('iPhone手机')).toEqual(['iphon', '手', '手机', '机']);
  });

  it('normalises numbers, ordinals and number words', () => {
    expect(keywordTokens('It costs $1,000 and 3.5 more')).toEqual(['cost', '1000', '3.5']);
    expect(keywordTokens('on the 3rd I met twenty kids')).toEqual(['3', 'met', '20', 'kid']);
    expect(keywordTokens('two kids')).toEqual(keywordTokens('2 kids'));
  });

  it('maps abbreviated months and weekdays to their full names', () => {
    expect(keywordTokens('Jan 5, Fri')).toEqual(keywordTokens('January 5, Friday'));
  });

  it('splits contractions: negation becomes a stop word, the verb is kept', () => {
    expect(keywordTokens("I don't like it; we can't go")).toEqual(['like', 'go']);
    expect(analyzeText("won't").map((t) => t.term)).toEqual(['will', 'not']);
  });

  it('applies NFKC, so full-width and ligature forms match their plain forms', () => {
    expect(keywordTokens('ＡＢＣ ﬁle')).toEqual(keywordTokens('abc file'));
  });

  it('returns nothing for punctuation-only text', () => {
    expect(keywordTokens('!!! ... ???')).toEqual([]);
  });
});

describe('analyzeText', () => {
  it('keeps the written form of each word for character n-grams', () => {
    expect(analyzeText('Restaurants')[0]).toEqual({
      term: 'restaur',
      surface: 'restaurants',
      kind: 'word',
      stop: false,
    });
  });
});

describe('estimateTokens', () => {
  it('counts ~4 Latin characters per token and one per CJK character', () => {
    expect(estimateTokens('abcdefgh')).toBe(2);
    expect(estimateTokens('用户喜欢')).toBe(4);
  });
});
