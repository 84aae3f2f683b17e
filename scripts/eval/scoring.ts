/**
 * Retrieval scoring as the literature does it on LoCoMo/REALTALK: per question, recall@k is the
 * share of its evidence dia_ids found among the top k results; MRR uses the rank of the first
 * result that holds any evidence. Both are averaged per category and overall.
 */

export interface QuestionScore {
  category: number;
  /** k → recall. */
  recall: Record<number, number>;
  reciprocalRank: number;
}

export interface ScoreSummary {
  questions: number;
  /** k → mean recall. */
  recall: Record<number, number>;
  mrr: number;
}

/**
 * Scores one ranked answer. `ranked[i]` is the set of dia_ids the i-th result stands for (a
 * memory holds several when identical turns were stored once as duplicates).
 */
export function scoreQuestion(
  category: number,
  evidence: readonly string[],
  ranked: ReadonlyArray<readonly string[]>,
  ks: readonly number[],
): QuestionScore {
  const wanted = new Set(evidence);
  const recall: Record<number, number> = {};
  const found = new Set<string>();
  let reciprocalRank = 0;
  let position = 0;
  for (const k of [...ks].sort((a, b) => a - b)) {
    for (; position < Math.min(k, ranked.length); position++) {
      for (const id of ranked[position] as readonly string[]) {
        if (!wanted.has(id)) continue;
        found.add(id);
        if (reciprocalRank === 0) reciprocalRank = 1 / (position + 1);
      }
    }
    recall[k] = wanted.size === 0 ? 0 : found.size / wanted.size;
  }
  return { category, recall, reciprocalRank };
}

export function summarise(scores: readonly QuestionScore[], ks: readonly number[]): ScoreSummary {
  const recall: Record<number, number> = {};
  for (const k of ks) recall[k] = mean(scores.map((s) => s.recall[k] ?? 0));
  return { questions: scores.length, recall, mrr: mean(scores.map((s) => s.reciprocalRank)) };
}

/** Overall and per-category summaries (categories in ascending order). */
export function summariseByCategory(
  scores: readonly QuestionScore[],
  ks: readonly number[],
): { overall: ScoreSummary; byCategory: Record<string, ScoreSummary> } {
  const groups = new Map<number, QuestionScore[]>();
  for (const score of scores) {
    const group = groups.get(score.category);
    if (group) group.push(score);
    else groups.set(score.category, [score]);
  }
  const byCategory: Record<string, ScoreSummary> = {};
  for (const category of [...groups.keys()].sort((a, b) => a - b)) {
    byCategory[String(category)] = summarise(groups.get(category) as QuestionScore[], ks);
  }
  return { overall: summarise(scores, ks), byCategory };
}

/** A figure as reports show it: three decimals. */
export function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** Nearest-rank percentile (p in 0..100) of unsorted samples; 0 for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}
