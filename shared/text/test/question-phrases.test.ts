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
    // builtin-v6/v7's vectors read the v6 set: they must not change.
    for (const text of ['Where did he grow up?', '她是哪里人？']) expect(rewriteQuestionPhrases(text, 6)).toBe(text);
  });

  it('reads an age from "how old", "what age" and a number of years, on questions and facts alike (the v10 set); not a measure or a time', () => {
    expect(queryKeywordTokens('How old is she?')).toEqual(keywordTokens('age'));
    expect(queryKeywordTokens('What age is Tom?')).toEqual(keywordTokens('age Tom'));
    expect(rewriteQuestionPhrases("He's 31 and lives with his girlfriend.", 10)).toBe(
      "He's 31 age and lives with his girlfriend.",
    );
    expect(rewriteQuestionPhrases('She turned 44 last March', 10)).toBe('She turned 44 age last March');
    expect(rewriteQuestionPhrases('a twelve-year-old Border collie', 10)).toBe('a twelve-year-old age Border collie');
    expect(rewriteQuestionPhrases('Eleanor was born in 1974', 10)).toBe('Eleanor was born in 1974 age');
    expect(rewriteQuestionPhrases('她今年五十二岁。', 10)).toBe('她今年五十二岁年龄。');
    expect(rewriteQuestionPhrases('她多大了？', 10)).toBe('她多大了年龄？');
    for (const text of ['The commute is 5 minutes', 'The rent is 2,300 a month', 'I am 5 foot 2', 'It is 10 past 3']) {
      expect(rewriteQuestionPhrases(text, 10)).toBe(text);
    }
    // Earlier sets are what they were.
    expect(rewriteQuestionPhrases('How old is she?', 8)).toBe('How old is she?');
  });

  it('reads a home, a commute, free time, a partner and a proposal from the phrases that ask for them (the v10 set)', () => {
    expect(queryKeywordTokens("Where's she based?")).toEqual(keywordTokens('based home'));
    expect(queryKeywordTokens('where do I stay?')).toEqual(keywordTokens('stay home'));
    expect(queryKeywordTokens('How does he get around?')).toEqual(keywordTokens('around commute'));
    expect(queryKeywordTokens('what do i do on my day off?')).toEqual(keywordTokens('day hobby'));
    expect(queryKeywordTokens('What does his other half do?')).toEqual(keywordTokens('partner occupation'));
    expect(queryKeywordTokens('What does he do for work?')).toEqual(keywordTokens('occupation'));
    expect(queryKeywordTokens('What did my father do for a job?')).toEqual(keywordTokens('father occupation'));
    expect(queryKeywordTokens('is he going to pop the question?')).toEqual(keywordTokens('propose'));
    // Nor does it search for the light verbs keep and go.
    expect(queryKeywordTokens('Do they keep a dog?')).toEqual(keywordTokens('dog'));
    expect(queryKeywordTokens('where are we going for the summer trip')).toEqual(keywordTokens('summer trip'));
    expect(queryKeywordTokens('What does she take for her migraines?')).toEqual(keywordTokens('take migraines'));
    // The keyword query reads the v8 phrases too.
    expect(queryKeywordTokens('Where did he grow up?')).toEqual(keywordTokens('grow hometown'));
  });

  it('reads an age without its apostrophe, a partner one is seeing, an operation, a trip at a time, a name and comfort food (the v11 set)', () => {
    expect(rewriteQuestionPhrases('im 26 and live in Leeds', 11)).toBe('im 26 age and live in Leeds');
    expect(rewriteQuestionPhrases('im 5 minutes away', 11)).toBe('im 5 minutes away');
    expect(queryKeywordTokens('Is she seeing anyone?')).toEqual(keywordTokens('seeing anyone partner'));
    expect(rewriteQuestionPhrases('Has he had any operations?', 11)).toBe('Has he had any operations surgery?');
    expect(rewriteQuestionPhrases('He had a hip replacement in 2021.', 11)).toBe(
      'He had a hip replacement surgery in 2021.',
    );
    expect(rewriteQuestionPhrases('她做过手术吗？', 11)).toBe('她做过手术手术吗？');
    expect(rewriteQuestionPhrases("She's going to Nashville in March.", 11)).toBe(
      "She's going to Nashville in March trip.",
    );
    expect(rewriteQuestionPhrases("What's her cat called?", 11)).toBe("What's her cat name?");
    expect(rewriteQuestionPhrases('What does she eat when she is sad?', 11)).toBe(
      'What does she eat when she is sad comfort?',
    );
    expect(rewriteQuestionPhrases('DOB 11 June 1986.', 11)).toBe('DOB birthday born age 11 June 1986.');
    expect(rewriteQuestionPhrases('my bday is in october', 11)).toBe('my bday birthday is in october');
    expect(rewriteQuestionPhrases('The Dobermann was dobbed in', 11)).toBe('The Dobermann was dobbed in');
    // The earlier sets read none of them.
    expect(rewriteQuestionPhrases('Is she seeing anyone?', 10)).toBe('Is she seeing anyone?');
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
