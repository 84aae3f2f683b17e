import { endianness } from 'node:os';
import type { Database, Statement } from 'better-sqlite3';
import { CODE_BYTES, CodeCache, queryCode } from './code-cache.ts';
import { ExactCosines } from './exact-cosine.ts';
import { Int8Cache } from './int8-cache.ts';
import { Int8Block } from './int8-scan.ts';

/**
 * Vector storage of the embedded store, in plain tables whose bytes grow with the memories alone,
 * whatever the number of owners (a vec0 partition per owner allocated a whole chunk for each:
 * ~265 KB for an owner of one memory), where one owner's vectors sit together:
 *
 * - `<table>`: per memory, its vector as int8, scaled by the inverse of its largest coordinate
 *   (cosine ignores scale), ranked by int8 cosine in WebAssembly (int8-scan.ts: all of a small owner's, a large owner's
 *   candidates), as sqlite-vec's vec_distance_cosine ranks them. Its integer key is the
 *   owner's number times 2^36 plus the memory's rowid, so an owner's rows are one contiguous
 *   range of the table's b-tree: a k-NN reads only its owner's pages (the float32 blocks of
 *   schema 6 packed consecutive rowids, so each candidate read a 16 KB block shared with other
 *   owners: ~10 MB per query at 1,000 per owner). A rowid table keeps rows of up to ~4 KB on
 *   their page, where WITHOUT ROWID spills anything over ~1 KB to an overflow page of its own;
 * - `<table>_exact`: per memory, the exact vector as int16 scaled the same way: within ~1e-5 of
 *   float32's cosine, for the few neighbours a search returns and for similarities (int8 alone kept
 *   the exact top result of 1,000 memories for 96 % of queries, its cosine within ~2e-3). Keyed as
 *   `<table>` is, so the ~100 a search reads of an owner of 1,000 sit on ~50 of the owner's ~67
 *   pages (schema 12; by rowid before, each on a page of its own);
 * - `<table>_owners`: each owner's number and how many vectors it has;
 * - `<table>_codes`: a 1,024-bit binary code of each vector, clustered by owner: an owner with more
 *   vectors than an int8 scan handles fast gets its candidates by the Hamming distance of their
 *   codes (128 bytes per memory) first.
 *
 * The code is the sign of each coordinate after a fixed random rotation (random sign flips, then
 * a Walsh–Hadamard transform, repeated until 1,024 bits are drawn): each bit is a random
 * hyperplane, so the Hamming distance between two codes estimates the angle between their vectors
 * (SimHash). It depends on nothing but the vector and its dimension, so every connection and
 * release computes the same code. Changing it needs a migration that recomputes the codes.
 */
const CODE_BITS = CODE_BYTES * 8;

/** Owners with at most this many vectors are ranked by an int8 scan of all of them. */
const INT8_SCAN_LIMIT = 4096;

/**
 * Code candidates ranked by int8 per query, and at least this many: the nearest by weight
 * (code-cache.ts) of the CODE_SHORTLIST nearest by Hamming distance. Each candidate's int8 vector
 * is a random read of a page (~3 µs), each code weighed ~0.4 µs. On 100,000 memories of one owner
 * (built-in embedder, 512-d, 100 queries, 3 December 2026) recall@10 of the exact ranking was
 * 0.976 for the 600 nearest by Hamming distance alone; 0.983 / 0.985 for 250 / 300 by weight of
 * 1,000 (of 800: 0.982 / 0.984; of 1,500: 0.984 / 0.988); 150–200 of any of them 0.971–0.976.
 */
const MIN_CODE_CANDIDATES = 300;
/** Codes nearest by Hamming distance that are weighed for the candidates, and at least this many. */
const CODE_SHORTLIST = 1000;
const SHORTLIST_FACTOR = 3;

/**
 * Neighbours past k rescored with the exact vectors, so one that int8 ranked just below the k-th
 * (its cosine is within ~2e-3 of the exact one) can still take its place. One owner of 100,000
 * keeps recall@10 of the exact ranking at 0.979 with 16 and with 32 (and 800 code candidates):
 * what it loses is lost in the code stage, so a wider margin only costs every search.
 */
