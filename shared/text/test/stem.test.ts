import { describe, expect, it } from 'vitest';
import { stem } from '../src/index.ts';

// Pairs from the Snowball English (Porter2) reference vocabulary and output.
const REFERENCE: Record<string, string> = {
  consign: 'consign',
  consigned: 'consign',
  consignment: 'consign',
  consistency: 'consist',
  consistently: 'consist',
  consolation: 'consol',
  consolatory: 'consolatori',
  consolidated: 'consolid',
  consolingly: 'consol',
  conspicuously: 'conspicu',
  conspiracy: 'conspiraci',
  conspirators: 'conspir',
  constable: 'constabl',
  knackeries: 'knackeri',
  knavish: 'knavish',
  kneeling: 'kneel',
  knightly: 'knight',
  knitting: 'knit',
  knives: 'knive',
  generously: 'generous',
  cries: 'cri',
  ties: 'tie',
  gaps: 'gap',
  gas: 'gas',
  kiwis: 'kiwi',
  hopeful: 'hope',
  goodness: 'good',
  traditional: 'tradit',
  skies: 'sky',
  dying: 'die',
  news: 'news',
  succeeding: 'succeed',
};

describe('stem (Porter2)', () => {
  it.each(Object.entries(REFERENCE))('%s → %s', (word, expected) => {
    expect(stem(word)).toBe(expected);
  });

  it('gives inflections of one word the same stem', () => {
    expect(new Set(['travel', 'travels', 'travelling', 'traveled'].map(stem)).size).toBe(1);
    expect(new Set(['hobby', 'hobbies'].map(stem)).size).toBe(1);
    expect(new Set(['restaurant', 'restaurants'].map(stem)).size).toBe(1);
  });

  it('is safe for words that are Object.prototype keys', () => {
    expect(stem('constructor')).toBe('constructor');
    expect(stem('tostring')).toBe('tostr');
  });
});
