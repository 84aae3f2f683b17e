/** The texts a query is soft-matched against, in order. */
export interface SoftMatchRequest {
  query: string;
  texts: readonly string[];
}

/**
 * The `SoftMatcher` port: how well each text answers a query word by word, in meaning rather than
 * spelling. Scores are in 0..1 (1: every content word of the query is in the text), one per text
 * in order, the same for the same inputs. A provider that is down throws `DependencyUnavailableError`.
 */
export interface SoftMatcher {
  softScores(request: SoftMatchRequest): Promise<number[]>;
}