export const EXACT_RESCORE_MARGIN = 16;
const CODE_CANDIDATE_FACTOR = 2;

/** What `nearest` and `rescore` do for an owner of `vectors` memories asked for `n` (the bench prints it). */
export function nearestMethod(vectors: number, n: number): string {
  const rescored = `the first ${n} rescored with the exact (int16) vectors`;
  if (vectors <= INT8_SCAN_LIMIT)
    return `int8 cosine (SIMD dot products in WebAssembly) over all ${vectors} vectors, ${rescored}`;
  const candidates = Math.max(MIN_CODE_CANDIDATES, n * CODE_CANDIDATE_FACTOR);
  const shortlist = Math.max(CODE_SHORTLIST, candidates * SHORTLIST_FACTOR);
  return `${CODE_BITS}-bit codes by Hamming distance (popcount in WebAssembly over all ${vectors}, kept in memory per connection) pick ${shortlist}, weighed by the query's projections to ${candidates} candidates, int8 cosine (SIMD in WebAssembly) ranks them, ${rescored}`;
}

/** The key of a memory's int8 row: owner × 2^36 + rowid (SQL literal; keys are never read into JS). */
export const OWNER_STRIDE = '68719476736';
const MAX_ROWID = 2 ** 36;

export interface Neighbour {
  rowid: number;
  /** Cosine distance (1 − cosine similarity): of the int8 vectors from `nearest`, exact after `rescore`. */
  distance: number;
}

/** The owner a vector belongs to: k-NN reads only the vectors of that owner. */
export function vectorScope(tenant: string, userId: string): string {
  return `${tenant}\u001f${userId}`;
}

/** SQL creating the tables of a vector space named `table` (a store's, or a re-index target's). */
export function vectorTablesDefinition(table: string): string {
  return `
    CREATE TABLE ${table}_owners (
      owner INTEGER PRIMARY KEY,
      scope TEXT NOT NULL UNIQUE,
      vectors INTEGER NOT NULL
    );
    CREATE TABLE ${table} (key INTEGER PRIMARY KEY, quantised BLOB NOT NULL);
    CREATE TABLE ${table}_exact (key INTEGER PRIMARY KEY, exact BLOB NOT NULL);
    CREATE TABLE ${table}_codes (
      scope TEXT NOT NULL,
      rowid INTEGER NOT NULL,
      code BLOB NOT NULL,
      PRIMARY KEY (scope, rowid)
    ) WITHOUT ROWID;
  `;
}

export function dropVectorTables(db: Database, table: string): void {
  db.exec(`
    DROP TABLE IF EXISTS ${table}; DROP TABLE IF EXISTS ${table}_exact;
    DROP TABLE IF EXISTS ${table}_codes; DROP TABLE IF EXISTS ${table}_owners;
  `);
  // The owners' removal counts, and the space-wide count files written before 3 December 2026 kept.
  db.prepare('DELETE FROM store_meta WHERE key = ? OR key GLOB ?').run(`${table}_removed`, removedCounter(table, '*'));
}

/**
 * The store_meta key counting the vectors ever removed from one owner of the space `table`. Kept
 * when the owner's last vector goes, so a later owner under the same number never starts from a
 * count a cache already saw.
 */
function removedCounter(table: string, owner: number | '*'): string {
  return `${table}_removed:${owner}`;
}

/** A statement source → prepared statement function for `db` that prepares each source once. */
export function preparedOnce(db: Database): (source: string) => Statement {
  const statements = new Map<string, Statement>();
  return (source) => {
    let statement = statements.get(source);
    if (!statement) {
      statement = db.prepare(source);
      statements.set(source, statement);
    }
    return statement;
  };
}

/** The vectors of one space: every call runs on the caller's connection (and inside its transaction). */
export class SqliteVectors {
  private readonly coder: BinaryCoder;
  /** Large owners' codes, kept by this connection (code-cache.ts). */
  private readonly codes: CodeCache;
  /** Small owners' int8 vectors, kept by this connection (int8-cache.ts). */
  private readonly int8: Int8Cache;
  /** A large owner's candidates' int8 vectors, read for each search (its memory kept for the next). */
  private candidateBlock: Int8Block | undefined;
  /** Exact cosines of the vectors a search rescores or looks up (its memory kept for the next). */
  private readonly cosines: ExactCosines;

