import type { Embedder } from '../port.ts';
import { l2Normalise } from '../vector.ts';
import { featureHash } from './feature-hash.ts';
import { BUILTIN_FEATURES, type BuiltinFeatures, extractFeatures } from './features.ts';

export interface BuiltinEmbedderOptions {
  dimension?: number;
  features?: Partial<BuiltinFeatures>;
}

export const DEFAULT_BUILTIN_DIMENSION = 512;

/** Bumped whenever the vectors for some text change (features, weights, hashing, tokenizer). */
export const BUILTIN_ALGORITHM_VERSION = 'v2';

/**
 * Offline, deterministic embeddings by feature hashing: every term, character n-gram and word
 * pair is hashed to a bucket with a ±1 sign (so collisions cancel on average instead of piling
 * up), weighted, and the vector is L2-normalised. No model, no downloads, microseconds per text.
 * It matches words and their variants, not meanings: paraphrases that share no stem stay apart.
 */
export class BuiltinEmbedder implements Embedder {
  readonly model: string;
  readonly dimension: number;
  private readonly features: Readonly<BuiltinFeatures>;

  constructor(options: BuiltinEmbedderOptions = {}) {
    const dimension = options.dimension ?? DEFAULT_BUILTIN_DIMENSION;
    if (!Number.isInteger(dimension) || dimension < 8 || dimension > 8192) {
      throw new RangeError(`builtin embedder dimension must be an integer in 8..8192, got ${dimension}`);
    }
    this.dimension = dimension;
    this.features = Object.freeze({ ...BUILTIN_FEATURES, ...options.features });
    // Non-default features are another model: their fingerprint keeps stores from mixing them.
    const custom = JSON.stringify(this.features) !== JSON.stringify(BUILTIN_FEATURES);
    const variant = custom ? `x${featureHash(JSON.stringify(this.features)).toString(36)}` : '';
    this.model = `builtin-${BUILTIN_ALGORITHM_VERSION}${variant}-${dimension}`;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text));
  }

  embedOne(text: string): Float32Array {
    const vector = new Float32Array(this.dimension);
    const probes = this.features.probes;
    const share = 1 / Math.sqrt(probes);
    for (const [key, weight] of extractFeatures(text, this.features)) {
      for (let p = 0; p < probes; p++) {
        const h = featureHash(key, 0x811c9dc5 + p * 0x9e3779b9);
        const bucket = (h & 0x7fffffff) % this.dimension;
        vector[bucket] = (vector[bucket] as number) + (h & 0x80000000 ? -weight : weight) * share;
      }
    }
    return l2Normalise(vector);
  }

  /** Always ready: nothing to reach, nothing to load. */
  async check(): Promise<void> {
    return;
  }
}
