/**
 * A compact table of word vectors: the words in frequency order (most frequent first), each with
 * an int8-quantised vector and its own float32 scale. The file is one buffer (header, words,
 * scales, vectors) read in a single call, so loading is a file read plus one Map of the words.
 *
 * Layout (little-endian):
 *   magic "HSWT" | format u32 | words u32 | dimension u32 | wordBytes u32 | corpusWords u32
 *   words as UTF-8, '\n'-separated (wordBytes), zero-padded to a multiple of 4
 *   scales float32[words]
 *   vectors int8[words × dimension]
 */
const MAGIC = 0x54575348; // "HSWT" read little-endian
export const WORD_TABLE_FORMAT = 1;
const HEADER_BYTES = 24;

export class WordTableFormatError extends Error {
  override readonly name = 'WordTableFormatError';
}

export interface WordTableContents {
  /** Most frequent first: a word's position is its frequency rank in the source corpus. */
  words: readonly string[];
  dimension: number;
  /** Size of the source vocabulary the ranks come from (for Zipf frequency estimates). */
  corpusWords: number;
  /** One vector of `dimension` floats per word, concatenated. */
  vectors: Float32Array;
}

export class WordTable {
  private readonly index: Map<string, number>;

  private constructor(
    readonly words: readonly string[],
    readonly dimension: number,
    readonly corpusWords: number,
    private readonly scales: Float32Array,
    private readonly quantised: Int8Array,
  ) {
    this.index = new Map(words.map((word, i) => [word, i]));
  }

  get size(): number {
    return this.words.length;
  }

  /** Frequency rank of a word (0 = most frequent), or undefined when it is not in the table. */
  rank(word: string): number | undefined {
    return this.index.get(word);
  }

  /** Adds `weight` × the vector of the word at `rank` to `into` (length `dimension`). */
  addTo(into: Float32Array, rank: number, weight: number): void {
    const d = this.dimension;
    const scaled = weight * (this.scales[rank] as number);
    const start = rank * d;
    for (let i = 0; i < d; i++) into[i] = (into[i] as number) + scaled * (this.quantised[start + i] as number);
  }

  /** Cosines between the word at `rank` and each of `units` (unit length) into `out`; 0s for an all-zero word. */
  cosinesTo(rank: number, units: readonly Float32Array[], out: Float64Array): void {
    const d = this.dimension;
    const start = rank * d;
    let norm = 0;
    for (let i = 0; i < d; i++) norm += (this.quantised[start + i] as number) ** 2;
    for (let u = 0; u < units.length; u++) {
      const unit = units[u] as Float32Array;
      let dotProduct = 0;
      for (let i = 0; i < d; i++) dotProduct += (this.quantised[start + i] as number) * (unit[i] as number);
      out[u] = norm === 0 ? 0 : dotProduct / Math.sqrt(norm);
    }
  }

  static decode(bytes: Uint8Array): WordTable {
    if (bytes.byteLength < HEADER_BYTES) throw new WordTableFormatError('word table is truncated (no header)');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (view.getUint32(0, true) !== MAGIC) throw new WordTableFormatError('not a word table (bad magic)');
    const format = view.getUint32(4, true);
    if (format !== WORD_TABLE_FORMAT) {
      throw new WordTableFormatError(`word table format ${format}, expected ${WORD_TABLE_FORMAT}`);
    }
    const count = view.getUint32(8, true);
    const dimension = view.getUint32(12, true);
    const wordBytes = view.getUint32(16, true);
    const corpusWords = view.getUint32(20, true);
    const scalesAt = HEADER_BYTES + padTo4(wordBytes);
    const vectorsAt = scalesAt + count * 4;
    if (bytes.byteLength !== vectorsAt + count * dimension) {
      throw new WordTableFormatError(
        `word table is ${bytes.byteLength} bytes, its header says ${vectorsAt + count * dimension}`,
      );
    }
    const words = new TextDecoder().decode(bytes.subarray(HEADER_BYTES, HEADER_BYTES + wordBytes)).split('\n');
    if (words.length !== count)
      throw new WordTableFormatError(`word table lists ${words.length} words, header says ${count}`);
    // Scales are copied (a Float32Array view needs 4-byte alignment, and the host's byte order);
    // the int8 vectors are used in place.
    const scales = new Float32Array(count);
    for (let i = 0; i < count; i++) scales[i] = view.getFloat32(scalesAt + i * 4, true);
    const quantised = new Int8Array(bytes.buffer, bytes.byteOffset + vectorsAt, count * dimension);
    return new WordTable(words, dimension, corpusWords, scales, quantised);
  }

  /** Quantises each vector to int8 with its own scale (max |component| ↦ 127). Deterministic. */
  static encode(contents: WordTableContents): Uint8Array {
    const { words, dimension, vectors } = contents;
    if (vectors.length !== words.length * dimension) throw new RangeError('one vector of `dimension` per word');
    if (words.some((w) => w === '' || w.includes('\n')))
      throw new RangeError('words must be non-empty, without newlines');
    const wordBytes = new TextEncoder().encode(words.join('\n'));
    const scalesAt = HEADER_BYTES + padTo4(wordBytes.byteLength);
    const vectorsAt = scalesAt + words.length * 4;
    const bytes = new Uint8Array(vectorsAt + words.length * dimension);
    const view = new DataView(bytes.buffer);
    view.setUint32(0, MAGIC, true);
    view.setUint32(4, WORD_TABLE_FORMAT, true);
    view.setUint32(8, words.length, true);
    view.setUint32(12, dimension, true);
    view.setUint32(16, wordBytes.byteLength, true);
    view.setUint32(20, contents.corpusWords, true);
    bytes.set(wordBytes, HEADER_BYTES);
    for (let w = 0; w < words.length; w++) {
      let max = 0;
      for (let i = 0; i < dimension; i++) max = Math.max(max, Math.abs(vectors[w * dimension + i] as number));
      // Rounded to float32 first: the stored scale is exactly the one the values were divided by.
      const scale = Math.fround(max / 127);
      view.setFloat32(scalesAt + w * 4, scale, true);
      for (let i = 0; i < dimension; i++) {
        const q = scale === 0 ? 0 : Math.round((vectors[w * dimension + i] as number) / scale);
        view.setInt8(vectorsAt + w * dimension + i, q);
      }
    }
    return bytes;
  }
}

function padTo4(n: number): number {
  return (n + 3) & ~3;
}
