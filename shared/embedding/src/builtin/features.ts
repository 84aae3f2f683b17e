import { analyzeText, type TextToken } from '@hindsight/text';
import { buildConceptIndex } from './concepts.ts';

/**
 * What the built-in embedder counts, and how much each kind of feature weighs. The defaults
 * (`BUILTIN_FEATURES`) are what `builtin-v4-*` means, `WORD_VECTOR_FEATURES` what `builtin-v3-*`
 * and `LEXICAL_FEATURES` what `builtin-v2-*` meant; the evaluation script passes other values to measure what each idea buys.
 */
export interface BuiltinFeatures {
  /**
   * Share of the cosine that comes from word vectors (GloVe, see word-vectors/): 0 = lexical
   * features only; 0.5 = a pair's similarity is half word-vector, half lexical.
   */
  wordVectors: number;
  /**
   * Smooth inverse frequency (Arora et al. 2017): a word weighs a/(a + p(word)), p from its
   * frequency rank (Zipf), so frequent words count less. 0 = every word weighs the same.
   */
  sif: number;
  /** Whole terms: stemmed words, normalised numbers, CJK bigrams. */
  terms: number;
  /** Single CJK characters (ambiguous on their own, so usually lighter than bigrams). */
  cjkChars: number;
  /** Adjacent content-word pairs ("ice cream", "new york"). */
  wordBigrams: number;
  /** Total weight of one word's character n-grams, which survive misspellings. */
  charNgrams: number;
  /** n of the character n-grams (padded with word boundaries). */
  charNgramSize: number;
  /** 1 + ln(tf) instead of raw counts, so a repeated word does not drown the rest. */
  sublinearTf: boolean;
  /** Weigh words by a corpus-free rarity prior (length and a list of very common chat words). */
  rarityPrior: boolean;
  /** Buckets per feature; more than one spreads hash collisions (a count sketch). */
  probes: number;
  /** Weight of a word's topic groups (see concepts.ts); 0 turns the thesaurus off. */
  concepts: number;
  /**
   * Weight of the answer kinds a text asks for or names (see answer-types.ts), added to its unit
   * word-vector sum; 0 = off. Needs word vectors.
   */
  answerTypes: number;
  /**
   * Which answer kinds (see answer-types.ts): 4 = builtin-v4's (members by word-vector centroid
   * only), 5 = builtin-v5's (more kinds and cue words, members also found under WordNet hypernyms),
   * 6 = builtin-v6's (v5's and five more kinds), 8 = builtin-v8's (v6's, seven more kinds, inflections),
   * 9 = builtin-v9's (v8's, WordNet's derived forms, activities taken back by an object, names read as names),
   * 10 = builtin-v10's (v9's, faith and charity work, *trade* for an occupation), 11 = builtin-v11's
   * (v10's kinds; v11's question phrases: a partner one is seeing, an operation, a trip at a time).
   */
  answerKindSet: number;
  /**
   * Weight of the Chinese words' vectors (CC-CEDICT glosses in the GloVe space, see
   * word-vectors/chinese.ts) in the word-vector block; 0 = Chinese is lexical only.
   */
  chineseWords: number;
  /**
   * Weight, in the word-vector block, of the light verbs (make, take, give, go, put, use, keep,
   * get and their forms): they carry little meaning of their own ("takes tablets", "takes his coffee
   * black", "uses a standing desk", "uses tobacco"), yet their frequent vectors pull such facts
   * together. 1 = weighed like any word (builtin-v6 and earlier).
   */
  lightVerbs: number;
  /**
   * Weight of what stands in for a word the table lacks (unknown-words.ts): its spelling without
   * accents or British digraphs, its singular, a medicine's class by its suffix, or the two words of
   * a compound ("sheepdogs" → sheep, dogs); 0 = an unknown word has no vector (builtin-v10 and earlier).
   */
  unknownWords: number;
}

