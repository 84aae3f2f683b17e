import type { Database, Statement } from 'better-sqlite3';

/**
 * Vector storage of the embedded store, in two plain tables whose bytes grow with the memories
 * alone, whatever the number of owners (a vec0 partition per owner allocated a whole chunk for
 * each: ~265 KB for an owner of one memory):
 *
 * - `<table>`: the exact float32 vector of each memory (rescoring, similarities), packed into
 *   blocks of consecutive rowids of about 16 KB: a row of one 512-d vector (2 KB) took a 4 KB page
 *   of its own, a block spills into overflow pages filled to the brim;
 * - `<table>_codes`: a 1,024-bit binary code of each vector, clustered by owner, scanned for
 *   k-NN candidates (Hamming distance over 128 bytes per memory instead of cosine over the floats:
 *   100,000 memories of one owner in ~13 ms instead of ~140 ms), which the exact vectors rescore.
 *
 * The code is the sign of each coordinate after a fixed random rotation (random sign flips, then
 * a Walsh–Hadamard transform, repeated until 1,024 bits are drawn): each bit is a random
 * hyperplane, so the Hamming distance between two codes estimates the angle between their vectors
 * (SimHash). It depends on nothing but the vector and its dimension, so every connection and
 * release computes the same code. Changing it needs a migration that recomputes the codes.
 */
const CODE_BITS = 1024;
const CODE_BYTES = CODE_BITS / 8;

/**
 * Candidates rescored with the exact vectors per query, and at least this many: on 100,000
 * memories of one owner (built-in embedder, 512-d) 400 candidates kept recall@10 of the exact
 * ranking at 0.976–0.980, 800 at 0.988; an owner with fewer memories than this is ranked exactly.
 */
const MIN_RESCORED = 600;
const RESCORE_FACTOR = 2;

/** Bytes of a block of exact vectors (consecutive rowids; the slots of deleted ones are zeros). */
const BLOCK_BYTES = 16 * 1024;

export interface Neighbour {
  rowid: number;
  /** Cosine distance of the exact vectors (1 − cosine similarity). */
  distance: number;
}

/** The owner a vector belongs to: k-NN reads only the codes of that owner. */
export function vectorScope(tenant: string, userId: string): string {
  return `${tenant}\u001f${userId}`;
}

/** SQL creating the two tables of a vector space named `table` (a store's, or a re-index target's). */
export function vectorTablesDefinition(table: string): string {
  return `
    CREATE TABLE ${table} (block INTEGER PRIMARY KEY, vectors BLOB NOT NULL);
    CREATE TABLE ${table}_codes (
      scope TEXT NOT NULL,
      rowid INTEGER NOT NULL,
      code BLOB NOT NULL,
      PRIMARY KEY (scope, rowid)
    ) WITHOUT ROWID;
  `;
}

