import type { Database } from 'better-sqlite3';
import { FILTER_INDEX, FILTER_INDEX_COLUMNS } from './filter-sql.ts';
import {
  countKeywordOwners,
  entryKey,
  KEYWORD_OWNERS_DEFINITION,
  KEYWORD_TABLES_DEFINITION,
} from './keyword-search.ts';
import {
  BinaryCoder,
  OWNER_STRIDE,
  preparedOnce,
  SqliteVectors,
  vectorScope,
  vectorTablesDefinition,
} from './vectors.ts';

/**
 * Versioned schema migrations, applied in order inside one transaction each.
 * Never edit a released migration: add the next one.
 * The vector table's dimension is fixed when the store is created (see store.ts).
 */
export const MIGRATIONS: ReadonlyArray<{
  version: number;
  up: (db: Database, dimension: number) => void;
  /** The migration frees much of the file: the store rewrites it without the free pages afterwards (VACUUM). */
  compact?: boolean;
}> = [
  {
    version: 1,
    up: (db, dimension) => {
      db.exec(`
        CREATE TABLE memories (
          rowid INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          tenant TEXT NOT NULL,
          user_id TEXT NOT NULL,
          agent_id TEXT,
          session_id TEXT,
          layer TEXT NOT NULL,
          category TEXT NOT NULL,
          content TEXT NOT NULL,
          query TEXT,
          tags TEXT NOT NULL,
          metadata TEXT NOT NULL,
          confidence REAL NOT NULL,
          importance REAL,
          proof_count INTEGER NOT NULL,
          source TEXT NOT NULL,
          occurred_at INTEGER NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          valid_until INTEGER,
          status TEXT NOT NULL,
          superseded_by TEXT,
          history TEXT NOT NULL,
          access_count INTEGER NOT NULL,
          last_accessed_at INTEGER,
          decay_weight REAL NOT NULL,
          content_hash TEXT NOT NULL,
          embedding_model TEXT NOT NULL
        );
        CREATE UNIQUE INDEX memories_active_hash ON memories (tenant, user_id, layer, content_hash) WHERE status = 'active';
        CREATE INDEX memories_scope ON memories (tenant, user_id, layer, status);
        CREATE INDEX memories_session ON memories (tenant, session_id);
        CREATE INDEX memories_created ON memories (tenant, created_at);
        CREATE TABLE memory_tags (
          memory_rowid INTEGER NOT NULL REFERENCES memories (rowid) ON DELETE CASCADE,
          tag TEXT NOT NULL,
          PRIMARY KEY (memory_rowid, tag)
        ) WITHOUT ROWID;
        CREATE INDEX memory_tags_tag ON memory_tags (tag);
        CREATE VIRTUAL TABLE memory_vectors USING vec0(
          scope TEXT PARTITION KEY,
          embedding float[${dimension}] distance_metric=cosine
        );
        CREATE VIRTUAL TABLE memory_terms USING fts5(scope, terms, tokenize = 'unicode61 remove_diacritics 0');
      `);
    },
  },
  {
    // k-NN chunks of 128 vectors instead of 1024: an insert rewrites a far smaller chunk (1,000
    // inserts at 100k memories: ~590 ms → ~75 ms) for ~0.2 ms more per k-NN. Keyword terms carry
    // their (tenant, user) scope in every token, so a match reads only that user's postings
    // (~9 ms → ~0.2 ms at 100k); the terms are rebuilt by the store on open.
    version: 2,
    up: (db, dimension) => {
      db.exec(`
        CREATE VIRTUAL TABLE memory_embeddings USING vec0(
          scope TEXT PARTITION KEY,
          embedding float[${dimension}] distance_metric=cosine,
          chunk_size=128
        );
        INSERT INTO memory_embeddings (rowid, scope, embedding) SELECT rowid, scope, embedding FROM memory_vectors;
        DROP TABLE memory_vectors;
        DROP TABLE memory_terms;
        CREATE VIRTUAL TABLE memory_keywords USING fts5(terms, tokenize = 'unicode61 remove_diacritics 0');
        CREATE VIRTUAL TABLE memory_keywords_vocab USING fts5vocab(memory_keywords, 'row');
        DELETE FROM store_meta WHERE key = 'keyword_index_version';
      `);
    },
  },
  {
    // Optimistic concurrency: an update commits only while the row still has the version it was decided on.
    version: 3,
    up: (db) => {
      db.exec('ALTER TABLE memories ADD COLUMN version INTEGER NOT NULL DEFAULT 1');
    },
  },
  {
    // User erasure tombstones: who was erased when and what went where (counts, never content).
    version: 4,
    up: (db) => {
      db.exec(`
        CREATE TABLE IF NOT EXISTS erasures (
          rowid INTEGER PRIMARY KEY,
          erasure_id TEXT NOT NULL UNIQUE,
          tenant TEXT NOT NULL,
          user_id TEXT NOT NULL,
          receipt TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS erasures_owner ON erasures (tenant, user_id, rowid);
      `);
    },
  },
  {
    // A memory's history walks the memories it superseded by index, one lookup per version.
    version: 5,
    up: (db) => {
      db.exec(
        'CREATE INDEX IF NOT EXISTS memories_superseded_by ON memories (tenant, superseded_by) WHERE superseded_by IS NOT NULL',
      );
    },
  },
  {
    // Vectors move out of vec0, whose partition per owner allocated a whole chunk each (~265 KB
    // for an owner of one memory: 2,000 owners of one memory took 530 MB), into plain tables that
    // grow with the memories alone (vectors.ts): exact vectors by rowid and a binary code of each,
    // clustered by owner, for k-NN candidates. A re-index in progress moves with the store.
    version: 6,
    compact: true,
    up: (db, dimension) => {
      const meta = db.prepare('SELECT value FROM store_meta WHERE key = ?').pluck();
      const setMeta = db.prepare('INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)');
      const serving = (meta.get('vector_table') as string | undefined) ?? 'memory_embeddings';
      setMeta.run('vector_table', moveVectorsOutOfVec0(db, serving, dimension));
      const reindexing = meta.get('reindex_table') as string | undefined;
      if (reindexing !== undefined) {
        setMeta.run('reindex_table', moveVectorsOutOfVec0(db, reindexing, Number(meta.get('reindex_dimension'))));
      }
    },
  },
  {
    // Each owner's keyword statistics kept beside their keyword entries (keyword-search.ts): how many
    // memories they hold and their own and context terms, for BM25's document count and average
    // length without counting the owner's rows on every search (~7 ms for an owner of 100,000).
    version: 7,
    up: (db) => {
      db.exec(KEYWORD_OWNERS_DEFINITION);
      countKeywordOwners(preparedOnce(db));
    },
  },
  {
    // Vectors leave the float32 blocks of consecutive rowids (a candidate read a 16 KB block shared
    // with other owners: ~10 MB per k-NN of an owner of 1,000) for int8 rows keyed by owner, so an
    // owner's vectors sit together, and int16 exact vectors by rowid (vectors.ts). A re-index in
    // progress moves with the store.
    version: 8,
    compact: true,
    up: (db, dimension) => {
      const meta = db.prepare('SELECT value FROM store_meta WHERE key = ?').pluck();
      moveVectorsOutOfBlocks(db, (meta.get('vector_table') as string | undefined) ?? 'memory_vectors', dimension);
      const reindexing = meta.get('reindex_table') as string | undefined;
      if (reindexing !== undefined) moveVectorsOutOfBlocks(db, reindexing, Number(meta.get('reindex_dimension')));
    },
  },
  {
    // The keyword index keeps no copy of its owner-scoped tokens (~500 characters per memory, read
    // back for every match a search counted), and each entry's terms sit beside it without the
    // owner's prefix (keyword-search.ts): the store rebuilds the entries on open.
    version: 9,
    compact: true,
    up: (db) => {
      db.exec(`
        DROP TABLE memory_keywords_vocab;
        DROP TABLE memory_keywords;
        -- Present in a file whose schema version was set back by hand; rebuilt with the rest.
        DROP TABLE IF EXISTS memory_keyword_terms;
        CREATE VIRTUAL TABLE memory_keywords USING fts5(
          terms, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
        );
        CREATE VIRTUAL TABLE memory_keywords_vocab USING fts5vocab(memory_keywords, 'row');
        CREATE TABLE memory_keyword_terms (rowid INTEGER PRIMARY KEY, terms TEXT NOT NULL);
        DELETE FROM store_meta WHERE key = 'keyword_index_version';
      `);
    },
  },
  {
    // A contentless_delete index only marks a deleted entry and keeps its tokens in its pages until
    // a merge (an erased user's words stayed in the file): the index becomes a contentless one whose
    // entries leave it by FTS5's 'delete', which secure-delete carries out at once (keyword-search.ts).
    // The store rebuilds the entries on open.
    version: 10,
    compact: true,
    up: (db) => {
      db.exec(`
        DROP TABLE memory_keywords_vocab;
        DROP TABLE memory_keywords;
        DROP TABLE memory_keyword_terms;
        ${KEYWORD_TABLES_DEFINITION}
        DELETE FROM store_meta WHERE key = 'keyword_index_version';
      `);
    },
  },
  {
    // Each keyword entry's terms keyed by its owner's number × 2³⁶ + the memory's rowid instead of
    // the rowid alone (keyword-search.ts, entryKey), so a search counting its matches' terms reads
    // its owner's few pages instead of one page of other owners' entries per match.
    version: 11,
    up: (db) => {
      db.exec(`
        CREATE TABLE memory_keyword_terms_by_owner (rowid INTEGER PRIMARY KEY, terms TEXT NOT NULL);
        INSERT INTO memory_keyword_terms_by_owner (rowid, terms)
          SELECT ${entryKey('o.id', 't.rowid')}, t.terms FROM memory_keyword_terms t
          JOIN memories m ON m.rowid = t.rowid
          JOIN keyword_owners o ON o.tenant = m.tenant AND o.user_id = m.user_id
          ORDER BY 1;
        DROP TABLE memory_keyword_terms;
        ALTER TABLE memory_keyword_terms_by_owner RENAME TO memory_keyword_terms;
      `);
    },
  },
  {
    // Exact vectors keyed by owner × 2^36 + rowid, as the int8 ones are (vectors.ts): the ~100 a
    // search reads of an owner sit on that owner's few pages instead of one page each. A re-index
    // in progress moves with the store.
    version: 12,
    compact: true,
    up: (db) => {
      const meta = db.prepare('SELECT value FROM store_meta WHERE key = ?').pluck();
      clusterExactVectors(db, (meta.get('vector_table') as string | undefined) ?? 'memory_vectors');
      const reindexing = meta.get('reindex_table') as string | undefined;
      if (reindexing !== undefined) clusterExactVectors(db, reindexing);
    },
  },
  {
    // Access statistics recorded in a narrow table of their own, keyed by the memory's rowid (rows.ts
    // RECORD_FROM): an access rewrites a page of ~1,000 of these rows instead of the memory's wide
    // row's page. The counts recorded so far stay in `memories`, which the record reads them from too.
    version: 13,
    up: (db) => {
      db.exec(`
        CREATE TABLE IF NOT EXISTS memory_access (
          rowid INTEGER PRIMARY KEY,
          access_count INTEGER NOT NULL,
          last_accessed_at INTEGER
        );
      `);
    },
  },
  {
    // A search's filter check of its keyword matches (filter-sql.ts BY_ROWID_CHECKED) reads this
    // narrow index, ~150 entries a page, instead of each memory's wide row on a page of its own.
    version: 14,
    up: (db) => {
      db.exec(`CREATE INDEX IF NOT EXISTS ${FILTER_INDEX} ON memories (${FILTER_INDEX_COLUMNS.join(', ')})`);
    },
  },
];

