/**
 * Large owners' binary codes (vectors.ts) kept in memory by one connection, so a k-NN finds its
 * candidates by a popcount in WebAssembly over them (~1 ms for 100,000 codes) instead of
 * sqlite-vec's Hamming distance called from SQL on every row (~15 ms).
 *
 * The codes only choose candidates: their int8 and exact vectors are read from the file by the
 * same search, so a memory deleted or erased since the codes were read is never returned (its
 * vector rows are gone). What the cache must see at once is which memories the owner has and by
 * which code: before every search it compares what it read an owner under with what the file says
 * now, as int8-cache.ts does: the owner's number, vector count and highest rowid, and the owner's
 * count of removed vectors (vectors.ts counts every deleted or erased memory and every vector
 * rewritten in place, which keeps its rowid; a deleted highest rowid can be taken again by the
 * next memory, so count and highest rowid alone look unchanged). While nothing of the owner's was
 * removed it appends the codes of memories written since (a new memory only comes with a higher
 * rowid); after a removal of one of its memories it reads the owner's codes again. Other owners'
 * removals leave it as it is (reading 100,000 codes again takes ~50 ms).
 */

import { caughtUp, evictOverBudget, type OwnerState } from './owner-state.ts';
import { I32, I64, oneFunctionModule, uleb, WASM_PAGE, type WasmMemory, wasm } from './wasm.ts';

/** Bytes of one code (1,024 bits). */
export const CODE_BYTES = 128;
/** Bytes of codes (and their distances) one connection keeps, over every owner it holds. */
const CACHE_BUDGET_BYTES = 48 * 2 ** 20;

/** The codes of one owner, as read from the file, and what they were read under. */
export interface OwnerCodes {
  /** The owner's number in the vector tables (never the same for two owners at once). */
  owner: number;
  /** Rowids in ascending order, one per code. */
  rowids: number[];
  /** The codes, CODE_BYTES each, in the order of `rowids`. */
  codes: Uint8Array;
}

/**
 * hamming(codes, query, count, out): for each of `count` codes of 128 bytes from `codes`, its
 * Hamming distance to the 128 bytes at `query`, stored as an i32 at `out`. Written as bytes
 * (no toolchain): the query's 16 words are loaded into locals once, then per code 16 × (load, xor,
 * popcnt, add).
 */
function hammingModule(): object {
  // Locals: 0 codes, 1 query, 2 count, 3 out (params); 4 i, 5 code pointer; 6..21 query words.
  const code: number[] = [];
  const load64 = (offset: number) => [0x29, 0x03, ...uleb(offset)];
  for (let j = 0; j < 16; j++) code.push(0x20, 0x01, ...load64(j * 8), 0x21, 6 + j);
  code.push(0x20, 0x00, 0x21, 0x05);
  code.push(0x02, 0x40, 0x03, 0x40);
  code.push(0x20, 0x04, 0x20, 0x02, 0x4f, 0x0d, 0x01);
  // out + i * 4
  code.push(0x20, 0x03, 0x20, 0x04, 0x41, 0x02, 0x74, 0x6a);
  for (let j = 0; j < 16; j++) {
    code.push(0x20, 0x05, ...load64(j * 8), 0x20, 6 + j, 0x85, 0x7b);
    if (j > 0) code.push(0x7c);
  }
  code.push(0xa7, 0x36, 0x02, 0x00);
  code.push(0x20, 0x05, 0x41, 0x80, 0x01, 0x6a, 0x21, 0x05);
  code.push(0x20, 0x04, 0x41, 0x01, 0x6a, 0x21, 0x04);
  code.push(0x0c, 0x00, 0x0b, 0x0b);
  return oneFunctionModule(
    'hamming',
    4,
    [
      [2, I32],
      [16, I64],
    ],
    code,
  );
}

let compiled: object | undefined;

/** One owner's codes in a WebAssembly memory of their own: [query][codes][distances]. */
class CachedOwner {
  private readonly memory: WasmMemory;
  private readonly hamming: (codes: number, query: number, count: number, out: number) => void;
  rowids: number[] = [];

  constructor(
    readonly owner: number,
    /** The owner's removal count when the codes were read. */
    readonly removed: number,
    capacity: number,
  ) {
    compiled ??= hammingModule();
    this.memory = new wasm.Memory({ initial: pagesFor(capacity) });
    const instance = new wasm.Instance(compiled, { env: { memory: this.memory } });
    this.hamming = instance.exports.hamming as CachedOwner['hamming'];
  }

  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** Adds codes (rowids ascending, after every rowid held). */
  append(rowids: readonly number[], codes: Uint8Array): void {
    const needed = pagesFor(this.rowids.length + rowids.length) * WASM_PAGE;
    if (needed > this.memory.buffer.byteLength) this.memory.grow((needed - this.memory.buffer.byteLength) / WASM_PAGE);
    new Uint8Array(this.memory.buffer).set(codes, CODE_BYTES * (1 + this.rowids.length));
    for (const rowid of rowids) this.rowids.push(rowid);
  }

