import { describe, expect, it } from 'vitest';
import { ANSWER_KINDS_V4, deriveAnswerKinds } from '../src/builtin/answer-types.ts';
import { deriveChineseTable, segmentChinese } from '../src/builtin/word-vectors/chinese.ts';
import { cosine, WordTable } from '../src/index.ts';

/** A 4-d English table: husband and spouse point one way, dog and pet another, cat near dog. */
const english = WordTable.decode(
  WordTable.encode({
    words: ['husband', 'spouse', 'dog', 'pet', 'cat', 'king'],
    dimension: 4,
    corpusWords: 6,
    vectors: Float32Array.from([
      1, 0.1, 0, 0, 0.9, 0.2, 0, 0, 0, 0, 1, 0.1, 0, 0, 0.9, 0.3, 0, 0, 0.8, 0.4, 0, 0, 0, 1,
    ]),
  }),
);

const module = (text: string) => `module.exports = \`${text}\`;\n`;
const DICTIONARY = module(
  [
    '# CC-CEDICT excerpt',
    '老公 老公 [lao3 gong1] /(coll.) husband/',
    '老公 老公 [lao3 gong5] /(coll.) eunuch/see also 老公[lao3 gong1]/',
    '狗 狗 [gou3] /dog/CL:隻|只[zhi1],條|条[tiao2]/',
    '寵物 宠物 [chong3 wu4] /house pet/',
    '王 王 [Wang2] /surname Wang/',
    '王 王 [wang2] /king or monarch/',
    "的 的 [de5] /of; ~'s (possessive particle)/",
    'ABC ABC [A B C] /letters/',
  ].join('\n'),
);
const FREQUENCIES = module(['狗,500', '老公,120', '王,90', '宠物,40'].join('\n'));

describe('Chinese words in the English word-vector space', () => {
  const { table, glosses } = deriveChineseTable({ dictionary: DICTIONARY, frequencies: FREQUENCIES }, english);
  const chinese = WordTable.decode(WordTable.encode(table));
  const vectorOf = (word: string) => {
    const v = new Float32Array(4);
    chinese.addTo(v, chinese.rank(word) as number, 1);
    return Array.from(v);
  };

  it('gives a word the vector of its English glosses, skipping names, grammar notes and measure words', () => {
    expect(cosine(vectorOf('老公'), [1, 0.1, 0, 0])).toBeGreaterThan(0.99);
    expect(cosine(vectorOf('狗'), [0, 0, 1, 0.1])).toBeGreaterThan(0.99);
    expect(cosine(vectorOf('王'), [0, 0, 0, 1])).toBeGreaterThan(0.99);
    // "of; ~'s" are stop words, "(possessive particle)" a note: 的 has no vector, so it is no word here.
    expect(chinese.rank('的')).toBeUndefined();
    expect(chinese.rank('ABC')).toBeUndefined();
    expect(glosses.宠物).toEqual(['pet']);
    expect(glosses.王).toEqual(['king']);
  });

  it('orders the words by their corpus frequency, so a position is a frequency rank', () => {
    expect(chinese.words).toEqual(['狗', '老公', '王', '宠物']);
  });

  it('segments a run of Han characters into dictionary words, longest first', () => {
    expect(segmentChinese('我老公的宠物狗', chinese).map((r) => chinese.words[r])).toEqual(['老公', '宠物', '狗']);
    expect(segmentChinese('', chinese)).toEqual([]);
  });

  it('gives a Chinese word the answer kinds of its glosses', () => {
    const kinds = deriveAnswerKinds(english, glosses, ANSWER_KINDS_V4);
    // "pet" cues the pet kind, "dog" is one of its members, and 宠物 is glossed "pet".
    expect(kinds.words.宠物).toEqual(kinds.words.pet);
    expect(kinds.words.狗).toEqual(kinds.words.dog);
    expect(kinds.words.宠物?.length).toBeGreaterThan(0);
  });
});