  constructor(
    private readonly sql: (source: string) => Statement,
    readonly table: string,
    private readonly dimension: number,
  ) {
    this.coder = new BinaryCoder(dimension);
    this.cosines = new ExactCosines(dimension);
    this.int8 = new Int8Cache(
      {
        // One value for all the vectors (not a Buffer per row), their rowids beside in the same order.
        vectorsAfter: (owner, after) => {
          const { rowids, vectors } = this.sql(
            `SELECT json_group_array(key - @owner * ${OWNER_STRIDE}) AS rowids,
               CAST(group_concat(quantised, '') AS BLOB) AS vectors
             FROM ${this.table} WHERE key > @owner * ${OWNER_STRIDE} + @after AND key < (@owner + 1) * ${OWNER_STRIDE}`,
          ).get({ owner, after }) as { rowids: string; vectors: Buffer | null };
          return { rowids: JSON.parse(rowids) as number[], vectors: vectors ?? new Uint8Array(0) };
        },
      },
      dimension,
    );
    this.codes = new CodeCache({
      // One value for all the codes (not a Buffer per row), their rowids beside in the same (the key's) order.
      codesAfter: (scope, after) => {
        const { rowids, codes } = this.sql(
          `SELECT json_group_array(rowid) AS rowids, CAST(group_concat(code, '') AS BLOB) AS codes
           FROM ${this.table}_codes WHERE scope = ? AND rowid > ?`,
        ).get(scope, after) as { rowids: string; codes: Buffer | null };
        return { rowids: JSON.parse(rowids) as number[], codes: codes ?? new Uint8Array(0) };
      },
    });
  }

  add(rowid: bigint, scope: string, vector: Float32Array): void {
    if (rowid >= BigInt(MAX_ROWID)) throw new Error(`rowid ${rowid} is past the vector keys' range (2^36)`);
    const owner = this.countIn(scope);
    const { quantised, exact } = storedForms(vector);
    this.sql(`INSERT INTO ${this.table} (key, quantised) VALUES (? * ${OWNER_STRIDE} + ?, ?)`).run(
      owner,
      rowid,
      quantised,
    );
    this.sql(`INSERT INTO ${this.table}_exact (key, exact) VALUES (? * ${OWNER_STRIDE} + ?, ?)`).run(
      owner,
      rowid,
      exact,
    );
    this.sql(`INSERT INTO ${this.table}_codes (scope, rowid, code) VALUES (?, ?, ?)`).run(
      scope,
      rowid,
      this.coder.code(vector),
    );
  }

  /**
   * Counts one more vector for `scope` and answers its owner number. A read and then a plain
   * UPDATE or INSERT, not an upsert with RETURNING: SQLite runs such a statement inside a statement
   * savepoint, and every savepoint makes FTS5 flush its pending keyword entries to a segment of
   * their own, so a batch's keyword index was written one memory at a time (and merged again).
   */
  private countIn(scope: string): number {
    const known = this.owner(scope);
    if (known) {
      this.sql(`UPDATE ${this.table}_owners SET vectors = vectors + 1 WHERE owner = ?`).run(known.owner);
      return known.owner;
    }
    return Number(
      this.sql(`INSERT INTO ${this.table}_owners (scope, vectors) VALUES (?, 1)`).run(scope).lastInsertRowid,
    );
  }

  /** Removes a memory's vector (nothing when it has none); an owner without vectors left goes. */
  remove(rowid: bigint, scope: string): void {
    const removed = this.sql(`DELETE FROM ${this.table}_codes WHERE scope = ? AND rowid = ?`).run(scope, rowid);
    if (removed.changes === 0) return;
    const known = this.owner(scope) as { owner: number; vectors: number };
    const { owner } = known;
    // Counted, so a connection holding this owner's int8 vectors or codes reads them again (int8-cache.ts,
    // code-cache.ts); other owners' caches stay.
    const key = this.removedKey(owner);
    const counted = this.sql('UPDATE store_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = ?').run(key);
    if (counted.changes === 0) this.sql("INSERT INTO store_meta (key, value) VALUES (?, '1')").run(key);
    const vectors = known.vectors - 1;
    this.sql(`UPDATE ${this.table}_owners SET vectors = ? WHERE owner = ?`).run(vectors, owner);
    this.sql(`DELETE FROM ${this.table} WHERE key = ? * ${OWNER_STRIDE} + ?`).run(owner, rowid);
    this.sql(`DELETE FROM ${this.table}_exact WHERE key = ? * ${OWNER_STRIDE} + ?`).run(owner, rowid);
    if (vectors === 0) this.sql(`DELETE FROM ${this.table}_owners WHERE owner = ?`).run(owner);
  }

