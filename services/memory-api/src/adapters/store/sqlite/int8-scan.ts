import { get, I32, oneFunctionModule, set, tee, V128, WASM_PAGE, type WasmMemory, wasm } from './wasm.ts';

/**
 * The int8 cosine k-NN of a small owner (vectors.ts) in WebAssembly: a SIMD dot product of the
 * query with each vector, and each vector's norm, 16 coordinates at a time (~0.05 ms for 1,000
 * vectors of 512-d, where sqlite-vec's vec_distance_cosine called from SQL on every row takes
 * ~1 ms). Distances are computed as sqlite-vec computes them (integer sums, exact in float32,
 * then 1 − dot / (√|v|² · √|q|²) rounded to float32), so the ranking is the one its SQL gave.
 */

/**
 * dots(vectors, query, count, stride, out): for each of `count` int8 vectors of `stride` bytes
 * (a multiple of 16) from `vectors`, its dot product with the query (`stride` int16 at `query`)
 * and its squared norm, stored as two i32 at `out` + 8 × index.
 */
function dotsModule(): object {
  // Locals: 0 vectors, 1 query, 2 count, 3 stride, 4 out (params); 5 i, 6 j, 7 vector, 8 query
  // pointer; 9 dot sums, 10 norm sums, 11 low and 12 high half of 16 coordinates as int16.
  const simd = (op: number) => (op < 0x80 ? [0xfd, op] : [0xfd, (op & 0x7f) | 0x80, op >> 7]);
  const load = (offset: number) => [...simd(0x00), 0x00, offset];
  const zero = [...simd(0x0c), ...new Array<number>(16).fill(0)];
  const [extendLow, extendHigh, dot, add] = [simd(0x87), simd(0x88), simd(0xba), simd(0xae)];
  const [i32Add, i32Const, block, loop, end] = [0x6a, 0x41, [0x02, 0x40], [0x03, 0x40], 0x0b];
  // The four lanes of a v128 of sums, added.
  const total = (sums: number) =>
    [0, 1, 2, 3].flatMap((lane) => [...get(sums), ...simd(0x1b), lane, ...(lane > 0 ? [i32Add] : [])]);
  const outAt = [...get(4), ...get(5), i32Const, 3, 0x74, i32Add];
  const code: number[] = [];
  code.push(...get(0), ...set(7), ...block, ...loop);
  code.push(...get(5), ...get(2), 0x4f, 0x0d, 1); // i >= count: done
  code.push(...zero, ...set(9), ...zero, ...set(10), i32Const, 0, ...set(6), ...get(1), ...set(8));
  code.push(...loop);
  code.push(...get(7), ...get(6), i32Add, ...load(0), ...tee(11), ...extendHigh, ...set(12));
  code.push(...get(11), ...extendLow, ...set(11));
  code.push(...get(9), ...get(11), ...get(8), ...load(0), ...dot, ...add);
  code.push(...get(12), ...get(8), ...load(16), ...dot, ...add, ...set(9));
  code.push(...get(10), ...get(11), ...get(11), ...dot, ...add, ...get(12), ...get(12), ...dot, ...add, ...set(10));
  code.push(...get(8), i32Const, 32, i32Add, ...set(8));
  code.push(...get(6), i32Const, 16, i32Add, ...tee(6), ...get(3), 0x49, 0x0d, 0); // j < stride: again
  code.push(end);
  code.push(...outAt, ...total(9), 0x36, 0x02, 0, ...outAt, ...total(10), 0x36, 0x02, 4);
  code.push(...get(7), ...get(3), i32Add, ...set(7), ...get(5), i32Const, 1, i32Add, ...set(5));
  code.push(0x0c, 0, end, end);
  return oneFunctionModule(
    'dots',
    5,
    [
      [4, I32],
      [4, V128],
    ],
    code,
  );
}

let compiled: object | undefined;

/** A ranked vector: its rowid and int8 cosine distance. */
export interface Int8Neighbour {
  rowid: number;
  distance: number;
}

/**
 * Int8 vectors of one dimension in a WebAssembly memory of their own, [query][vectors][sums],
 * each vector padded with zeros to a multiple of 16 coordinates (zeros add nothing to a sum).
 */
export class Int8Block {
  private readonly stride: number;
  private readonly memory: WasmMemory;
  private readonly dots: (vectors: number, query: number, count: number, stride: number, out: number) => void;
  /** The rowid of each vector held, in their order. */
  readonly rowids: number[] = [];