export const BASELINE_FEATURES: Readonly<BuiltinFeatures> = Object.freeze({
  wordVectors: 0,
  sif: 0,
  terms: 1,
  cjkChars: 1,
  wordBigrams: 0,
  charNgrams: 0,
  charNgramSize: 3,
  sublinearTf: false,
  rarityPrior: false,
  probes: 1,
  concepts: 0,
  answerTypes: 0,
  answerKindSet: 4,
  chineseWords: 0,
  lightVerbs: 1,
  unknownWords: 0,
});

/** What `builtin-v2-*` computes (lexical only); chosen on REALTALK with scripts/eval/embedding-recall.ts --ablation. */
export const LEXICAL_FEATURES: Readonly<BuiltinFeatures> = Object.freeze({
  wordVectors: 0,
  sif: 0,
  terms: 1,
  cjkChars: 0.5,
  wordBigrams: 0.3,
  charNgrams: 0.8,
  charNgramSize: 3,
  sublinearTf: true,
  rarityPrior: true,
  probes: 2,
  concepts: 0.5,
  answerTypes: 0,
  answerKindSet: 4,
  chineseWords: 0,
  lightVerbs: 1,
  unknownWords: 0,
});

/** What `builtin-v3-*` computes: the lexical features of v2 beside SIF-weighted word vectors. */
export const WORD_VECTOR_FEATURES: Readonly<BuiltinFeatures> = Object.freeze({
  ...LEXICAL_FEATURES,
  wordVectors: 0.5,
  sif: 1e-3,
});

/**
 * What `builtin-v4-*` computes: v3, plus the answer kinds a text asks for or names, plus Chinese
 * words in the word-vector space (chosen on the personal-facts tune split and REALTALK).
 */
export const V4_FEATURES: Readonly<BuiltinFeatures> = Object.freeze({
  ...WORD_VECTOR_FEATURES,
  answerTypes: 0.5,
  chineseWords: 1,
});

/**
 * What `builtin-v5-*` computes: v4 with v5's answer kinds (more kinds and cue words, members also
 * found under WordNet hypernyms; chosen on the personal-facts tune split and REALTALK).
 */
export const V5_FEATURES: Readonly<BuiltinFeatures> = Object.freeze({
  ...V4_FEATURES,
  answerKindSet: 5,
});

/**
 * What `builtin-v6-*` computes: v5 with v6's answer kinds (birthday, education, residence,
 * pastime and smoking besides v5's).
 */
export const V6_FEATURES: Readonly<BuiltinFeatures> = Object.freeze({
  ...V5_FEATURES,
  answerKindSet: 6,
});

/**
 * What `builtin-v7-*` computes: v6 with the light verbs left out of the word-vector block (see
 * `lightVerbs`; chosen on the personal-facts tune and held-out splits, REALTALK unchanged).
 */
export const V7_FEATURES: Readonly<BuiltinFeatures> = Object.freeze({
  ...V6_FEATURES,
  lightVerbs: 0,
});

/**
 * What `builtin-v8-*` computes: v7 with v8's answer kinds (sleep, surgery, eyesight, dairy, herbs,
 * sports teams and aims besides v6's, listed words' inflections counted as listed) and question
 * phrases (where someone grew up or comes from, 哪里人).
 */
export const V8_FEATURES: Readonly<BuiltinFeatures> = Object.freeze({
  ...V7_FEATURES,
  answerKindSet: 8,
});

/**
 * What `builtin-v9-*` computes: v8 with v9's answer kinds (the verbs and adjectives WordNet derives
 * from the listed words, an activity verb followed by its object's determiner not read as the
 * activity) and words used as names read as names (after "named": no kinds, no vector; a common noun
 * capitalised in mid-sentence: no kinds).
 */
export const V9_FEATURES: Readonly<BuiltinFeatures> = Object.freeze({
  ...V8_FEATURES,
  answerKindSet: 9,
});

/**
 * What `builtin-v10-*` computes: v9 with v10's answer kinds (faith and charity work; *trade* asks
 * for an occupation) and question phrases (a number of years read as an
 * age, "how old", where someone is based, how someone gets around, free time, other half).
 */
export const V10_FEATURES: Readonly<BuiltinFeatures> = Object.freeze({
  ...V9_FEATURES,
  answerKindSet: 10,
});

