import type { Embedder } from '@hindsight/embedding';
import type { SimilarityBackground } from './ranking.ts';
import { BACKGROUND_TEXTS, backgroundOf } from './similarity-background.ts';

/**
 * The search's best facts, reranked by how their words align with the query's (late interaction,
 * shared/embedding/src/builtin/word-alignment.ts), where the embedder has word vectors: a fact's
 * similarity becomes the mean of its cosine and its alignment, weighed by `weight`, and the
 * query's background is measured the same way on the everyday sentences, so the score still reads
 * as relevance above chance. Conversation turns keep their cosine (on dialogue the words of the
 * exchange decide, see dialogue-focus.ts).
 */
export interface AlignedSimilarities {
  /** Candidate id → similarity blended with its alignment. */
  similarity: ReadonlyMap<string, number>;
  /** The background of the blended similarity. */
  background: SimilarityBackground;
}

/** Candidates aligned per search: the best by score, past what a top_k of 10 returns. */
export const ALIGNED_CANDIDATES = 12;

export async function alignedSimilarities(
  embedder: Pick<Embedder, 'align'>,
  query: string,
  candidates: ReadonlyArray<{ id: string; content: string; similarity: number }>,
  backgroundSimilarities: readonly number[],
  weight: number,
): Promise<AlignedSimilarities | undefined> {
  if (!embedder.align || weight <= 0 || candidates.length === 0) return undefined;
  const scores = await embedder.align(query, [...candidates.map((c) => c.content), ...BACKGROUND_TEXTS]);
  if (!scores || scores.length !== candidates.length + BACKGROUND_TEXTS.length) return undefined;
  const blend = (cosine: number, aligned: number) => (cosine + weight * aligned) / (1 + weight);
  const similarity = new Map(candidates.map((c, i) => [c.id, blend(c.similarity, scores[i] as number)]));
  const background = backgroundSimilarities.map((cosine, i) => blend(cosine, scores[candidates.length + i] as number));
  return { similarity, background: backgroundOf(background) };
}
