import { dot, type Embedder } from '@hindsight/embedding';
import type { SimilarityBackground } from './ranking.ts';

/**
 * Everyday sentences about nothing in particular, in English and Chinese: what "unrelated" looks
 * like to an embedder. A query's similarity to them is its background — how similar any text is
 * to it by accident — which depends on the embedder (hashed features sit near 0, averaged word
 * vectors near 0.4) and on the query (short or common-word queries sit higher).
 */
export const BACKGROUND_TEXTS: readonly string[] = [
  'The weather was cold and rainy all week.',
  'I need to buy groceries after work.',
  'The meeting was moved to Thursday afternoon.',
  'He watched a documentary about ancient Rome.',
  'The train was delayed by twenty minutes.',
  'She painted the fence in the back garden.',
  'We ordered pizza for dinner last night.',
  'The printer in the office is broken again.',
  'They went hiking in the mountains on Sunday.',
  'My phone battery dies very quickly.',
  'The museum opens at nine in the morning.',
  'I forgot my umbrella at the restaurant.',
  'The kids played football in the park.',
  'He is reading a novel about a detective.',
  'The rent is due at the end of the month.',
  'She bought a new laptop for school.',
  'The concert tickets sold out in an hour.',
  'We planted tomatoes and basil this spring.',
  'The bus stop is next to the bakery.',
  'Our neighbour has a very loud dog.',
  'The user asked how to reset a password.',
  'Traffic on the bridge was terrible this morning.',
  'The package arrived two days late.',
  'I have a dentist appointment next Tuesday.',
  '今天的天气很冷，一直在下雨。',
  '我下班以后要去超市买菜。',
  '会议改到了星期四下午。',
  '他昨天看了一部关于历史的纪录片。',
  '火车晚点了二十分钟。',
  '我们晚上点了外卖披萨。',
  '孩子们在公园里踢足球。',
  '房租每个月底要交。',
];

/**
 * The background vectors of one embedder, embedded on first use and kept (a failed attempt is
 * retried by the next search). Stateless apart from this cache of a pure function of the model.
 */
export class SimilarityBackgrounds {
  private vectors: Promise<Float32Array[]> | undefined;

  constructor(private readonly embedder: Pick<Embedder, 'embed'>) {}

  /** The query's background, or undefined when the background texts could not be embedded. */
  async of(queryVector: Float32Array): Promise<(SimilarityBackground & { similarities: number[] }) | undefined> {
    this.vectors ??= this.embedder.embed(BACKGROUND_TEXTS);
    let vectors: Float32Array[];
    try {
      vectors = await this.vectors;
    } catch {
      // The embedder is down: this search has no query vector either; the next one tries again.
      this.vectors = undefined;
      return undefined;
    }
    const similarities = vectors.map((v) => dot(queryVector, v));
    return { ...backgroundOf(similarities), similarities };
  }
}

/** The mean and standard deviation of a query's similarities to the background texts. */
export function backgroundOf(similarities: readonly number[]): SimilarityBackground {
  const mean = similarities.reduce((sum, s) => sum + s, 0) / similarities.length;
  const variance = similarities.reduce((sum, s) => sum + (s - mean) ** 2, 0) / similarities.length;
  return { mean, deviation: Math.sqrt(variance) };
}
