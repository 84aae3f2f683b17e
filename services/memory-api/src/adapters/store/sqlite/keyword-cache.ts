import { CONTEXT_MARK, type CountedKeywordMatch } from '../keywords.ts';
import { evictOverBudget } from './owner-state.ts';

/**
 * Small owners' keyword entries (`memory_keyword_terms`) kept in memory by one connection, so a
 * search counts its matches' query terms without reading each match's row from the file (one
 * random page per match: ~0.5 ms of a 1,000-memory owner's search, and ~0.3 ms more to cut the
 * terms out of the text again).
 *
 * Each owner's entries are held as dictionary indices: the distinct terms of its entries (own
 * terms, and context terms with `CONTEXT_MARK` in front, as the entries hold them) once in one
 * string, and each entry as the indices of its terms in their order, with its length counted as
 * a search counts it. Counting a match then gives what counting its entry's text gives (same
 * additions in the same order), so the ranking is the same.
 *
 * The cache holds exactly what the file holds: before every search it compares what it read an
 * owner under with the owner's keyword statistics row (`keyword_owners`: its id, never reused, its
 * entry count and its count of writes, moved by every change of the owner's entries). A write that
 * only added entries (the entry count rose by as many as the writes) comes with higher rowids, so
 * the cache appends the entries written since; after any other change it reads the owner again.
 */

/** Owners with more entries than this are searched from the file (their matches are read a few at a time). */
export const MAX_CACHED_ENTRIES = 4096;
/**
 * Bytes one connection keeps over every owner it holds: ~140 KiB per 1,000 memories of the bench's
 * workload (each memory's serial number a term of its own), so ~115 such owners.
 */
const CACHE_BUDGET_BYTES = 16 * 2 ** 20;

/** An owner's keyword statistics row, as a search reads it. */
export interface KeywordOwnerState {
  id: number;
  documents: number;
  writes: number;
}

/**
 * An owner's entries with rowid above some rowid, ascending, as one read: their rowids and their
 * terms, entry after entry, separated by `ENTRY_SEPARATOR`.
 */
export interface EntryBlock {
  rowids: number[];
  /** UTF-8, as the file holds it (read as a blob, so no JS string is made of it). */
  terms: Uint8Array;
}

/** Between two entries' terms in an `EntryBlock` (never in a term: `keywordTokens` terms hold no whitespace). */
export const ENTRY_SEPARATOR = '\n';

/** Where the cache reads entries from: the connection's own statements. */
export interface KeywordEntrySource {
  /** The owner's entries with rowid above `after`. */
  entriesAfter(after: number): EntryBlock;
}

/** A query term as an entry holds it: which query term, and what one occurrence weighs. */
export interface EntryForm {
  term: string;
  weight: number;
}

export class KeywordEntryCache {
  private readonly owners = new Map<string, HeldEntries>();

  constructor(private readonly contextWeight: number) {}

  /**
   * The owner's entries as the file holds them now (`state`, just read), or undefined when the
   * owner is not held (too large, or its entries changed while they were read).
   */
  entries(owner: string, state: KeywordOwnerState, source: KeywordEntrySource): HeldEntries | undefined {
    let held = this.owners.get(owner);
    this.owners.delete(owner);
    if (state.documents > MAX_CACHED_ENTRIES) return undefined;
    if (held && !held.catchUp(state, source)) held = undefined;
    if (!held) {
      held = new HeldEntries(this.contextWeight, state);
      if (!held.append(source.entriesAfter(0), state)) return undefined;
    }
    this.owners.set(owner, held);
    evictOverBudget(this.owners, owner, CACHE_BUDGET_BYTES, (entries) => entries.bytes);
    return held;
  }

  /** Forgets an owner (its last memory is gone, or it was erased). */
  drop(owner: string): void {
    this.owners.delete(owner);
  }
}

/** The most distinct terms one owner's held entries may have (dictionary indices are 16-bit). */
const MAX_FORMS = 65535;

/** One owner's entries in memory (see `KeywordEntryCache`). */
export class HeldEntries {
  private state: KeywordOwnerState;
  /** Rowids, ascending; `starts[i]` … `starts[i + 1]` are entry i's terms in `tokens`. */
  private rowids = new Float64Array(0);
  private starts = new Uint32Array(1);
  private tokens = new Uint16Array(0);
  private lengths = new Float64Array(0);
  private count = 0;
  private tokenCount = 0;
  private readonly dictionary = new TermDictionary();

