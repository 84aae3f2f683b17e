import { describe, expect, it } from 'vitest';
import { keywordTokens, queryKeywordTokens, rewriteQuestionPhrases } from '../src/index.ts';

describe('question phrases read as the kind of answer they ask for', () => {
  it('asks for an occupation with "do for a living", "line of work" or a bare "what does … do?"', () => {
    expect(queryKeywordTokens('What does she do for a living?')).toEqual(keywordTokens('occupation'));
    expect(queryKeywordTokens("What's his line of work?")).toEqual(keywordTokens('occupation'));
    expect(queryKeywordTokens('What does her spouse do?')).toEqual(keywordTokens('spouse occupation'));
    expect(queryKeywordTokens('What does her husband do these days?')).toEqual(keywordTokens('husband occupation'));
  });

  it('asks for a hometown with "where is … from?"', () => {
    expect(queryKeywordTokens('Where is she from?')).toEqual(keywordTokens('hometown'));
    expect(queryKeywordTokens('Where is Tom originally from?')).toEqual(keywordTokens('Tom hometown'));
  });

  it('asks for a birthday with "when was … born?" (the v6 set), keeping "born"; "where was … born?" stays a place', () => {
    expect(queryKeywordTokens('When was she born?')).toEqual(keywordTokens('when she born birthday'));
    expect(queryKeywordTokens('What year was Tom born?')).toEqual(keywordTokens('what year was Tom born birthday'));
    expect(rewriteQuestionPhrases('她哪天出生的？', 6)).toBe('她哪天出生生日的？');
    expect(rewriteQuestionPhrases('Where was she born?', 6)).toBe('Where was she born?');
    expect(rewriteQuestionPhrases('Tom was born in 1979.', 6)).toBe('Tom was born in 1979.');
    // builtin-v5's set is what it was: its vectors must not change.
    expect(rewriteQuestionPhrases('When was she born?')).toBe('When was she born?');
  });

  it('leaves other questions and statements as they are', () => {
    for (const text of [
      'What does she do for fun?',
      'What does he do on weekends?',
      'She lives in Leeds and makes a good living.',
      'Where did she go on holiday?',
      '她是做什么工作的？',
      '',
    ]) {
      expect(rewriteQuestionPhrases(text)).toBe(text);
    }
  });
});
