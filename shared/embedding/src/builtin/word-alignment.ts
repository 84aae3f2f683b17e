import { analyzeText, type QuestionPhraseSet, rewriteQuestionPhrases } from '@hindsight/text';
import type { AnswerTypeIndex } from './answer-types.ts';
import { segmentChinese } from './word-vectors/chinese.ts';
import type { WordTable } from './word-vectors/word-table.ts';

/**
 * How well each word of a query is matched by some word of a text: for every content word of the
 * query, the best cosine of its word vector with one of the text's words (or full credit when the
 * two name the same answer kind: "instrument" and "cello"), averaged with the query words' SIF
 * weights — a late-interaction score (ColBERT's MaxSim over GloVe vectors). An averaged sentence
 * vector blurs a short paraphrase into its background ("Where can I find her midweek after
 * dinner?" against "sings alto in the parish choir on Thursday evenings"); aligned word by word,
 * midweek meets Thursday and dinner evenings. English words by the GloVe table, Chinese words by
 * their gloss vectors in the same space.
 */
export interface WordAlignment {
  /** One score in [0, 1] per text, in order: 0 when either side has no known content word. */
  align(query: string, texts: readonly string[]): number[];
}

/** A content word: its unit vector, its answer kinds and its SIF weight. */
interface Unit {
  vector: Float32Array;
  kinds: readonly Float32Array[];
  weight: number;
}

/** SIF's smoothing constant: a word's weight is a / (a + p(word)). */
const SIF = 1e-3;
/** What two words of the same answer kind count as, at least. */
const SAME_KIND = 0.8;
/** Texts whose words are kept (memories are aligned against query after query). */
const CACHED_TEXTS = 20_000;
/** Single characters that carry no meaning of their own in a Chinese run. */
const CHINESE_PARTICLES = new Set([...'的了是在有和我你他她它们吗呢吧啊也都就还']);
/** A question's "at her home" (她家有…, 家里有…): the household the question is about, not what it asks for. */
const HOUSEHOLD_ZH: ReadonlySet<string> = new Set(['家', '家里', '家中', '家里头']);

export class WordAligner implements WordAlignment {
  private readonly vectors = new Map<string, Float32Array>();
  private readonly texts = new Map<string, Unit[]>();
  private readonly zipfNorm: number;
  private readonly chineseZipfNorm: number;

  constructor(
    private readonly table: WordTable,
    private readonly answerTypes: AnswerTypeIndex | undefined,
    private readonly chinese: WordTable | undefined,
    private readonly questionPhrases: QuestionPhraseSet | undefined,
  ) {
    this.zipfNorm = Math.log(table.corpusWords) + 0.5772;
    this.chineseZipfNorm = chinese ? Math.log(chinese.corpusWords) + 0.5772 : 1;
  }

  align(query: string, texts: readonly string[]): number[] {
    const asked = this.units(query, false);
    const total = asked.reduce((sum, unit) => sum + unit.weight, 0);
    return texts.map((text) => {
      const said = this.units(text, true);
      if (total === 0 || said.length === 0) return 0;
      let matched = 0;
      for (const unit of asked) matched += unit.weight * bestMatch(unit, said);
      return Math.max(0, matched / total);
    });
  }

  /** The content words of a text, kept for texts seen again (memories, not queries). */
  private units(text: string, cache: boolean): Unit[] {
    const known = this.texts.get(text);
    if (known) return known;
    const units = this.read(text, !cache);
    if (cache) {
      if (this.texts.size >= CACHED_TEXTS) this.texts.delete(this.texts.keys().next().value as string);
      this.texts.set(text, units);
    }
    return units;
  }

  /** A question's phrases are read as the kinds they ask for ("what does she do" → occupation); a memory's words as said. */
  private read(original: string, question: boolean): Unit[] {
    const text = question && this.questionPhrases ? rewriteQuestionPhrases(original, this.questionPhrases) : original;
    const units: Unit[] = [];
    for (const token of analyzeText(text)) {
      if (token.kind !== 'word' || token.stop) continue;
      const rank = this.table.rank(token.surface);
      if (rank === undefined) continue;
      units.push(this.unit('en', this.table, rank, token.surface, this.zipfNorm));
    }
    const chinese = this.chinese;
    if (chinese) {
      const household: Unit[] = [];
      for (const [run] of text.matchAll(/\p{Script=Han}+/gu)) {
        for (const rank of segmentChinese(run, chinese)) {
          const word = chinese.words[rank] as string;
          if (word.length === 1 && CHINESE_PARTICLES.has(word)) continue;
          const unit = this.unit('zh', chinese, rank, word, this.chineseZipfNorm);
          // 家 keeps every kind: alone in a question (她家在哪儿) it asks for the home as much as the family.
          if (question && HOUSEHOLD_ZH.has(word)) household.push(unit);
          units.push(question && !HOUSEHOLD_ZH.has(word) ? askedKinds(unit) : unit);
        }
      }
      // 她家有宠物吗 asks whether she has a pet: 家 is where, not what (她家在哪儿 keeps it, having nothing else).
      if (household.length > 0 && household.length < units.length) return units.filter((u) => !household.includes(u));
    }
    return units;
  }

  private unit(language: string, table: WordTable, rank: number, word: string, zipfNorm: number): Unit {
    const key = `${language}:${rank}`;
    let vector = this.vectors.get(key);
    if (!vector) {
      vector = new Float32Array(table.dimension);
      table.addTo(vector, rank, 1);
      let norm = 0;
      for (const x of vector) norm += x * x;
      norm = Math.sqrt(norm) || 1;
      for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) / norm;
      this.vectors.set(key, vector);
    }
    const weight = SIF / (SIF + 1 / ((rank + 1) * zipfNorm));
    return { vector, kinds: this.answerTypes?.kinds.get(word) ?? [], weight };
  }
}

/**
 * A Chinese question word asks for the kind it lies nearest, not every kind of its glosses: 宠物
 * ("pet", "domestic animal") is a pet and, by "domestic", a home, and a question about pets then
 * found every fact naming a building. Kinds within ASKED_KIND_MARGIN of the nearest stay.
 */
function askedKinds(unit: Unit): Unit {
  if (unit.kinds.length < 2) return unit;
  const closeness = unit.kinds.map((kind) => {
    let similarity = 0;
    for (let i = 0; i < kind.length; i++) similarity += (kind[i] as number) * (unit.vector[i] as number);
    return similarity;
  });
  const nearest = Math.max(...closeness);
  return { ...unit, kinds: unit.kinds.filter((_, i) => (closeness[i] as number) >= nearest - ASKED_KIND_MARGIN) };
}
const ASKED_KIND_MARGIN = 0.03;

/** The best similarity of one query word with any word of the text. */
function bestMatch(asked: Unit, said: readonly Unit[]): number {
  let best = 0;
  for (const unit of said) {
    let similarity = 0;
    const a = asked.vector;
    const b = unit.vector;
    for (let i = 0; i < a.length; i++) similarity += (a[i] as number) * (b[i] as number);
    if (similarity < SAME_KIND && asked.kinds.some((kind) => unit.kinds.includes(kind))) similarity = SAME_KIND;
    if (similarity > best) best = similarity;
  }
  return best;
}