  constructor(
    private readonly contextWeight: number,
    state: KeywordOwnerState,
  ) {
    this.state = { ...state };
  }

  get bytes(): number {
    return (
      this.rowids.byteLength +
      this.starts.byteLength +
      this.tokens.byteLength +
      this.lengths.byteLength +
      this.dictionary.byteLength
    );
  }

  /**
   * Brings the entries up to `state`: unchanged, or only entries added since (appended). False when
   * the owner must be read again.
   */
  catchUp(state: KeywordOwnerState, source: KeywordEntrySource): boolean {
    const held = this.state;
    if (held.id !== state.id) return false;
    if (held.writes === state.writes) return held.documents === state.documents;
    if (held.writes - held.documents !== state.writes - state.documents) return false;
    return this.append(source.entriesAfter(this.rowids[this.count - 1] ?? 0), state);
  }

  /**
   * Adds entries (rowids ascending, above every held one) read under `state`. False when they do
   * not make up the owner's entries under it (a write came between the two reads) or hold too many
   * distinct terms; the entries are then not usable and are dropped.
   */
  append(block: EntryBlock, state: KeywordOwnerState): boolean {
    const added = block.rowids.length;
    if (this.count + added !== state.documents) return false;
    if (added === 0) {
      this.state = { ...state };
      return true;
    }
    const text = block.terms;
    const batch = new TermBatch(this.dictionary, text);
    const count = this.count + added;
    const rowids = grown(this.rowids, count);
    const lengths = grown(this.lengths, count);
    const starts = grown(this.starts, count + 1);
    let tokens = grown(this.tokens, this.tokenCount + text.length / 4);
    let tokenCount = this.tokenCount;
    let entry = this.count;
    let length = 0;
    starts[entry] = tokenCount;
    // Cut and counted as MatchReader counts an entry's text: every space-separated piece is a
    // term (an empty entry is one empty term), a context term weighs the context weight.
    for (let start = 0; start <= text.length; ) {
      let hash = FNV_OFFSET;
      let stop = start;
      let code = 0;
      for (; stop < text.length; stop++) {
        code = text[stop] as number;
        if (code === SPACE || code === SEPARATOR) break;
        hash = Math.imul(hash ^ code, FNV_PRIME);
      }
      length += stop > start && text[start] === MARK ? this.contextWeight : 1;
      if (tokenCount === tokens.length) tokens = grown(tokens, tokenCount + 1);
      tokens[tokenCount++] = batch.index(start, stop, hash >>> 0);
      if (stop === text.length || code === SEPARATOR) {
        rowids[entry] = block.rowids[entry - this.count] as number;
        lengths[entry] = length;
        entry += 1;
        starts[entry] = tokenCount;
        length = 0;
      }
      start = stop + 1;
    }
    if (entry !== count || !batch.commit(MAX_FORMS)) return false;
    // Kept at their size: an append (a memory or a few) copies them once more.
    this.rowids = rowids.slice(0, count);
    this.lengths = lengths.slice(0, count);
    this.starts = starts.slice(0, count + 1);
    this.tokens = tokens.slice(0, tokenCount);
    this.count = count;
    this.tokenCount = tokenCount;
    this.state = { ...state };
    return true;
  }

  /**
   * The dictionary indices of a search's query terms as entries hold them (own and context), each
   * with what it counts: an array indexed by dictionary index, 0 where a term is no query term,
   * else 1 + the index of its `EntryForm` in `forms`.
   */
  queryForms(wanted: ReadonlyMap<string, EntryForm>): HeldQuery {
    const forms: EntryForm[] = [];
    const keys: string[] = [];
    const marks = wanted.size < 255 ? new Uint8Array(this.dictionary.size) : new Uint16Array(this.dictionary.size);
    for (const [form, query] of wanted) {
      const index = this.dictionary.find(form);
      if (index < 0) continue;
      forms.push(query);
      keys.push(form);
      marks[index] = forms.length;
    }
    return { marks, forms, keys };
  }