  /**
   * The `n` nearest vectors of one owner by the cosine of their int8 vectors, nearest first: a
   * scan of all of them, or for a large owner of the nearest by code. `rescore` makes the first
   * ones exact.
   */
  nearest(scope: string, vector: Float32Array, n: number): Neighbour[] {
    const owner = this.owner(scope);
    if (owner === undefined || n <= 0) return [];
    const { quantised } = storedForms(vector);
    const query = new Int8Array(quantised.buffer, quantised.byteOffset, quantised.length);
    if (owner.vectors <= INT8_SCAN_LIMIT) {
      const { highest, removed } = this.sql(
        `SELECT max(key) - @owner * ${OWNER_STRIDE} AS highest,
           (SELECT value FROM store_meta WHERE key = @counter) AS removed
         FROM ${this.table} WHERE key >= @owner * ${OWNER_STRIDE} AND key < (@owner + 1) * ${OWNER_STRIDE}`,
      ).get({ owner: owner.owner, counter: this.removedKey(owner.owner) }) as {
        highest: number | null;
        removed: string | null;
      };
      return this.int8.nearest(
        scope,
        { owner: owner.owner, vectors: owner.vectors, highest: highest ?? 0, removed: Number(removed ?? 0) },
        query,
        n,
      );
    }
    const { highest, removed } = this.sql(
      `SELECT max(rowid) AS highest, (SELECT value FROM store_meta WHERE key = @counter) AS removed
       FROM ${this.table}_codes WHERE scope = @scope`,
    ).get({ scope, counter: this.removedKey(owner.owner) }) as { highest: number; removed: string | null };
    const wanted = Math.max(MIN_CODE_CANDIDATES, n * CODE_CANDIDATE_FACTOR);
    const candidates = this.codes.nearest(
      scope,
      { owner: owner.owner, vectors: owner.vectors, highest, removed: Number(removed ?? 0) },
      queryCode(this.coder.projections(vector)),
      Math.max(CODE_SHORTLIST, wanted * SHORTLIST_FACTOR),
      wanted,
    );
    // Ranked by the int8 vectors the file holds now: a candidate deleted since its code was read has
    // none. One value for all of them, their rowids beside, ranked by the WebAssembly scan (600
    // candidates: the read ~1.9 ms, the scan ~0.07; sqlite-vec's cosine on each row in SQL ~2.3 ms).
    const read = this.sql(
      `SELECT json_group_array(c.value) AS rowids, CAST(group_concat(v.quantised, '') AS BLOB) AS vectors
       FROM json_each(@candidates) c CROSS JOIN ${this.table} v ON v.key = @owner * ${OWNER_STRIDE} + c.value`,
    ).get({ owner: owner.owner, candidates: JSON.stringify(candidates) }) as { rowids: string; vectors: Buffer | null };
    const rowids = JSON.parse(read.rowids) as number[];
    this.candidateBlock ??= new Int8Block(this.dimension, rowids.length);
    const block = this.candidateBlock;
    block.clear();
    block.append(rowids, read.vectors ?? new Uint8Array(0));
    return block.nearest(query, n);
  }

