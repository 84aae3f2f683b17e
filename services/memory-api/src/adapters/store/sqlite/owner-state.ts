/**
 * The owners a read connection holds in memory (int8-cache.ts: vectors, code-cache.ts: codes,
 * keyword-cache.ts: keyword entries): what a held copy of vectors or codes is checked against
 * before every search (what the file holds of the owner now), and the eviction all three share.
 */
export interface OwnerState {
  /** The owner's number in the vector tables (never the same for two owners at once). */
  owner: number;
  vectors: number;
  /** The owner's highest rowid holding a vector. */
  highest: number;
  /** Vectors removed from this owner so far (vectors.ts counts every delete, erasure and rewrite in place). */
  removed: number;
}

/** What a cache read an owner under, and the rowids it holds (ascending, appended to in place). */
export interface HeldState {
  readonly owner: number;
  readonly removed: number;
  readonly rowids: readonly number[];
}

/**
 * Brings a held copy up to what the file holds, when it can: a new memory only comes with a
 * higher rowid, so while the owner's number and removal count are unchanged the copy takes the
 * memories written since (`appendAfter(last rowid held)`). False when it must be read again: another
 * owner under the number, a removal or a rewrite in place (a deleted highest rowid can be taken by
 * the next memory, so count and highest rowid alone would look unchanged), or a count that still
 * differs (a write came between the file's two reads).
 */
export function caughtUp(held: HeldState, state: OwnerState, appendAfter: (last: number) => void): boolean {
  const last = held.rowids.at(-1) ?? 0;
  if (held.owner !== state.owner || held.removed !== state.removed || state.highest < last) return false;
  if (state.highest > last) appendAfter(last);
  return held.rowids.length === state.vectors;
}

/**
 * Drops the least recently searched owners of a connection's cache (a Map in the order of use:
 * a search deletes its owner and sets it again), never `keep`, while the bytes they hold exceed
 * `budget`; `dropped` hears each one dropped.
 */
export function evictOverBudget<Held>(
  owners: Map<string, Held>,
  keep: string,
  budget: number,
  bytesOf: (held: Held) => number,
  dropped: (held: Held) => void = () => undefined,
): void {
  let total = 0;
  for (const held of owners.values()) total += bytesOf(held);
  for (const [owner, held] of owners) {
    if (total <= budget) break;
    if (owner === keep) continue;
    owners.delete(owner);
    total -= bytesOf(held);
    dropped(held);
  }
}