  /**
   * The rowids of the `n` codes nearest to `query`, in no particular order: the `shortlist` nearest
   * by Hamming distance (ties: lower rowid first), then of those the `n` nearest by `weights`.
   */
  nearest(query: QueryCode, shortlist: number, n: number): number[] {
    const count = this.rowids.length;
    if (n >= count) return [...this.rowids];
    const listed = Math.max(n, Math.min(shortlist, count));
    new Uint8Array(this.memory.buffer).set(query.code, 0);
    const out = CODE_BYTES * (1 + count);
    this.hamming(CODE_BYTES, 0, count, out);
    const distances = new Int32Array(this.memory.buffer, out, count);
    // Counting selection: distances are 0…1,024.
    const histogram = new Uint32Array(CODE_BYTES * 8 + 1);
    for (let i = 0; i < count; i++)
      histogram[distances[i] as number] = (histogram[distances[i] as number] as number) + 1;
    let threshold = 0;
    let below = 0;
    while (below + (histogram[threshold] as number) < listed) below += histogram[threshold++] as number;
    let atThreshold = listed - below;
    const chosen: number[] = [];
    for (let i = 0; i < count; i++) {
      const d = distances[i] as number;
      if (d < threshold) chosen.push(i);
      else if (d === threshold && atThreshold > 0) {
        chosen.push(i);
        atThreshold--;
      }
    }
    if (listed === n) return chosen.map((i) => this.rowids[i] as number);
    // Four bytes at a time: the codes (and the query's, at 0) as 32-bit words.
    const words = new Uint32Array(this.memory.buffer, 0, (count + 1) * WORDS);
    const { weights } = query;
    const scored = chosen.map((i) => {
      let weight = 0;
      for (let w = 0, at = (i + 1) * WORDS; w < WORDS; w++, at++) {
        const x = ((words[at] as number) ^ (words[w] as number)) >>> 0;
        const row = w << 10;
        weight +=
          (weights[row | (x & 255)] as number) +
          (weights[row | 256 | ((x >>> 8) & 255)] as number) +
          (weights[row | 512 | ((x >>> 16) & 255)] as number) +
          (weights[row | 768 | (x >>> 24)] as number);
      }
      return { i, weight };
    });
    scored.sort((a, b) => a.weight - b.weight || a.i - b.i);
    return scored.slice(0, n).map(({ i }) => this.rowids[i] as number);
  }
}

/**
 * A query's code and how far each of its bits is from flipping: `weights[b × 256 + x]` is the sum
 * of the query's |projection| over the bits set in `x` of its byte `b`, so a stored code's weight
 * (the sum over the bytes of the code XOR the query's) counts a differing bit by how clearly the
 * query falls on its side of that hyperplane, not 1 for every bit as the Hamming distance does.
 */
export interface QueryCode {
  code: Uint8Array;
  weights: Uint16Array;
}

/** 32-bit words of a code. */
const WORDS = CODE_BYTES / 4;
/** A bit's weight is its |projection| in 0…WEIGHT_SCALE of the largest (eight add up in 16 bits). */
const WEIGHT_SCALE = 255;

/** A query's code (bit i set when projection i is above 0) and its weights (`QueryCode`). */
export function queryCode(projections: Float64Array): QueryCode {
  const code = new Uint8Array(CODE_BYTES);
  let largest = 0;
  for (const p of projections) largest = Math.max(largest, Math.abs(p));
  const scale = largest > 0 ? WEIGHT_SCALE / largest : 0;
  const bitWeights = Uint16Array.from(projections, (p) => Math.round(Math.abs(p) * scale));
  const weights = new Uint16Array(CODE_BYTES * 256);
  for (let b = 0; b < CODE_BYTES; b++) {
    for (let bit = 0; bit < 8; bit++) {
      if ((projections[b * 8 + bit] as number) > 0) code[b] = (code[b] as number) | (1 << bit);
    }
    for (let x = 1; x < 256; x++) {
      const lowest = x & -x;
      weights[b * 256 + x] =
        (weights[b * 256 + (x ^ lowest)] as number) + (bitWeights[b * 8 + 31 - Math.clz32(lowest)] as number);
    }
  }
  return { code, weights };
}

/** Pages holding the query, `codes` codes and their distances. */
function pagesFor(codes: number): number {
  return Math.max(1, Math.ceil((CODE_BYTES * (codes + 1) + 4 * codes) / WASM_PAGE));
}

/** Where the cache reads codes from: the connection's own statements. */
export interface CodeSource {
  /** The owner's codes with rowid above `after`, ascending. */
  codesAfter(scope: string, after: number): { rowids: number[]; codes: Uint8Array };
}

/**
 * Large owners' codes for one connection, least recently searched evicted first past the budget.
 */
export class CodeCache {
  private readonly owners = new Map<string, CachedOwner>();

  constructor(private readonly source: CodeSource) {}

  /**
   * The rowids of the owner's `n` memories nearest to `query` (`CachedOwner.nearest`: `shortlist`
   * by Hamming distance, then by weight), as the file holds them now.
   */
  nearest(scope: string, state: OwnerState, query: QueryCode, shortlist: number, n: number): number[] {
    return this.current(scope, state).nearest(query, shortlist, n);
  }

  private current(scope: string, state: OwnerState): CachedOwner {
    let cached = this.owners.get(scope);
    if (cached) {
      this.owners.delete(scope);
      const held = cached;
      const current = caughtUp(held, state, (last) => {
        const added = this.source.codesAfter(scope, last);
        held.append(added.rowids, added.codes);
      });
      if (!current) cached = undefined;
    }
    if (!cached) {
      const all = this.source.codesAfter(scope, 0);
      cached = new CachedOwner(state.owner, state.removed, all.rowids.length);
      cached.append(all.rowids, all.codes);
    }
    this.owners.set(scope, cached);
    evictOverBudget(this.owners, scope, CACHE_BUDGET_BYTES, (owner) => owner.bytes);
    return cached;
  }
}