  /**
   * The neighbours of `vector` among `candidates` (as `nearest` ranked them) with the first `count`
   * given their exact distance and put in exact order; the rest keep theirs, behind.
   */
  rescore(scope: string, candidates: readonly Neighbour[], vector: Float32Array, count: number): Neighbour[] {
    const first = candidates.slice(0, count);
    if (first.length === 0) return [...candidates];
    const exact = this.exactOf(
      scope,
      first.map((c) => c.rowid),
    );
    const distances = this.cosines.distances(exact.vectors, exact.rowids.length, vector);
    const rescored = exact.rowids.map((rowid, i) => ({ rowid, distance: distances[i] as number }));
    rescored.sort((a, b) => a.distance - b.distance || a.rowid - b.rowid);
    return [...rescored, ...candidates.slice(count)];
  }

  /** Every exact vector of one owner, by rowid, as float32 (what the bench's exact scan ranks). */
  exactVectors(scope: string): Array<{ rowid: number; vector: Float32Array }> {
    const owner = this.owner(scope)?.owner;
    if (owner === undefined) return [];
    const rows = this.sql(
      `SELECT key - @owner * ${OWNER_STRIDE} AS rowid, exact FROM ${this.table}_exact
       WHERE key > @owner * ${OWNER_STRIDE} AND key < (@owner + 1) * ${OWNER_STRIDE}`,
    ).all({ owner }) as Array<{ rowid: number; exact: Buffer }>;
    return rows.map(({ rowid, exact }) => {
      const stored = Uint8Array.from(exact);
      return { rowid, vector: Float32Array.from(new Int16Array(stored.buffer)) };
    });
  }

  /** The store_meta key counting the vectors ever removed from `owner` in this space. */
  private removedKey(owner: number): string {
    return removedCounter(this.table, owner);
  }

  /** How many vectors an owner holds (0 for none). */
  ownerSize(scope: string): number {
    return this.owner(scope)?.vectors ?? 0;
  }

  /**
   * Exact cosine distances between stored vectors of one owner and `vector`, by rowid (memories
   * without one, or of another owner, left out): one statement for all of them.
   */
  distances(scope: string, rowids: readonly number[], vector: Float32Array): Map<number, number> {
    const result = new Map<number, number>();
    if (rowids.length === 0) return result;
    const exact = this.exactOf(scope, rowids);
    const distances = this.cosines.distances(exact.vectors, exact.rowids.length, vector);
    exact.rowids.forEach((rowid, i) => {
      result.set(rowid, distances[i] as number);
    });
    return result;
  }

  /** Memories holding a vector. */
  count(): number {
    return this.sql(`SELECT coalesce(sum(vectors), 0) FROM ${this.table}_owners`).pluck().get() as number;
  }

  /**
   * The exact vectors of these rowids of one owner (those that have one) in one value: better-sqlite3 makes a
   * Buffer of every blob it answers, ~6 µs each for a 1 KB vector (a rescore of 56: ~0.36 ms, the
   * statement itself ~0.03 ms), so SQLite concatenates them (group_concat copies a blob's bytes as
   * they are: the file is UTF-8, and no text is decoded) and their rowids come beside them in the
   * same order.
   */
  private exactOf(scope: string, rowids: readonly number[]): ExactVectors {
    const owner = this.owner(scope)?.owner;
    if (owner === undefined) return { rowids: [], vectors: new Uint8Array(0) };
    const { listed, exact } = this.sql(
      `SELECT json_group_array(c.value) AS listed, CAST(group_concat(e.exact, '') AS BLOB) AS exact
       FROM json_each(?) c CROSS JOIN ${this.table}_exact e ON e.key = ? * ${OWNER_STRIDE} + c.value`,
    ).get(JSON.stringify(rowids), owner) as { listed: string; exact: Buffer | null };
    const found = JSON.parse(listed) as number[];
    if (found.length === 0 || exact === null) return { rowids: [], vectors: new Uint8Array(0) };
    if (exact.length !== found.length * this.dimension * 2) {
      throw new Error(`exact vectors of ${exact.length} bytes for ${found.length} of dimension ${this.dimension}`);
    }
    return { rowids: found, vectors: exact };
  }

  private owner(scope: string): { owner: number; vectors: number } | undefined {
    return this.sql(`SELECT owner, vectors FROM ${this.table}_owners WHERE scope = ?`).get(scope) as
      | { owner: number; vectors: number }
      | undefined;
  }
}

/** Exact vectors (int16 little-endian, as stored) of `rowids`, one after another in their order. */
interface ExactVectors {
  rowids: number[];
  vectors: Uint8Array;
}

