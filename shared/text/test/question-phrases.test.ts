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

  it('asks for a hometown with "grow up", "come from" and 哪里人 (the v8 set), keeping their words; earlier sets unchanged', () => {
    expect(rewriteQuestionPhrases('Where did he grow up?', 8)).toBe('Where did he grow up hometown?');
    expect(rewriteQuestionPhrases('What country does she come from?', 8)).toBe(
      'What country does she come from hometown?',
    );
    expect(rewriteQuestionPhrases('她是哪里人？', 8)).toBe('她是哪里人老家？');
    expect(rewriteQuestionPhrases('他是什么地方的人？', 8)).toBe('他是什么地方的人老家？');
    // Still v6's phrases too.
    expect(rewriteQuestionPhrases('When was she born?', 8)).toBe('When was she born birthday?');
    // The keyword query and builtin-v6/v7's vectors read the v6 set: they must not change.
    for (const text of ['Where did he grow up?', '她是哪里人？']) expect(rewriteQuestionPhrases(text, 6)).toBe(text);
    expect(queryKeywordTokens('Where did he grow up?')).toEqual(keywordTokens('Where did he grow up?'));
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
