import { Int8Block, type Int8Neighbour } from './int8-scan.ts';
import { caughtUp, evictOverBudget, type OwnerState } from './owner-state.ts';

/**
 * Small owners' int8 vectors (vectors.ts) kept in memory by one connection, so a search ranks
 * them in WebAssembly (int8-scan.ts) without reading them from the file first (~0.3 ms of a
 * 1,000-memory owner's scan, more when its pages have left SQLite's cache).
 *
 * Unlike the large owners' codes (code-cache.ts), these vectors give the distances themselves, so
 * the cache must hold exactly what the file holds. Before every search it compares what it read
 * an owner under with what the file says now: the owner's number, vector count and highest rowid,
 * and the owner's count of removed vectors (vectors.ts counts every removal: a deleted or erased
 * memory, and a vector rewritten in place, which keeps its rowid). A new memory only comes with a
 * higher rowid, so while nothing of the owner's was removed the cache appends the vectors written
 * since; after a removal of one of its memories it reads the owner again. What a search answers is still
 * checked against the memories its filters allow (store.ts), so a memory deleted while the search
 * runs is not returned either.
 */

/**
 * Bytes of vectors one connection keeps, over every owner it holds (~0.5 MiB for 1,000 of 512-d, so
 * ~16 such owners). 32 MiB took memory-api from 513 to 693 MiB RSS at 100k memories over 100 users
 * (README) for ~0.2 ms of k-NN when every owner is searched alike; the few owners an agent works
 * with at a time fit in 8.
 */
const CACHE_BUDGET_BYTES = 8 * 2 ** 20;

/** Where the cache reads vectors from: the connection's own statements. */
export interface Int8Source {
  /** The owner's int8 vectors with rowid above `after`, ascending, and their rowids. */
  vectorsAfter(owner: number, after: number): { rowids: number[]; vectors: Uint8Array };
}

interface HeldOwner {
  owner: number;
  /** The owner's removal count when the vectors were read. */
  removed: number;
  block: Int8Block;
}

export class Int8Cache {
  private readonly owners = new Map<string, HeldOwner>();
  /**
   * The last block evicted, emptied, for the next owner read: a new WebAssembly memory costs
   * ~0.25 ms for 1,000 vectors (the pages' first writes), about as much as reading them.
   */
  private spare: Int8Block | undefined;

  constructor(
    private readonly source: Int8Source,
    private readonly dimension: number,
  ) {}

  /** The owner's `n` vectors nearest to `query` by int8 cosine, as the file holds them now. */
  nearest(scope: string, state: OwnerState, query: Int8Array, n: number): Int8Neighbour[] {
    return this.current(scope, state).nearest(query, n);
  }

  private current(scope: string, state: OwnerState): Int8Block {
    let held = this.owners.get(scope);
    if (held) {
      this.owners.delete(scope);
      const { block } = held;
      const current = caughtUp({ owner: held.owner, removed: held.removed, rowids: block.rowids }, state, (last) => {
        const added = this.source.vectorsAfter(state.owner, last);
        block.append(added.rowids, added.vectors);
      });
      if (!current) {
        this.release(block);
        held = undefined;
      }
    }
    if (!held) {
      const all = this.source.vectorsAfter(state.owner, 0);
      const block = this.spare ?? new Int8Block(this.dimension, all.rowids.length);
      this.spare = undefined;
      block.append(all.rowids, all.vectors);
      held = { owner: state.owner, removed: state.removed, block };
    }
    this.owners.set(scope, held);
    evictOverBudget(
      this.owners,
      scope,
      CACHE_BUDGET_BYTES,
      (owner) => owner.block.bytes,
      (owner) => this.release(owner.block),
    );
    return held.block;
  }

  /** Keeps a block no owner holds any more as the spare (one at most). */
  private release(block: Int8Block): void {
    block.clear();
    this.spare = block;
  }
}
