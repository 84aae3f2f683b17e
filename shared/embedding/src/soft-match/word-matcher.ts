import { analyzeText } from '@hindsight/text';
import type { WordTable } from '../builtin/word-vectors/word-table.ts';
import { l2Normalise } from '../vector.ts';
import type { SoftMatcher, SoftMatchRequest } from './port.ts';

export interface WordMatchSettings {
  /** Word cosines at or below this count as no match; above it they are rescaled to 0..1. */
  floor: number;
}

export const DEFAULT_WORD_MATCH: WordMatchSettings = { floor: 0.3 };

/** A query word: its weight (rarer words weigh more) and its unit vector when the table knows it. */
interface QueryWord {
  surface: string;
  term: string;
  weight: number;
  unit: Float32Array | undefined;
}

/**
 * Word-level soft matching over the GloVe word table: each content word of the query is matched
 * with the most similar word of a text (1 for the same word or stem, the rescaled cosine of their
 * vectors otherwise), and the text's score is the mean of those matches weighed by how rare each
 * query word is. "Which instrument does she play?" meets "I practised the cello all week" through
 * instrument ~ cello and play ~ practised, where a sentence vector averages them away.
 */
export class WordSoftMatcher implements SoftMatcher {
  private readonly zipfNorm: number;
  private readonly unknownWeight: number;

  constructor(
    private readonly table: WordTable,
    private readonly settings: WordMatchSettings = DEFAULT_WORD_MATCH,
  ) {
    this.zipfNorm = Math.log(table.corpusWords) + 0.5772;
    this.unknownWeight = Math.log(table.corpusWords * this.zipfNorm);
  }

  async softScores(request: SoftMatchRequest): Promise<number[]> {
    return this.scoreTexts(request.query, request.texts);
  }

  /** One score in 0..1 per text, in order; 0s when the query has no content word. */
  scoreTexts(query: string, texts: readonly string[]): number[] {
    const words = this.queryWords(query);
    if (words.length === 0) return texts.map(() => 0);
    const units = words.filter((w) => w.unit !== undefined).map((w) => w.unit as Float32Array);
    const unitIndex = words.map((w) => (w.unit === undefined ? -1 : units.indexOf(w.unit)));
    const total = words.reduce((sum, w) => sum + w.weight, 0);
    // Cosines of a text word against every query word, computed once per request.
    const cosines = new Map<string, Float64Array | null>();
    const floor = this.settings.floor;
    return texts.map((text) => {
      const best = new Float64Array(words.length);
      for (const token of analyzeText(text)) {
        if (token.stop || (token.kind !== 'word' && token.kind !== 'number')) continue;
        for (let q = 0; q < words.length; q++) {
          const word = words[q] as QueryWord;
          if (token.term === word.term || token.surface === word.surface) best[q] = 1;
        }
        if (token.kind !== 'word' || units.length === 0) continue;
        let row = cosines.get(token.surface);
        if (row === undefined) {
          const rank = this.table.rank(token.surface);
          row = rank === undefined ? null : new Float64Array(units.length);
          if (rank !== undefined && row) this.table.cosinesTo(rank, units, row);
          cosines.set(token.surface, row);
        }
        if (row === null) continue;
        for (let q = 0; q < words.length; q++) {
          const u = unitIndex[q] as number;
          if (u < 0) continue;
          const match = Math.max(0, ((row[u] as number) - floor) / (1 - floor));
          if (match > (best[q] as number)) best[q] = match;
        }
      }
      let score = 0;
      for (let q = 0; q < words.length; q++) score += (words[q] as QueryWord).weight * (best[q] as number);
      return score / total;
    });
  }

  private queryWords(query: string): QueryWord[] {
    const seen = new Set<string>();
    const words: QueryWord[] = [];
    for (const token of analyzeText(query)) {
      if (token.stop || (token.kind !== 'word' && token.kind !== 'number') || seen.has(token.term)) continue;
      seen.add(token.term);
      const rank = token.kind === 'word' ? this.table.rank(token.surface) : undefined;
      let unit: Float32Array | undefined;
      if (rank !== undefined) {
        unit = new Float32Array(this.table.dimension);
        this.table.addTo(unit, rank, 1);
        l2Normalise(unit);
        if (!unit.some((x) => x !== 0)) unit = undefined;
      }
      const weight = rank === undefined ? this.unknownWeight : Math.log((rank + 1) * this.zipfNorm);
      words.push({ surface: token.surface, term: token.term, weight, unit });
    }
    return words;
  }
}
