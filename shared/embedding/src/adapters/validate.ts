import { l2Normalise } from '../vector.ts';

/**
 * Checks a provider's vectors before anyone stores them: a wrong count, a wrong dimension or a
 * non-finite number would silently corrupt an index. Returns unit-length Float32Arrays.
 */
export function validateVectors(
  raw: readonly unknown[],
  expectedCount: number,
  expectedDimension: number | undefined,
): Float32Array[] {
  if (raw.length !== expectedCount) {
    throw new MalformedEmbeddingsError(`returned ${raw.length} vectors for ${expectedCount} inputs`);
  }
  return raw.map((vector, i) => {
    if (!Array.isArray(vector) && !(vector instanceof Float32Array)) {
      throw new MalformedEmbeddingsError(`vector ${i} is not an array of numbers`);
    }
    if (vector.length === 0) throw new MalformedEmbeddingsError(`vector ${i} is empty`);
    if (expectedDimension !== undefined && vector.length !== expectedDimension) {
      throw new MalformedEmbeddingsError(`vector ${i} has dimension ${vector.length}, expected ${expectedDimension}`);
    }
    const out = new Float32Array(vector.length);
    for (let j = 0; j < vector.length; j++) {
      const x: unknown = vector[j];
      if (typeof x !== 'number' || !Number.isFinite(x)) {
        throw new MalformedEmbeddingsError(`vector ${i} has a non-numeric value at position ${j}`);
      }
      out[j] = x;
    }
    return l2Normalise(out);
  });
}

export class MalformedEmbeddingsError extends Error {
  constructor(message: string) {
    super(`malformed embeddings response: ${message}`);
    this.name = 'MalformedEmbeddingsError';
  }
}
