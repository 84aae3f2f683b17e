import {
  analyzeText,
  CJK_STOP_CHARS,
  type QuestionPhraseSet,
  rewriteQuestionPhrases,
  type TextToken,
} from '@hindsight/text';
import type { Embedder } from '../port.ts';
import { l2Normalise } from '../vector.ts';
import { type AnswerTypeIndex, answerKindSet } from './answer-types.ts';
import { featureHash } from './feature-hash.ts';
import {
  BUILTIN_FEATURES,
  type BuiltinFeatures,
  extractFeatures,
  LEXICAL_FEATURES,
  V4_FEATURES,
  V5_FEATURES,
  V6_FEATURES,
  V7_FEATURES,
  V8_FEATURES,
  V9_FEATURES,
  V10_FEATURES,
  V11_FEATURES,
  WORD_VECTOR_FEATURES,
} from './features.ts';
import { chineseStandInsFor, standInsFor } from './unknown-words.ts';
import { WordAligner } from './word-alignment.ts';
import { segmentChinese } from './word-vectors/chinese.ts';
import type { WordTable } from './word-vectors/word-table.ts';
import {
  type DerivedLexicon,
  loadDerivedLexicon,
  loadWordTable,
  type WordTableLocation,
} from './word-vectors/word-table-file.ts';

export interface BuiltinEmbedderOptions {
  dimension?: number;
  features?: Partial<BuiltinFeatures>;
  /** A table already loaded (several embedders in one process can share it). */
  wordTable?: WordTable;
  /** Chinese words and answer kinds derived for `wordTable` (see answer-types.ts, word-vectors/chinese.ts). */
  lexicon?: DerivedLexicon;
  /** Where the derived word table is cached (when `wordTable` is not given). */
  wordTableLocation?: WordTableLocation;
}

export const DEFAULT_BUILTIN_DIMENSION = 512;

/** Bumped whenever the vectors for some text change (features, weights, hashing, tokenizer, word table). */
export const BUILTIN_ALGORITHM_VERSION = 'v11';
/** The models of earlier releases, still served for stores built with them. */
const ANSWER_KINDS_V4_ALGORITHM_VERSION = 'v4';
const ANSWER_KINDS_V5_ALGORITHM_VERSION = 'v5';
const ANSWER_KINDS_V6_ALGORITHM_VERSION = 'v6';
const LIGHT_VERBS_V7_ALGORITHM_VERSION = 'v7';
const ANSWER_KINDS_V8_ALGORITHM_VERSION = 'v8';
const ANSWER_KINDS_V9_ALGORITHM_VERSION = 'v9';
const ANSWER_KINDS_V10_ALGORITHM_VERSION = 'v10';
const WORD_VECTOR_ALGORITHM_VERSION = 'v3';
const LEXICAL_ALGORITHM_VERSION = 'v2';

/**
 * Offline, deterministic embeddings in two blocks of one vector:
 * - word vectors (the first `min(100, dimension/2)` components): the SIF-weighted sum of the
 *   GloVe vectors of the text's words, so "cello" meets "instrument" and "husband" meets
 *   "spouse" although they share no letters;
 * - lexical features (the rest): every term, character n-gram and word pair hashed to a bucket
 *   with a ±1 sign (collisions cancel on average), so exact names, numbers, rare words,
 *   misspellings and Chinese (which has no word vectors here) still match.
 * Each block is normalised and weighed so that a pair's cosine is `wordVectors` × the word-vector
 * cosine + (1 − `wordVectors`) × the lexical one; a text without known words is lexical only.
 */
export class BuiltinEmbedder implements Embedder {
  readonly model: string;
  readonly dimension: number;
  private readonly features: Readonly<BuiltinFeatures>;
  private readonly table: WordTable | undefined;
  private readonly answerTypes: AnswerTypeIndex | undefined;
  private readonly chinese: { table: WordTable; zipfNorm: number } | undefined;
  /** Components given to word vectors; the lexical buckets are the rest. */
  private readonly semanticDimension: number;
  /** Zipf's normalising constant: p(rank r) ≈ 1 / ((r + 1) · H). */
  private readonly zipfNorm: number;
  private aligner: WordAligner | undefined;