/** Rewrites `<table>_exact` of schema 8–11 (by rowid) keyed by owner as vectors.ts keys it, in key order. */
function clusterExactVectors(db: Database, table: string): void {
  const byRowid = db.prepare(`SELECT 1 FROM pragma_table_info(?) WHERE name = 'rowid'`).get(`${table}_exact`);
  // Already keyed by owner (a file whose schema version was set back by hand): nothing to do.
  if (byRowid === undefined) return;
  db.exec(`
    ALTER TABLE ${table}_exact RENAME TO ${table}_exact_schema11;
    CREATE TABLE ${table}_exact (key INTEGER PRIMARY KEY, exact BLOB NOT NULL);
    INSERT INTO ${table}_exact (key, exact)
      SELECT o.owner * ${OWNER_STRIDE} + c.rowid, e.exact
      FROM ${table}_codes c
      CROSS JOIN ${table}_owners o ON o.scope = c.scope
      CROSS JOIN ${table}_exact_schema11 e ON e.rowid = c.rowid
      ORDER BY 1;
    DROP TABLE ${table}_exact_schema11;
  `);
}

/** vec0 tables of schema 2–5: memory_embeddings, then memory_embeddings_g2, _g3 … after re-indexes. */
const VEC0_TABLE = /^memory_embeddings(_g\d+)?$/;
const PLAIN_TABLE = /^memory_vectors(_g\d+)?$/;
const MOVE_BATCH = 1000;