/**
 * What `builtin-v11-*` computes: v10 with stand-ins for the words the table lacks ("sheepdogs" →
 * sheep, dogs; "sertraline" → medication; "colour" spelt "color") and v11's question phrases
 * ("im 26" is an age, *seeing* someone a partner, an operation surgery, "going to Nashville in
 * March" a trip, "what's her cat called?" a name).
 */
export const V11_FEATURES: Readonly<BuiltinFeatures> = Object.freeze({
  ...V10_FEATURES,
  answerKindSet: 11,
  unknownWords: 1,
});

/** The default model's features (`BUILTIN_ALGORITHM_VERSION`). */
export const BUILTIN_FEATURES: Readonly<BuiltinFeatures> = V11_FEATURES;

/** Built once: the thesaurus is immutable, stemming it per text would waste time. */
const CONCEPTS = buildConceptIndex();

/** Weighted sparse features of a text (or its tokens): feature key → weight. Keys are namespaced by kind. */
export function extractFeatures(
  text: string | readonly TextToken[],
  f: Readonly<BuiltinFeatures>,
): Map<string, number> {
  const tokens = typeof text === 'string' ? analyzeText(text) : text;
  const counts = new Map<string, number>();
  const add = (key: string, weight: number) => {
    if (weight > 0) counts.set(key, (counts.get(key) ?? 0) + weight);
  };
  let previous: TextToken | undefined;
  for (const token of tokens) {
    if (token.stop) {
      continue;
    }
    if (token.kind === 'cjk-char') {
      add(`t:${token.term}`, f.cjkChars);
      continue;
    }
    const prior = f.rarityPrior ? rarity(token) : 1;
    add(`t:${token.term}`, f.terms * prior);
    if (f.concepts > 0 && token.kind === 'word') {
      for (const group of CONCEPTS.get(token.term) ?? []) add(`k:${group}`, f.concepts);
    }
    if (token.kind === 'word' && f.charNgrams > 0) addCharNgrams(token.surface, f, prior, add);
    if (f.wordBigrams > 0 && token.kind !== 'cjk-bigram') {
      if (previous) add(`b:${previous.term} ${token.term}`, f.wordBigrams);
      previous = token;
    }
  }
  if (!f.sublinearTf) return counts;
  // Sublinear scaling on the accumulated weight keeps the ratio between kinds of features.
  for (const [key, weight] of counts) counts.set(key, weight > 1 ? 1 + Math.log(weight) : weight);
  return counts;
}

function addCharNgrams(
  surface: string,
  f: Readonly<BuiltinFeatures>,
  prior: number,
  add: (key: string, weight: number) => void,
): void {
  const padded = `<${surface}>`;
  const n = f.charNgramSize;
  if (padded.length < n + 1) return;
  const grams = padded.length - n + 1;
  // Each gram gets weight/sqrt(grams): a word's n-grams together weigh like `charNgrams` in norm.
  const weight = (f.charNgrams * prior) / Math.sqrt(grams);
  for (let i = 0; i < grams; i++) add(`c:${padded.slice(i, i + n)}`, weight);
}

/** Very common chat words that are not stop words but say little about a topic. */
const COMMON_WORDS: ReadonlySet<string> = new Set(
  (
    'good great nice thing time day go going went know think thought want like love feel make made see look ' +
    'come well thank thanks sure right way lot little big new back today tomorrow yesterday week say said tell told ' +
    'people year work fun cool awesome amazing maybe probably actually definitely pretty kind sound sounds seem'
  )
    .split(' ')
    .map((w) => analyzeText(w)[0]?.term ?? w),
);

/**
 * A corpus-free stand-in for IDF: long words are rarer than short ones (Zipf), and a short list
 * of everyday chat words is damped. Numbers keep full weight (dates, ages, prices are specific).
 */
function rarity(token: TextToken): number {
  if (token.kind !== 'word') return 1;
  if (COMMON_WORDS.has(token.term)) return 0.35;
  const n = token.surface.length;
  return n <= 3 ? 0.7 : n <= 5 ? 0.9 : n <= 8 ? 1 : 1.15;
}
