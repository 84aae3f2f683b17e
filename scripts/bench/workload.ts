import { seededRandom } from '@hindsight/testing';

/**
 * Deterministic synthetic memories and queries for the benchmarks. Words are drawn from a
 * 6,000-word pseudo-vocabulary with a Zipf distribution (s = 1.05), like natural text: a few very
 * common terms match many memories, most terms match few — so keyword search does realistic work
 * instead of matching everything (tiny vocabulary) or nothing (random strings).
 */

const SYLLABLES = 'ka lo mi nu pe ra si to vu wa be de fi go hu ja ke li mo ne pa qui ro su te va xo yo za ci'.split(
  ' ',
);
const VOCABULARY_SIZE = 6000;
const ZIPF_S = 1.05;

export class Workload {
  private readonly words: string[];
  private readonly cumulative: Float64Array;
  private readonly random: () => number;

  constructor(
    readonly users: number,
    seed = 7,
  ) {
    this.random = seededRandom(seed);
    const vocabularyRandom = seededRandom(seed ^ 0x5eed);
    const seen = new Set<string>();
    this.words = [];
    while (this.words.length < VOCABULARY_SIZE) {
      const length = 2 + Math.floor(vocabularyRandom() * 3);
      let word = '';
      for (let i = 0; i < length; i++) word += SYLLABLES[Math.floor(vocabularyRandom() * SYLLABLES.length)];
      if (!seen.has(word)) {
        seen.add(word);
        this.words.push(word);
      }
    }
    this.cumulative = new Float64Array(VOCABULARY_SIZE);
    let total = 0;
    for (let rank = 0; rank < VOCABULARY_SIZE; rank++) {
      total += 1 / (rank + 1) ** ZIPF_S;
      this.cumulative[rank] = total;
    }
    for (let rank = 0; rank < VOCABULARY_SIZE; rank++)
      this.cumulative[rank] = (this.cumulative[rank] as number) / total;
  }

  userId(index: number): string {
    return `bench-user-${String(index).padStart(3, '0')}`;
  }

  randomUser(): string {
    return this.userId(Math.floor(this.random() * this.users));
  }

  /** A memory of 8–30 words; `serial` makes every one distinct (no dedup short-cuts). */
  memory(serial: number): string {
    return `${this.sentence(8 + Math.floor(this.random() * 23))} (note ${serial})`;
  }

  /** A query of 3–9 words from the same distribution. */
  query(): string {
    return this.sentence(3 + Math.floor(this.random() * 7));
  }

  private sentence(words: number): string {
    const out: string[] = [];
    for (let i = 0; i < words; i++) out.push(this.word());
    return out.join(' ');
  }

  private word(): string {
    const target = this.random();
    let lo = 0;
    let hi = VOCABULARY_SIZE - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.cumulative[mid] as number) < target) lo = mid + 1;
      else hi = mid;
    }
    return this.words[lo] as string;
  }
}