/**
 * Copies every vector of a vec0 table of schema 2–5 into the plain tables of the same generation
 * (memory_embeddings_g3 → memory_vectors_g3) and drops the vec0 table; answers the new name.
 */
function moveVectorsOutOfVec0(db: Database, vec0Table: string, dimension: number): string {
  // Already in plain tables (a file whose schema version was set back by hand): nothing to move.
  if (PLAIN_TABLE.test(vec0Table)) return vec0Table;
  const generation = VEC0_TABLE.exec(vec0Table);
  if (!generation) throw new Error(`store_meta names an unknown vector table "${vec0Table}"`);
  const table = `memory_vectors${generation[1] ?? ''}`;
  const blocks = new Schema6Blocks(db, table, dimension);
  const owners = db.prepare('SELECT rowid, tenant, user_id FROM memories WHERE rowid > ? ORDER BY rowid LIMIT ?');
  // A point lookup per rowid: vec0 answers those from its rowid index.
  const embedding = db.prepare(`SELECT embedding FROM ${vec0Table} WHERE rowid = ?`).pluck();
  for (let after = 0; ; ) {
    const rows = owners.all(after, MOVE_BATCH) as Array<{ rowid: number; tenant: string; user_id: string }>;
    if (rows.length === 0) break;
    for (const row of rows) {
      const bytes = embedding.get(BigInt(row.rowid)) as Buffer | undefined;
      // A re-index target holds vectors only up to its checkpoint.
      if (bytes === undefined) continue;
      blocks.add(row.rowid, vectorScope(row.tenant, row.user_id), new Float32Array(new Uint8Array(bytes).buffer));
    }
    after = (rows[rows.length - 1] as { rowid: number }).rowid;
  }
  blocks.flush();
  db.exec(`DROP TABLE ${vec0Table}`);
  return table;
}

