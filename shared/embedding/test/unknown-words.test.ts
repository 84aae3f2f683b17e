import { describe, expect, it } from 'vitest';
import { standInsFor } from '../src/builtin/unknown-words.ts';
import { loadWordTable } from '../src/index.ts';

const table = loadWordTable();
const standIns = (word: string) => standInsFor(word, table).map((s) => s.word);

describe('stand-ins for the words the word table lacks (builtin-v11)', () => {
  it.each([
    ['sheepdogs', ['sheepdog']],
    ['labradors', ['labrador']],
    ['woodstove', ['wood', 'stove']],
    ['flatmates', ['flat', 'mates']],
    ['sertraline', ['medication']],
    ['atorvastatin', ['medication']],
  ])('%s stands in as %j', (word, expected) => {
    expect(table.rank(word)).toBeUndefined();
    expect(standIns(word)).toEqual(expected);
  });

  it('reads accents away and a British spelling the American way', () => {
    expect(standIns('fiancée')).toEqual(['fiancee']);
    expect(standIns('coeliac')).toEqual(['celiac']);
    expect(standIns('paediatrician')).toEqual(['pediatrician']);
  });

  it('has none for a name or a string in no dictionary, nor splits short parts', () => {
    expect(standIns('xqzvbnt')).toEqual([]);
    expect(standIns('pennock')).toEqual([]);
    // "dog" is too short a part to split "dogwalker" on.
    expect(standIns('dogwalker')).toEqual([]);
  });
});