  /** A block sized for `capacity` vectors (it grows past them). */
  constructor(
    private readonly dimension: number,
    capacity: number,
  ) {
    this.stride = Math.ceil(dimension / 16) * 16;
    compiled ??= dotsModule();
    this.memory = new wasm.Memory({ initial: Math.max(1, Math.ceil(this.bytesFor(capacity) / WASM_PAGE)) });
    const instance = new wasm.Instance(compiled, { env: { memory: this.memory } });
    this.dots = instance.exports.dots as Int8Block['dots'];
  }

  /** Bytes this block holds. */
  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** Holds no vectors (its memory stays, for the next ones). */
  clear(): void {
    this.rowids.length = 0;
  }

  /** Adds vectors (`rowids.length` × dimension int8, in the order of `rowids`) after the ones held. */
  append(rowids: readonly number[], vectors: Uint8Array): void {
    if (vectors.length !== rowids.length * this.dimension) {
      throw new Error(`int8 vectors of ${vectors.length} bytes for ${rowids.length} of dimension ${this.dimension}`);
    }
    const held = this.rowids.length;
    const needed = this.bytesFor(held + rowids.length);
    if (needed > this.memory.buffer.byteLength) {
      this.memory.grow(Math.ceil((needed - this.memory.buffer.byteLength) / WASM_PAGE));
    }
    const added = new Uint8Array(this.memory.buffer, this.vectorsAt + held * this.stride, rowids.length * this.stride);
    if (this.stride === this.dimension) added.set(vectors);
    else {
      added.fill(0);
      for (let i = 0; i < rowids.length; i++) {
        added.set(vectors.subarray(i * this.dimension, (i + 1) * this.dimension), i * this.stride);
      }
    }
    for (const rowid of rowids) this.rowids.push(rowid);
  }

  /** The `n` held vectors nearest to `query` (int8) by cosine, nearest first (ties: lower rowid first). */
  nearest(query: Int8Array, n: number): Int8Neighbour[] {
    const count = this.rowids.length;
    if (count === 0 || n <= 0) return [];
    const padded = new Int16Array(this.memory.buffer, 0, this.stride);
    padded.fill(0);
    padded.set(query);
    let queryNorm = 0;
    for (const x of query) queryNorm += x * x;
    const out = this.vectorsAt + count * this.stride;
    this.dots(this.vectorsAt, 0, count, this.stride, out);
    const sums = new Int32Array(this.memory.buffer, out, count * 2);
    const distances = new Float64Array(count);
    const queryLength = Math.sqrt(queryNorm);
    for (let i = 0; i < count; i++) {
      distances[i] = Math.fround(1 - (sums[2 * i] as number) / (Math.sqrt(sums[2 * i + 1] as number) * queryLength));
    }
    const threshold = n >= count ? Number.POSITIVE_INFINITY : nthSmallest(distances, n);
    const kept: Int8Neighbour[] = [];
    for (let i = 0; i < count; i++) {
      const distance = distances[i] as number;
      if (distance <= threshold || Number.isNaN(distance)) kept.push({ rowid: this.rowids[i] as number, distance });
    }
    return kept.sort(byDistance).slice(0, n);
  }

  /** The vectors sit after the query (`stride` int16), on a 16-byte boundary. */
  private get vectorsAt(): number {
    return this.stride * 2;
  }

  /** Bytes of the query, `count` vectors and their sums. */
  private bytesFor(count: number): number {
    return this.vectorsAt + count * (this.stride + 8);
  }
}

/**
 * The `n`-th smallest of `values` (NaN, which sorts first, counted among them): nothing past it is
 * kept. Hoare's selection over a copy (linear; sorting all of them took ~3× as long).
 */
function nthSmallest(values: Float64Array, n: number): number {
  const numbers = values.filter((v) => !Number.isNaN(v));
  const k = n - 1 - (values.length - numbers.length);
  if (k < 0) return Number.NEGATIVE_INFINITY;
  let low = 0;
  let high = numbers.length - 1;
  while (low < high) {
    const pivot = numbers[(low + high) >> 1] as number;
    let i = low;
    let j = high;
    while (i <= j) {
      while ((numbers[i] as number) < pivot) i++;
      while ((numbers[j] as number) > pivot) j--;
      if (i <= j) {
        const swapped = numbers[i] as number;
        numbers[i++] = numbers[j] as number;
        numbers[j--] = swapped;
      }
    }
    if (k <= j) high = j;
    else if (k >= i) low = i;
    else break;
  }
  return numbers[k] as number;
}

/** Nearest first, ties by rowid, as `ORDER BY distance, key` sorts them (NULL, a zero vector's, first). */
function byDistance(a: Int8Neighbour, b: Int8Neighbour): number {
  const an = Number.isNaN(a.distance);
  const bn = Number.isNaN(b.distance);
  if (an || bn) return an === bn ? a.rowid - b.rowid : an ? -1 : 1;
  return a.distance - b.distance || a.rowid - b.rowid;
}
