/**
 * The `Embedder` port: text in, unit-length vectors out.
 *
 * Contract (every adapter: builtin, openai-compatible, remote embedder service):
 * - `embed(texts)` returns one Float32Array of length `dimension` per input, in order,
 *   L2-normalised (so a dot product is the cosine similarity).
 * - The same text under the same `model` always gives the same vector.
 * - A provider that is down throws `DependencyUnavailableError` naming the provider and the cause.
 * - `check()` resolves when the provider can embed now (used by `/ready`).
 * - `forget(texts)`, where a layer caches vectors, drops the cached vectors of exactly these
 *   texts in every tier it owns and in the layers it wraps (user erasure), answering how many
 *   cache entries went; a layer without a cache passes the call on or answers 0.
 */
export interface Embedder {
  /** Identifies model + version; stores record it and refuse to mix models. */
  readonly model: string;
  readonly dimension: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  check(): Promise<void>;
  close?(): Promise<void>;
  forget?(texts: readonly string[]): Promise<number>;
  /**
   * Where the model has word vectors (the built-in one): how well each text's words match the
   * query's, one score in [0, 1] per text (builtin/word-alignment.ts); undefined for a model
   * without them. A layer passes it on.
   */
  align?(query: string, texts: readonly string[]): Promise<number[] | undefined>;
}
