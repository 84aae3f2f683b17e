import { describe, expect, it } from 'vitest';
import { chineseStandInsFor, standInsFor } from '../src/builtin/unknown-words.ts';
import { loadDerivedLexicon, loadWordTable } from '../src/index.ts';

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

describe('stand-ins for the Chinese medicines the dictionary lacks (builtin-v11)', () => {
  it('reads a generic name by its ending and a dosage form as 药物, and nothing else', () => {
    const { chinese } = loadDerivedLexicon(table);
    const standIns = (run: string) => chineseStandInsFor(run, chinese).map((s) => s.word);
    for (const run of [
      '她每天早上吃一片硝苯地平缓释片',
      '塞来昔布',
      '随身带着沙丁胺醇喷雾',
      '二甲双胍',
      '阿莫西林胶囊',
    ]) {
      expect(standIns(run), run).toEqual(['药物']);
    }
    for (const run of ['我怕蛇看到图片都不行', '他在华为做芯片', '松花江上的渔民', '她有两只猫']) {
      expect(standIns(run), run).toEqual([]);
    }
  });
});
