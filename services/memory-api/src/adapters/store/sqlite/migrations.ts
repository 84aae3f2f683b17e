import type { Database } from 'better-sqlite3';

/**
 * Versioned schema migrations, applied in order inside one transaction each.
 * Never edit a released migration: add the next one.
 * The vector table's dimension is fixed when the store is created (see store.ts).
 */
export const MIGRATIONS: ReadonlyArray<{ version: number; up: (db: Database, dimension: number) => void }> = [
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
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/**
 * The vec0 table of today's layout (what migration 2 creates), for a re-index building the target
 * space's table beside the one the store serves. Which one it serves is in store_meta (`vector_table`).
 */
export function vectorTableDefinition(name: string, dimension: number): string {
  return `CREATE VIRTUAL TABLE ${name} USING vec0(
    scope TEXT PARTITION KEY,
    embedding float[${dimension}] distance_metric=cosine,
    chunk_size=128
  )`;
}