  constructor(options: BuiltinEmbedderOptions = {}) {
    const dimension = options.dimension ?? DEFAULT_BUILTIN_DIMENSION;
    if (!Number.isInteger(dimension) || dimension < 8 || dimension > 8192) {
      throw new RangeError(`builtin embedder dimension must be an integer in 8..8192, got ${dimension}`);
    }
    this.dimension = dimension;
    const features = { ...BUILTIN_FEATURES, ...options.features };
    // Without word vectors their weighting means nothing: one lexical model, one name.
    this.features = Object.freeze(features.wordVectors === 0 ? { ...features, sif: 0 } : features);
    if (!(this.features.wordVectors >= 0 && this.features.wordVectors < 1)) {
      throw new RangeError(`builtin embedder wordVectors must be in [0, 1), got ${this.features.wordVectors}`);
    }
    this.table =
      this.features.wordVectors > 0 ? (options.wordTable ?? loadWordTable(options.wordTableLocation)) : undefined;
    const { answerTypes, chineseWords } = this.features;
    const lexicon =
      this.table && (answerTypes > 0 || chineseWords > 0)
        ? (options.lexicon ??
          loadDerivedLexicon(this.table, options.wordTableLocation, answerKindSet(this.features.answerKindSet)))
        : undefined;
    this.chinese =
      lexicon && chineseWords > 0
        ? { table: lexicon.chinese, zipfNorm: Math.log(lexicon.chinese.corpusWords) + 0.5772 }
        : undefined;
    this.answerTypes = lexicon && answerTypes > 0 ? lexicon.answerKinds : undefined;
    this.semanticDimension = this.table ? Math.min(this.table.dimension, Math.floor(dimension / 2)) : 0;
    this.zipfNorm = this.table ? Math.log(this.table.corpusWords) + 0.5772 : 1;
    this.model = modelName(this.features, dimension);
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text));
  }

  embedOne(original: string): Float32Array {
    const text =
      this.answerTypes && this.features.answerKindSet >= 5
        ? rewriteQuestionPhrases(original, questionPhraseSet(this.features.answerKindSet))
        : original;
    const vector = new Float32Array(this.dimension);
    const tokens = analyzeText(text);
    const lexical = this.lexicalBlock(tokens);
    const semantic = this.table ? this.semanticBlock(text, tokens, this.table) : undefined;
    const s = this.semanticDimension;
    if (!semantic) {
      vector.set(lexical, s);
      return l2Normalise(vector);
    }
    const semanticWeight = Math.sqrt(this.features.wordVectors);
    const lexicalWeight = Math.sqrt(1 - this.features.wordVectors);
    for (let i = 0; i < s; i++) vector[i] = semanticWeight * (semantic[i] as number);
    for (let i = 0; i < lexical.length; i++) vector[s + i] = lexicalWeight * (lexical[i] as number);
    return l2Normalise(vector);
  }

  /** Word-by-word alignment of texts with a query (word-alignment.ts); undefined without word vectors. */
  async align(query: string, texts: readonly string[]): Promise<number[] | undefined> {
    if (!this.table) return undefined;
    this.aligner ??= new WordAligner(
      this.table,
      this.answerTypes,
      this.chinese?.table,
      this.answerTypes && this.features.answerKindSet >= 5 ? questionPhraseSet(this.features.answerKindSet) : undefined,
    );
    return this.aligner.align(query, texts);
  }

  /** Always ready: the word table was loaded by the constructor, nothing else to reach. */
  async check(): Promise<void> {
    return;
  }

  /** Hashed lexical features over the components after the word-vector block, unit length. */
  private lexicalBlock(tokens: readonly TextToken[]): Float32Array {
    const buckets = this.dimension - this.semanticDimension;
    const block = new Float32Array(buckets);
    const probes = this.features.probes;
    const share = 1 / Math.sqrt(probes);
    for (const [key, weight] of extractFeatures(tokens, this.features)) {
      for (let p = 0; p < probes; p++) {
        const h = featureHash(key, 0x811c9dc5 + p * 0x9e3779b9);
        const bucket = (h & 0x7fffffff) % buckets;
        block[bucket] = (block[bucket] as number) + (h & 0x80000000 ? -weight : weight) * share;
      }
    }
    return l2Normalise(block);
  }

  /** SIF-weighted sum of the known words' vectors, unit length; undefined when no word is known. */
  private semanticBlock(text: string, tokens: readonly TextToken[], table: WordTable): Float32Array | undefined {
    const sum = new Float32Array(table.dimension);
    const a = this.features.sif;
    let known = 0;
    const kinds = new Set<Float32Array>();
    const answerTypes = this.answerTypes;
    const names = answerTypes && answerTypes.commonNouns.size > 0 ? namesIn(text, answerTypes.commonNouns) : undefined;
    for (const [at, token] of tokens.entries()) {
      if (token.kind !== 'word' || token.stop) continue;
      // A name says nothing of its bearer's kind: Pepper the dog is no herb. One given as a name
      // ("named Pepper") leaves out its vector too; a capitalised word keeps it, since in
      // conversation it is as often the thing itself.
      const name = names?.get(token.surface);
      if (name === 'given') continue;
      if (name === undefined) for (const centroid of answerTypes?.kinds.get(token.surface) ?? []) kinds.add(centroid);
      const activity = answerTypes?.activities.get(token.surface);
      if (activity) for (const centroid of activityKinds(activity, tokens, at + 1, table)) kinds.add(centroid);
      const rank = table.rank(token.surface);
      if (rank === undefined) {
        // A word the table lacks, through what stands in for it ("sheepdogs": sheep, dogs).
        const standIns = this.features.unknownWords > 0 ? standInsFor(token.surface, table) : [];
        for (const standIn of standIns) {
          if (name === undefined)
            for (const centroid of answerTypes?.kinds.get(standIn.word) ?? []) kinds.add(centroid);
          const weight = a > 0 ? a / (a + 1 / ((standIn.rank + 1) * this.zipfNorm)) : 1;
          table.addTo(sum, standIn.rank, (weight * this.features.unknownWords) / standIns.length);
        }
        if (standIns.length > 0) known++;
        continue;
      }
      const sifWeight = a > 0 ? a / (a + 1 / ((rank + 1) * this.zipfNorm)) : 1;
      const weight = LIGHT_VERBS.has(token.surface) ? sifWeight * this.features.lightVerbs : sifWeight;
      table.addTo(sum, rank, weight);
      known++;
    }
    if (this.chinese) known += this.addChineseWords(text, sum, kinds, this.chinese);
    if (known === 0) return undefined;
    if (kinds.size > 0) {
      // The kinds of answer the text asks for or names, beside its words (see answer-types.ts).
      l2Normalise(sum);
      const w = this.features.answerTypes;
      for (const centroid of kinds)
        for (let i = 0; i < sum.length; i++) sum[i] = (sum[i] as number) + w * (centroid[i] as number);
    }
    const block = foldTo(sum, this.semanticDimension);
    l2Normalise(block);
    return block.some((x) => x !== 0) ? block : undefined;
  }

  /**
   * Adds the SIF-weighted vectors of the dictionary words of the text's Han runs, and the answer
   * kinds they cue or name to `kinds`; returns how many words were added.
   */
  private addChineseWords(
    text: string,
    sum: Float32Array,
    kinds: Set<Float32Array>,
    chinese: { table: WordTable; zipfNorm: number },
  ): number {
    const a = this.features.sif;
    let known = 0;
    for (const [run] of text.matchAll(HAN_RUN)) {
      for (const rank of segmentChinese(run, chinese.table)) {
        const word = chinese.table.words[rank] as string;
        if (word.length === 1 && CJK_STOP_CHARS.has(word)) continue;
        const weight = a > 0 ? a / (a + 1 / ((rank + 1) * chinese.zipfNorm)) : 1;
        chinese.table.addTo(sum, rank, weight * this.features.chineseWords);
        for (const centroid of this.answerTypes?.kinds.get(word) ?? []) kinds.add(centroid);
        known++;
      }
      // A medicine the dictionary lacks ("硝苯地平缓释片"), through what stands in for it.
      const standIns = this.features.unknownWords > 0 ? chineseStandInsFor(run, chinese.table) : [];
      for (const standIn of standIns) {
        const weight = a > 0 ? a / (a + 1 / ((standIn.rank + 1) * chinese.zipfNorm)) : 1;
        chinese.table.addTo(sum, standIn.rank, weight * this.features.chineseWords * this.features.unknownWords);
        for (const centroid of this.answerTypes?.kinds.get(standIn.word) ?? []) kinds.add(centroid);
        known++;
      }
    }
    return known;
  }
}

