/**
 * What a connection's in-memory copy of one owner's vectors (int8-cache.ts) or codes
 * (code-cache.ts) is checked against before every search: what the file holds of the owner now.
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