  /**
   * Whether every held term is lower-case ASCII letters and digits (after `CONTEXT_MARK`): then
   * each is one token of the FTS5 index as it is (its tokenizer splits and folds nothing), so which
   * entries hold a query term, and how often, can be counted here instead of in the index.
   */
  get plain(): boolean {
    return this.dictionary.plain;
  }

  /**
   * For each of a query's terms found (`queryForms`, by its form in `keys`): the rowids of the
   * entries holding it, ascending, and its occurrences in all, counted over every held entry.
   */
  postings(query: HeldQuery): Map<string, { rowids: number[]; occurrences: number }> {
    const { marks, keys } = query;
    const found = keys.map(() => ({ rowids: [] as number[], occurrences: 0 }));
    for (let entry = 0; entry < this.count; entry++) {
      const rowid = this.rowids[entry] as number;
      const end = this.starts[entry + 1] as number;
      for (let i = this.starts[entry] as number; i < end; i++) {
        const mark = marks[this.tokens[i] as number] as number;
        if (mark === 0) continue;
        const posting = found[mark - 1] as { rowids: number[]; occurrences: number };
        posting.occurrences += 1;
        if (posting.rowids[posting.rowids.length - 1] !== rowid) posting.rowids.push(rowid);
      }
    }
    return new Map(keys.map((key, i) => [key, found[i] as { rowids: number[]; occurrences: number }]));
  }

  /**
   * The held entry of `rowid` counted for a query (`queryForms`), as MatchReader counts the entry's
   * text; undefined when the rowid is not held.
   */
  countMatch<Id>(id: Id, rowid: number, query: HeldQuery): CountedKeywordMatch<Id> | undefined {
    const at = this.position(rowid);
    if (at < 0) return undefined;
    const frequencies = new Map<string, number>();
    const { marks, forms } = query;
    const end = this.starts[at + 1] as number;
    for (let i = this.starts[at] as number; i < end; i++) {
      const mark = marks[this.tokens[i] as number] as number;
      if (mark === 0) continue;
      const form = forms[mark - 1] as EntryForm;
      frequencies.set(form.term, (frequencies.get(form.term) ?? 0) + form.weight);
    }
    return { id, frequencies, length: this.lengths[at] as number };
  }