/** Bytes of a block of exact vectors in schema 6 (consecutive rowids; the slots of missing ones are zeros). */
const SCHEMA6_BLOCK_BYTES = 16 * 1024;

/** Vectors per schema-6 block of vectors of `dimension` float32s. */
function schema6Slots(dimension: number): number {
  return Math.max(1, Math.floor(SCHEMA6_BLOCK_BYTES / (dimension * 4)));
}

/**
 * Writes the vector tables of schema 6, as migration 6 made them whatever vectors.ts does today:
 * `<table>` float32 vectors in blocks of consecutive rowids, `<table>_codes` a binary code per
 * vector clustered by owner. Vectors are added in ascending rowid order.
 */
class Schema6Blocks {
  private readonly coder: BinaryCoder;
  private readonly slots: number;
  private readonly insertBlock;
  private readonly insertCode;
  private block: { number: number; bytes: Buffer } | undefined;

  constructor(
    db: Database,
    table: string,
    private readonly dimension: number,
  ) {
    db.exec(`
      CREATE TABLE ${table} (block INTEGER PRIMARY KEY, vectors BLOB NOT NULL);
      CREATE TABLE ${table}_codes (
        scope TEXT NOT NULL,
        rowid INTEGER NOT NULL,
        code BLOB NOT NULL,
        PRIMARY KEY (scope, rowid)
      ) WITHOUT ROWID;
    `);
    this.coder = new BinaryCoder(dimension);
    this.slots = schema6Slots(dimension);
    this.insertBlock = db.prepare(`INSERT INTO ${table} (block, vectors) VALUES (?, ?)`);
    this.insertCode = db.prepare(`INSERT INTO ${table}_codes (scope, rowid, code) VALUES (?, ?, ?)`);
  }

