import type { SoftMatcher } from '@hindsight/embedding';
import type { Logger } from '@hindsight/logger';
import type { Ranked } from './hit-scoring.ts';
import { roundScore } from './hit-scoring.ts';
import { type SearchDeadline, TIMED_OUT } from './search-deadline.ts';

/**
 * Word-level soft matching of conversation turns (issue 11): the best turns found by dense and
 * keyword evidence are scored once more, word by word, by how well each content word of the
 * question meets a word of the turn in meaning (the embedder's word vectors), and that score
 * reorders them. A sentence vector averages a turn's words away and BM25 needs the same word;
 * "What instrument does Kate play?" is answered by "I've been practising the cello".
 */
export interface SoftMatchSettings {
  /** Share of a turn's relevance decided by its soft match (0 turns the stage off). */
  weight: number;
  /** How many of the best turns are soft-matched. */
  candidates: number;
}

export const DEFAULT_SOFT_MATCH: SoftMatchSettings = { weight: 0.35, candidates: 100 };

/**
 * Reorders `hits` (sorted best first) in place: each of the best `candidates` turns (`isTurn`)
 * keeps `1 − weight` of its relevance and gains `weight` × its soft match × the best relevance, so
 * it moves among the turns near it and never above relevance 1; the turns below them, which were
 * not matched, keep `1 − weight` of theirs (as if they matched nothing). Memories that are not
 * turns are untouched. A matcher that fails or misses the deadline leaves the order as it was.
 */
export async function softRerank(
  query: string,
  hits: Ranked[],
  isTurn: (hit: Ranked) => boolean,
  matcher: SoftMatcher,
  settings: SoftMatchSettings,
  deadline: SearchDeadline,
  log: Logger,
): Promise<void> {
  if (settings.weight <= 0 || settings.candidates <= 0) return;
  const turns = hits.filter(isTurn);
  if (turns.length === 0) return;
  const matched = turns.slice(0, settings.candidates);
  let scores: number[] | typeof TIMED_OUT;
  try {
    scores = await deadline.race(matcher.softScores({ query, texts: matched.map((h) => h.content) }));
  } catch (error) {
    log.warn({ err: error }, 'soft matching failed: turns keep their order');
    return;
  }
  if (scores === TIMED_OUT) return;
  const top = matched.reduce((best, h) => Math.max(best, h.relevance), 0);
  const w = settings.weight;
  for (const [i, hit] of matched.entries()) rescale(hit, (1 - w) * hit.relevance + w * top * (scores[i] ?? 0));
  for (const hit of turns.slice(settings.candidates)) rescale(hit, (1 - w) * hit.relevance);
}

/** A new relevance, and the score with the same adjustment (confidence, recency, category, decay) as before. */
function rescale(hit: Ranked, relevance: number): void {
  const factor = hit.relevance > 0 ? hit.score / hit.relevance : 0;
  hit.relevance = relevance;
  hit.score = roundScore(relevance * factor);
}