  /** Where `rowid` is among the held entries, −1 when it is not held. */
  private position(rowid: number): number {
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const value = this.rowids[mid] as number;
      if (value === rowid) return mid;
      if (value < rowid) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

/** A query's terms in one owner's dictionary (`HeldEntries.queryForms`). */
export interface HeldQuery {
  marks: Uint8Array | Uint16Array;
  forms: EntryForm[];
  /** Each found term's form (`term` or `CONTEXT_MARK + term`), beside `forms`. */
  keys: string[];
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const SPACE = 0x20;
const SEPARATOR = ENTRY_SEPARATOR.charCodeAt(0);
const MARK = CONTEXT_MARK.charCodeAt(0);

/**
 * The distinct terms of one owner's entries, each once, as UTF-8 in one array, found through an
 * open-addressing table of their FNV-1a hashes (~20 bytes per term where a Map of strings takes ~60).
 */
class TermDictionary {
  bytes = new Uint8Array(0);
  /** Term i is `bytes` from `starts[i]` to `starts[i + 1]`. */
  starts = new Uint32Array(1);
  size = 0;
  /** Term index + 1 by hash slot, 0 for an empty slot. */
  table = new Int32Array(16);
  /** Every term lower-case ASCII letters and digits after an optional `CONTEXT_MARK`. */
  plain = true;

  get byteLength(): number {
    return this.bytes.byteLength + this.starts.byteLength + this.table.byteLength;
  }

  /** The index of `term`, −1 when no entry holds it. */
  find(term: string): number {
    const utf8 = textEncoder.encode(term);
    const mask = this.table.length - 1;
    for (let slot = hashOf(utf8, 0, utf8.length) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.table[slot] as number;
      if (entry === 0) return -1;
      if (sameBytes(this.bytes, this.starts[entry - 1] as number, this.starts[entry] as number, utf8, 0, utf8.length))
        return entry - 1;
    }
  }

  /** A table twice as large with the first `size` terms, each where `range(index)` says it is. */
  grow(size: number, hashAt: (index: number) => number): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (let index = 0; index < size; index++) {
      let slot = hashAt(index) & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = index + 1;
    }
    this.table = table;
  }
}

const textEncoder = new TextEncoder();

/**
 * Dictionary indices for the terms of one read of entries (`source`): a term seen before keeps its
 * index, a new one gets the next and stays where it was first seen in `source` until `commit`
 * copies it into the dictionary.
 */
class TermBatch {
  private readonly held: number;
  private size: number;
  private readonly newStarts: number[] = [];
  private readonly newEnds: number[] = [];

  constructor(
    private readonly dictionary: TermDictionary,
    private readonly source: Uint8Array,
  ) {
    this.held = dictionary.size;
    this.size = dictionary.size;
  }

  index(start: number, end: number, hash: number): number {
    const { dictionary, source, held } = this;
    let table = dictionary.table;
    for (let slot = hash & (table.length - 1); ; slot = (slot + 1) & (table.length - 1)) {
      const entry = table[slot] as number;
      if (entry !== 0) {
        const index = entry - 1;
        const same =
          index < held
            ? sameBytes(
                dictionary.bytes,
                dictionary.starts[index] as number,
                dictionary.starts[entry] as number,
                source,
                start,
                end,
              )
            : sameBytes(
                source,
                this.newStarts[index - held] as number,
                this.newEnds[index - held] as number,
                source,
                start,
                end,
              );
        if (same) return index;
        continue;
      }
      table[slot] = this.size + 1;
      this.newStarts.push(start);
      this.newEnds.push(end);
      this.size += 1;
      if (this.size * 2 > table.length) {
        dictionary.grow(this.size, (i) =>
          i < held
            ? hashOf(dictionary.bytes, dictionary.starts[i] as number, dictionary.starts[i + 1] as number)
            : hashOf(source, this.newStarts[i - held] as number, this.newEnds[i - held] as number),
        );
        table = dictionary.table;
      }
      return this.size - 1;
    }
  }

  /** Copies the new terms into the dictionary; false (the dictionary unusable) past `most` terms. */
  commit(most: number): boolean {
    const { dictionary, held, size } = this;
    if (size > most) return false;
    let bytes = held === 0 ? 0 : (dictionary.starts[held] as number);
    for (let i = 0; i < size - held; i++) bytes += (this.newEnds[i] as number) - (this.newStarts[i] as number);
    const text = new Uint8Array(bytes);
    text.set(dictionary.bytes.subarray(0, dictionary.starts[held] as number));
    const starts = new Uint32Array(size + 1);
    starts.set(dictionary.starts.subarray(0, held + 1));
    let at = dictionary.starts[held] as number;
    for (let i = 0; i < size - held; i++) {
      const start = this.newStarts[i] as number;
      const end = this.newEnds[i] as number;
      starts[held + i] = at;
      text.set(this.source.subarray(start, end), at);
      at += end - start;
      dictionary.plain &&= plainTerm(this.source, start, end);
    }
    starts[size] = at;
    dictionary.bytes = text;
    dictionary.starts = starts;
    dictionary.size = size;
    return true;
  }
}

/** Lower-case ASCII letters and digits, after an optional `CONTEXT_MARK`. */
function plainTerm(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = bytes[start] === MARK ? start + 1 : start; i < end; i++) {
    const code = bytes[i] as number;
    if (!((code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39))) return false;
  }
  return true;
}

function sameBytes(a: Uint8Array, aStart: number, aEnd: number, b: Uint8Array, bStart: number, bEnd: number): boolean {
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let i = 0; i < aEnd - aStart; i++) if (a[aStart + i] !== b[bStart + i]) return false;
  return true;
}

/** FNV-1a over a range of bytes. */
function hashOf(bytes: Uint8Array, start: number, end: number): number {
  let hash = FNV_OFFSET;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ (bytes[i] as number), FNV_PRIME);
  return hash >>> 0;
}

type TypedArray = Float64Array | Uint32Array | Uint16Array;

/** `array` with room for at least `size` elements (the same array when it has it), doubling. */
function grown<T extends TypedArray>(array: T, size: number): T {
  if (array.length >= size) return array;
  let capacity = Math.max(16, array.length);
  while (capacity < size) capacity *= 2;
  const next = new (array.constructor as new (length: number) => T)(capacity);
  next.set(array);
  return next;
}