/**
 * A vector as the store keeps it, scaled so its largest coordinate is the largest integer of each
 * width (cosine ignores scale): int8 for ranking, int16 little-endian as the exact vector. A zero
 * vector stays zeros.
 */
export function storedForms(vector: Float32Array): { quantised: Buffer; exact: Buffer } {
  let largest = 0;
  for (let i = 0; i < vector.length; i++) largest = Math.max(largest, Math.abs(vector[i] as number));
  const quantised = new Int8Array(vector.length);
  const exact = new Int16Array(vector.length);
  if (largest !== 0 && Number.isFinite(largest)) {
    // Typed arrays instead of Buffer.writeInt8/writeInt16LE per coordinate (~4x the time of a write's
    // vector forms); Int16Array is in the host's byte order, so a big-endian host swaps after.
    // floor(v + 0.5) is Math.round for these values at a third of its time (12 → 4 µs per 512-d vector).
    for (let i = 0; i < vector.length; i++) {
      const x = (vector[i] as number) / largest;
      quantised[i] = Math.floor(x * 127 + 0.5);
      exact[i] = Math.floor(x * 32767 + 0.5);
    }
  }
  const exactBytes = Buffer.from(exact.buffer, exact.byteOffset, exact.byteLength);
  if (!LITTLE_ENDIAN) exactBytes.swap16();
  return { quantised: Buffer.from(quantised.buffer, quantised.byteOffset, quantised.byteLength), exact: exactBytes };
}

const LITTLE_ENDIAN = endianness() === 'LE';

/** The 1,024-bit code of vectors of one dimension (see the top of this file). */
export class BinaryCoder {
  /** Length of the transform: the dimension rounded up to a power of two. */
  private readonly size: number;
  /** Per round, ±1 for each coordinate before the transform. */
  private readonly signs: Float64Array[];

  constructor(private readonly dimension: number) {
    let size = 1;
    while (size < dimension) size *= 2;
    this.size = size;
    this.signs = Array.from({ length: Math.ceil(CODE_BITS / size) }, (_, round) =>
      Float64Array.from({ length: size }, (_, i) => (mixBits(round * size + i + 1) & 1 ? -1 : 1)),
    );
  }

  /** The code, least significant bit first: bit i set when projection i is above 0. */
  code(vector: Float32Array): Buffer {
    const projections = this.projections(vector);
    const code = Buffer.allocUnsafe(CODE_BYTES);
    // Without a branch per bit: the signs are random, so a branch was mispredicted every other bit.
    for (let byte = 0; byte < CODE_BYTES; byte++) {
      let bits = 0;
      for (let j = 0, at = byte * 8; j < 8; j++) bits |= Number((projections[at + j] as number) > 0) << j;
      code[byte] = bits;
    }
    return code;
  }

  /** The vector's 1,024 projections on the code's hyperplanes (unnormalised). */
  projections(vector: Float32Array): Float64Array {
    if (vector.length !== this.dimension) {
      throw new Error(`vector has dimension ${vector.length}, the code is for ${this.dimension}`);
    }
    const projections = new Float64Array(CODE_BITS);
    const work = new Float64Array(this.size);
    let bit = 0;
    for (const flip of this.signs) {
      work.fill(0);
      for (let i = 0; i < vector.length; i++) work[i] = (vector[i] as number) * (flip[i] as number);
      walshHadamard(work);
      for (let i = 0; i < this.size && bit < CODE_BITS; i++, bit++) projections[bit] = work[i] as number;
    }
    return projections;
  }
}

/** A fixed integer hash (the finaliser of MurmurHash3): a stable pseudo-random bit per index. */
function mixBits(value: number): number {
  let h = value | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** In-place fast Walsh–Hadamard transform (unnormalised; only signs are read). */
function walshHadamard(values: Float64Array): void {
  for (let half = 1; half < values.length; half *= 2) {
    for (let start = 0; start < values.length; start += half * 2) {
      for (let i = start; i < start + half; i++) {
        const a = values[i] as number;
        const b = values[i + half] as number;
        values[i] = a + b;
        values[i + half] = a - b;
      }
    }
  }
}