export function dropVectorTables(db: Database, table: string): void {
  db.exec(`DROP TABLE IF EXISTS ${table}; DROP TABLE IF EXISTS ${table}_codes;`);
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
  /** Vectors per block, and the bytes of one. */
  private readonly slots: number;
  private readonly slotBytes: number;

  constructor(
    private readonly sql: (source: string) => Statement,
    readonly table: string,
    dimension: number,
  ) {
    this.coder = new BinaryCoder(dimension);
    this.slotBytes = dimension * 4;
    this.slots = Math.max(1, Math.floor(BLOCK_BYTES / this.slotBytes));
  }

  add(rowid: bigint, scope: string, vector: Float32Array): void {
    this.placeInSlot(rowid, vectorBytes(vector));
    this.sql(`INSERT INTO ${this.table}_codes (scope, rowid, code) VALUES (?, ?, ?)`).run(
      scope,
      rowid,
      this.coder.code(vector),
    );
  }

  /** Removes a memory's vector (nothing when it has none): its slot is zeroed, an empty block goes. */
  remove(rowid: bigint, scope: string): void {
    const removed = this.sql(`DELETE FROM ${this.table}_codes WHERE scope = ? AND rowid = ?`).run(scope, rowid);
    if (removed.changes === 0) return;
    this.placeInSlot(rowid, Buffer.alloc(this.slotBytes));
    this.sql(`DELETE FROM ${this.table} WHERE block = ? AND vectors = zeroblob(?)`).run(
      rowid / BigInt(this.slots),
      this.slots * this.slotBytes,
    );
  }

  /** Writes `bytes` into the slot of `rowid`, creating its block (zeros elsewhere) when it has none. */
  private placeInSlot(rowid: bigint, bytes: Buffer): void {
    const block = rowid / BigInt(this.slots);
    const offset = Number(rowid % BigInt(this.slots)) * this.slotBytes;
    // `||` concatenates as text: cast back, so the column stays a blob of the same bytes.
    const spliced = this.sql(
      `UPDATE ${this.table} SET vectors = CAST(substr(vectors, 1, ?) || ? || substr(vectors, ?) AS BLOB) WHERE block = ?`,
    ).run(offset, bytes, offset + bytes.length + 1, block);
    if (spliced.changes > 0) return;
    const fresh = Buffer.alloc(this.slots * this.slotBytes);
    bytes.copy(fresh, offset);
    this.sql(`INSERT INTO ${this.table} (block, vectors) VALUES (?, ?)`).run(block, fresh);
  }

  /**
   * The `n` nearest vectors of one owner, by exact cosine distance, nearest first: candidates by
   * the Hamming distance of their codes, rescored with their exact vectors.
   */
  nearest(scope: string, vector: Float32Array, n: number): Neighbour[] {
    const candidates = this.sql(
      `SELECT rowid FROM ${this.table}_codes WHERE scope = ?
       ORDER BY vec_distance_hamming(vec_bit(code), vec_bit(?)) LIMIT ?`,
    )
      .pluck()
      .all(scope, this.coder.code(vector), Math.max(MIN_RESCORED, n * RESCORE_FACTOR)) as number[];
    if (candidates.length === 0) return [];
    return this.sql(
      `SELECT c.value AS rowid, vec_distance_cosine(${this.slotOf('c.value')}, ?) AS distance
       FROM json_each(?) c CROSS JOIN ${this.table} b ON b.block = c.value / ${this.slots}
       ORDER BY distance, rowid LIMIT ?`,
    ).all(vectorBytes(vector), JSON.stringify(candidates), n) as Neighbour[];
  }

  /** SQL reading the exact vector of the rowid `rowid` from its block `b`. */
  private slotOf(rowid: string): string {
    return `substr(b.vectors, (${rowid} % ${this.slots}) * ${this.slotBytes} + 1, ${this.slotBytes})`;
  }

  /** The exact nearest vectors by a scan of every one of the owner's vectors (the floor the bench compares with). */
  nearestExact(scope: string, vector: Float32Array, n: number): Neighbour[] {
    return this.sql(
      `SELECT c.rowid, vec_distance_cosine(${this.slotOf('c.rowid')}, ?) AS distance
       FROM ${this.table}_codes c CROSS JOIN ${this.table} b ON b.block = c.rowid / ${this.slots}
       WHERE c.scope = ? ORDER BY distance, c.rowid LIMIT ?`,
    ).all(vectorBytes(vector), scope, n) as Neighbour[];
  }

  /** Cosine distance between a stored vector and `vector`; undefined when the memory has none. */
  distance(rowid: bigint, vector: Float32Array): number | undefined {
    const row = this.sql(
      `SELECT CASE WHEN slot = zeroblob(${this.slotBytes}) THEN NULL ELSE vec_distance_cosine(slot, ?) END AS distance
       FROM (SELECT ${this.slotOf('?')} AS slot FROM ${this.table} b WHERE b.block = ?)`,
    ).get(vectorBytes(vector), rowid, rowid / BigInt(this.slots)) as { distance: number | null } | undefined;
    return row?.distance ?? undefined;
  }

  /** Memories holding a vector. */
  count(): number {
    return this.sql(`SELECT count(*) FROM ${this.table}_codes`).pluck().get() as number;
  }
}

function vectorBytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

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

  /** The code, least significant bit first. */
  code(vector: Float32Array): Buffer {
    if (vector.length !== this.dimension) {
      throw new Error(`vector has dimension ${vector.length}, the code is for ${this.dimension}`);
    }
    const code = Buffer.alloc(CODE_BYTES);
    const work = new Float64Array(this.size);
    let bit = 0;
    for (const flip of this.signs) {
      work.fill(0);
      for (let i = 0; i < vector.length; i++) work[i] = (vector[i] as number) * (flip[i] as number);
      walshHadamard(work);
      for (let i = 0; i < this.size && bit < CODE_BITS; i++, bit++) {
        if ((work[i] as number) > 0) code[bit >> 3] = (code[bit >> 3] as number) | (1 << (bit & 7));
      }
    }
    return code;
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