const HAN_RUN = /\p{Script=Han}+/gu;

/**
 * Words that begin an object: after them an activity verb is not its activity ("runs a bakery",
 * "paints the fence", against "runs marathons", "paints landscapes").
 */
const DETERMINERS: ReadonlySet<string> = new Set('a an the his her their my our your its this that'.split(' '));

/** How close (cosine) an activity verb's object must lie to the activity for the verb to be it. */
const ACTIVITY_OBJECT_COSINE = 0.3;

/**
 * The activity kinds (`activity`) of the verb before `tokens[next]`: all of them unless its object
 * begins with a determiner; then those its object's words lie near ("runs a half marathon" is
 * running, "runs a bakery" is not).
 */
function activityKinds(
  activity: readonly Float32Array[],
  tokens: readonly TextToken[],
  next: number,
  table: WordTable,
): readonly Float32Array[] {
  if (!DETERMINERS.has(tokens[next]?.surface ?? '')) return activity;
  const kept = new Set<Float32Array>();
  const cosines = new Float64Array(activity.length);
  for (let at = next + 1; at < Math.min(tokens.length, next + 4); at++) {
    const token = tokens[at] as TextToken;
    if (token.stop) break;
    const rank = table.rank(token.surface);
    if (rank === undefined) continue;
    table.cosinesTo(rank, activity, cosines);
    activity.forEach((centroid, i) => {
      if ((cosines[i] as number) >= ACTIVITY_OBJECT_COSINE) kept.add(centroid);
    });
  }
  return [...kept];
}

