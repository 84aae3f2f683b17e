import { F64, get, I32, oneFunctionModule, set, tee, WASM_PAGE, type WasmMemory, wasm } from './wasm.ts';

/**
 * Exact cosine distances of stored int16 vectors (vectors.ts) to a query, in WebAssembly: the
 * rescore of a search's first neighbours and the similarities of its keyword-only candidates
 * (~100 vectors of 512-d per search). The same loop in JS took ~3 µs per vector on the seed's
 * vectors (~1 µs on synthetic ones). The sums are scalar f64 operations in the order the JS loop
 * made them (no SIMD lanes, no fused multiply-add), so every distance is the same double.
 */

/**
 * sums(vectors, query, count, dimension, out): for each of `count` int16 vectors of `dimension`
 * coordinates (little-endian, as stored) from `vectors`, its dot product with the query (`dimension` f64 at `query`) and its
 * squared norm, each summed coordinate by coordinate, stored as two f64 at `out` + 16 × index.
 */
function sumsModule(): object {
  // Locals: 0 vectors, 1 query, 2 count, 3 dimension, 4 out (params); 5 i, 6 j, 7 vector, 8 query
  // pointer (i32); 9 dot, 10 norm, 11 coordinate (f64).
  const [i32Add, i32Const, block, loop, end, geU, ltU] = [0x6a, 0x41, [0x02, 0x40], [0x03, 0x40], 0x0b, 0x4f, 0x49];
  const [f64Add, f64Mul, fromI32] = [0xa0, 0xa2, 0xb7];
  const f64Zero = [0x44, 0, 0, 0, 0, 0, 0, 0, 0];
  const outAt = [...get(4), ...get(5), i32Const, 4, 0x74, i32Add];
  const code: number[] = [];
  code.push(...get(0), ...set(7), ...block, ...loop);
  code.push(...get(5), ...get(2), geU, 0x0d, 1); // i >= count: done
  code.push(...f64Zero, ...set(9), ...f64Zero, ...set(10), i32Const, 0, ...set(6), ...get(1), ...set(8));
  code.push(...block, ...loop);
  code.push(...get(6), ...get(3), geU, 0x0d, 1); // j >= dimension: this vector is done
  // coordinate = f64(int16 at vector + 2j); dot += coordinate × query[j]; norm += coordinate × coordinate
  code.push(...get(7), ...get(6), ...get(6), i32Add, i32Add, 0x2e, 0x01, 0x00, fromI32, ...tee(11));
  code.push(...get(8), 0x2b, 0x03, 0x00, f64Mul, ...get(9), f64Add, ...set(9));
  code.push(...get(11), ...get(11), f64Mul, ...get(10), f64Add, ...set(10));
  code.push(...get(8), i32Const, 8, i32Add, ...set(8));
  code.push(...get(6), i32Const, 1, i32Add, ...tee(6), ...get(3), ltU, 0x0d, 0); // j < dimension: again
  code.push(end, end);
  code.push(...outAt, ...get(9), 0x39, 0x03, 0x00, ...outAt, ...get(10), 0x39, 0x03, 0x08);
  code.push(...get(7), ...get(3), ...get(3), i32Add, i32Add, ...set(7), ...get(5), i32Const, 1, i32Add, ...set(5));
  code.push(0x0c, 0, end, end);
  return oneFunctionModule(
    'sums',
    5,
    [
      [4, I32],
      [3, F64],
    ],
    code,
  );
}

let compiled: object | undefined;

/** A connection's working memory for exact cosines: [query][vectors][sums], grown as needed. */
export class ExactCosines {
  private readonly memory: WasmMemory;
  private readonly sums: (vectors: number, query: number, count: number, dimension: number, out: number) => void;

  constructor(private readonly dimension: number) {
    compiled ??= sumsModule();
    this.memory = new wasm.Memory({ initial: 1 });
    const instance = new wasm.Instance(compiled, { env: { memory: this.memory } });
    this.sums = instance.exports.sums as ExactCosines['sums'];
  }

  /**
   * 1 − cosine between each of `count` exact vectors (int16 little-endian, as stored, one after
   * another in `vectors`) and `vector`; 1 when either is zero.
   */
  distances(vectors: Uint8Array, count: number, vector: Float32Array): Float64Array {
    const queryBytes = this.dimension * 8;
    const vectorsAt = queryBytes;
    const sumsAt = vectorsAt + Math.ceil((count * this.dimension * 2) / 8) * 8;
    const needed = sumsAt + count * 16;
    if (needed > this.memory.buffer.byteLength) {
      this.memory.grow(Math.ceil((needed - this.memory.buffer.byteLength) / WASM_PAGE));
    }
    unitQuery(vector, new Float64Array(this.memory.buffer, 0, this.dimension));
    new Uint8Array(this.memory.buffer, vectorsAt, count * this.dimension * 2).set(vectors);
    this.sums(vectorsAt, 0, count, this.dimension, sumsAt);
    const sums = new Float64Array(this.memory.buffer, sumsAt, count * 2);
    const distances = new Float64Array(count);
    for (let i = 0; i < count; i++) {
      const norm = sums[2 * i + 1] as number;
      distances[i] = norm === 0 ? 1 : 1 - (sums[2 * i] as number) / Math.sqrt(norm);
    }
    return distances;
  }
}

/** `vector` scaled to length 1 (zeros stay zeros) into `out`, in doubles. */
function unitQuery(vector: Float32Array, out: Float64Array): void {
  let norm = 0;
  for (const x of vector) norm += x * x;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < vector.length; i++) out[i] = (vector[i] as number) * scale;
}