  add(rowid: number, scope: string, vector: Float32Array): void {
    const number = Math.floor(rowid / this.slots);
    if (this.block?.number !== number) {
      this.flush();
      this.block = { number, bytes: Buffer.alloc(this.slots * this.dimension * 4) };
    }
    Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(
      this.block.bytes,
      (rowid % this.slots) * this.dimension * 4,
    );
    this.insertCode.run(scope, BigInt(rowid), this.coder.code(vector));
  }

  flush(): void {
    if (this.block) this.insertBlock.run(this.block.number, this.block.bytes);
    this.block = undefined;
  }
}

/**
 * Moves the vectors of a schema-6 space `table` (float32 blocks) into today's tables of the same
 * name (vectors.ts), reading each block once: the codes, indexed by rowid for the move, say which
 * rowids hold a vector and whose they are.
 */
function moveVectorsOutOfBlocks(db: Database, table: string, dimension: number): void {
  const hasBlocks = db.prepare(`SELECT 1 FROM pragma_table_info(?) WHERE name = 'block'`).get(table);
  // Already moved (a file whose schema version was set back by hand): nothing to do.
  if (hasBlocks === undefined) return;
  db.exec(`
    ALTER TABLE ${table} RENAME TO ${table}_schema6;
    ALTER TABLE ${table}_codes RENAME TO ${table}_codes_schema6;
    CREATE INDEX ${table}_codes_schema6_rowid ON ${table}_codes_schema6 (rowid);
  `);
  db.exec(vectorTablesDefinition(table));
  const vectors = new SqliteVectors(preparedOnce(db), table, dimension);
  const slots = schema6Slots(dimension);
  const slotBytes = dimension * 4;
  const owned = db.prepare(
    `SELECT rowid, scope FROM ${table}_codes_schema6 WHERE rowid > ? ORDER BY rowid LIMIT ${MOVE_BATCH}`,
  );
  const blockOf = db.prepare(`SELECT vectors FROM ${table}_schema6 WHERE block = ?`).pluck();
  let block: { number: number; bytes: Buffer } | undefined;
  for (let after = 0; ; ) {
    const rows = owned.all(after) as Array<{ rowid: number; scope: string }>;
    if (rows.length === 0) break;
    for (const { rowid, scope } of rows) {
      const number = Math.floor(rowid / slots);
      if (block?.number !== number) block = { number, bytes: blockOf.get(number) as Buffer };
      const offset = (rowid % slots) * slotBytes;
      const vector = new Float32Array(new Uint8Array(block.bytes.subarray(offset, offset + slotBytes)).buffer);
      vectors.add(BigInt(rowid), scope, vector);
    }
    after = (rows[rows.length - 1] as { rowid: number }).rowid;
  }
  db.exec(`DROP TABLE ${table}_schema6; DROP TABLE ${table}_codes_schema6;`);
}

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