/** Verbs that give a name: the word after them is one ("a dog named Pepper", "a cat called Sage"). */
const NAMING_WORDS: ReadonlySet<string> = new Set('named called nicknamed'.split(' '));

/**
 * The words (lower case) `text` uses as names, and how: `given` after a naming verb ("a dog named
 * Pepper"), `capitalised` for a common noun (`commonNouns`) written with a capital in mid-sentence
 * and not beside another capitalised word ("her daughter Rose", "two rabbits, Salt and Pepper";
 * "Riverside Hospital" and "the London Marathon" stay what they say).
 */
function namesIn(text: string, commonNouns: ReadonlySet<string>): Map<string, 'given' | 'capitalised'> {
  const names = new Map<string, 'given' | 'capitalised'>();
  const tokens = [...text.matchAll(/(\p{L}[\p{L}\p{M}]*)(?:['’]s)?|([.!?:;\n•"“(])/gu)];
  const capitalised = (i: number) => {
    const word = tokens[i]?.[1];
    return word !== undefined && /^\p{Lu}\p{Ll}/u.test(word);
  };
  const sentenceStart = (i: number) => i === 0 || tokens[i - 1]?.[2] !== undefined;
  for (let i = 0; i < tokens.length; i++) {
    const word = tokens[i]?.[1];
    if (word === undefined) continue;
    const lower = word.toLowerCase();
    const previous = tokens[i - 1]?.[1]?.toLowerCase();
    if (previous !== undefined && NAMING_WORDS.has(previous)) names.set(lower, 'given');
    else if (
      capitalised(i) &&
      !sentenceStart(i) &&
      !(capitalised(i - 1) && !sentenceStart(i - 1)) &&
      !capitalised(i + 1) &&
      commonNouns.has(lower) &&
      !names.has(lower)
    )
      names.set(lower, 'capitalised');
  }
  return names;
}

/** The question phrases a model reads beside its answer kinds (see @hindsight/text). */
function questionPhraseSet(answerKindSet: number): QuestionPhraseSet {
  if (answerKindSet >= 11) return 11;
  return answerKindSet >= 10 ? 10 : answerKindSet >= 8 ? 8 : answerKindSet >= 6 ? 6 : 5;
}

/** English light verbs (the forms that are not stop words): see `BuiltinFeatures.lightVerbs`. */
const LIGHT_VERBS: ReadonlySet<string> = new Set(
  (
    'make makes made making take takes took taken taking give gives gave given giving go goes went gone going ' +
    'put puts putting use uses used using keep keeps kept keeping get gets getting gotten'
  ).split(' '),
);

/**
 * Fits a vector into fewer components (small dimensions): component i goes to i mod n with a
 * fixed pseudo-random sign, which keeps dot products unbiased (a count sketch). Identity when it fits.
 */
function foldTo(v: Float32Array, n: number): Float32Array {
  if (n >= v.length) return v;
  const out = new Float32Array(n);
  for (let i = 0; i < v.length; i++) out[i % n] = (out[i % n] as number) + foldSign(i) * (v[i] as number);
  return out;
}

function foldSign(component: number): number {
  return featureHash(`fold:${component}`) & 1 ? -1 : 1;
}

/**
 * The default features are `builtin-v11`, v10's (v11 without stand-ins for unknown words and its phrases) `builtin-v10`, v9's (v10 without its two answer kinds and phrases) `builtin-v9`, v8's (v9 without WordNet's word forms, activities and names) `builtin-v8`, v7's (v8 with v6's answer kinds and question phrases) `builtin-v7`, v6's (v7 with light verbs weighed like other words) `builtin-v6`, v5's (v6 without its five extra answer kinds and birthday phrases) `builtin-v5`, v4's (answer kinds without WordNet) `builtin-v4`, v3's (no answer kinds, no Chinese words) `builtin-v3`,
 * the lexical-only ones `builtin-v2`; any other set is named by its fingerprint.
 */
function modelName(features: Readonly<BuiltinFeatures>, dimension: number): string {
  const same = (preset: Readonly<BuiltinFeatures>) => JSON.stringify(features) === JSON.stringify(preset);
  if (same(BUILTIN_FEATURES)) return `builtin-${BUILTIN_ALGORITHM_VERSION}-${dimension}`;
  if (same(V11_FEATURES)) return `builtin-${BUILTIN_ALGORITHM_VERSION}-${dimension}`;
  if (same(V10_FEATURES)) return `builtin-${ANSWER_KINDS_V10_ALGORITHM_VERSION}-${dimension}`;
  if (same(V9_FEATURES)) return `builtin-${ANSWER_KINDS_V9_ALGORITHM_VERSION}-${dimension}`;
  if (same(V8_FEATURES)) return `builtin-${ANSWER_KINDS_V8_ALGORITHM_VERSION}-${dimension}`;
  if (same(V7_FEATURES)) return `builtin-${LIGHT_VERBS_V7_ALGORITHM_VERSION}-${dimension}`;
  if (same(V6_FEATURES)) return `builtin-${ANSWER_KINDS_V6_ALGORITHM_VERSION}-${dimension}`;
  if (same(V5_FEATURES)) return `builtin-${ANSWER_KINDS_V5_ALGORITHM_VERSION}-${dimension}`;
  if (same(V4_FEATURES)) return `builtin-${ANSWER_KINDS_V4_ALGORITHM_VERSION}-${dimension}`;
  if (same(WORD_VECTOR_FEATURES)) return `builtin-${WORD_VECTOR_ALGORITHM_VERSION}-${dimension}`;
  if (same(LEXICAL_FEATURES)) return `builtin-${LEXICAL_ALGORITHM_VERSION}-${dimension}`;
  // Non-default features are another model: their fingerprint keeps stores from mixing them.
  const version = features.wordVectors > 0 ? BUILTIN_ALGORITHM_VERSION : LEXICAL_ALGORITHM_VERSION;
  // A feature added later at its neutral value leaves the fingerprints of earlier sets as they were.
  const fingerprinted: Partial<BuiltinFeatures> = { ...features };
  if (features.lightVerbs === 1) delete fingerprinted.lightVerbs;
  if (features.unknownWords === 0) delete fingerprinted.unknownWords;
  return `builtin-${version}x${featureHash(JSON.stringify(fingerprinted)).toString(36)}-${dimension}`;
}
