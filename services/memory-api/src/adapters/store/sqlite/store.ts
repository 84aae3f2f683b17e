import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { EmbeddingMismatchError } from '@hindsight/errors';
import { ErasureReceipt, type Layer, type MemoryRecord, type MemoryStatus } from '@hindsight/memory-model';
import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import {
  CANDIDATE_FIELDS,
  type Candidate,
  type CandidateQuery,
  type CandidateSet,
  DuplicateContentError,
  type EmbeddingSpace,
  IdTakenError,
  type LayerCounts,
  type MemoryFilter,
  type MemoryStore,
  type NewMemory,
  NoStoreError,
  OwnerChangeError,
  type Page,
  type ReindexableStore,
  type ReindexStatus,
  type SearchScope,
  StaleWriteError,
  StoreInUseError,
  type StorePurge,
  sameSpace,
  type UserLayerCounts,
  type WriteBatch,
} from '../../../memory/store-port.ts';
import { DEFAULT_KEYWORD_RANKING, type KeywordRanking } from '../keywords.ts';
import { recordedSpace, reindexInstruction, unfinishedReindexInstruction } from '../reindex.ts';
import { decodeSequenceCursor, pageBySequence, sequenceBefore } from '../sequence-page.ts';
import { DEFAULT_TURN_CONTEXT, type TurnContextWindow } from '../turn-context.ts';
import { BY_ROWID_LIST, filterToSql, IN_JSON_LIST } from './filter-sql.ts';
import { keywordIndexVersion, SqliteKeywordIndex } from './keyword-search.ts';
import { LATEST_VERSION, MIGRATIONS } from './migrations.ts';
import {
  COLUMNS,
  columnsReader,
  type MemoryRow,
  RECORD_FROM,
  RECORD_SELECT,
  recordFromValues,
  recordToValues,
} from './rows.ts';
import { SqliteTurnIndex, type TurnPosition } from './turn-index.ts';
import {
  dropVectorTables,
  EXACT_RESCORE_MARGIN,
  SqliteVectors,
  vectorScope,
  vectorTablesDefinition,
} from './vectors.ts';
import { GroupSync, TransactionGroup, walFlusher } from './wal-sync.ts';

/** store_meta key: the file holds no free space or index segments from before secure deletes. */
const FREE_SPACE_SCRUBBED = 'free_space_scrubbed';

/** How long a connection waits for another one's lock. */
const BUSY_TIMEOUT_MS = 5000;
/** Page size of a new store file (SQLite's default is 4 KiB). */
const PAGE_SIZE_BYTES = 16_384;
/** A commit of this many memories is a bulk write: the WAL is checkpointed and truncated after it. */
const BULK_WRITE_ROWS = 100;
const WAL_SIZE_LIMIT_BYTES = 8 * 1024 * 1024;
/**
 * With `checkpointsElsewhere`, the serving connection's own automatic checkpoint (SQLite's default
 * is 1,000 pages). It is still needed: the WAL starts over only when a write begins with all of it
 * in the file, and under steady writes the other connection's checkpoints never quite catch up
 * (16 writers without it: a WAL of 1.4 GB in a minute); this one finishes what they began.
 */
const BACKSTOP_CHECKPOINT_PAGES = 4096;

/** Raw rows whose first column is the memory's id, in the order of their ids (SQLite's binary order for the ASCII ids). */
function byIdColumn(a: readonly unknown[], b: readonly unknown[]): number {
  const x = a[0] as string;
  const y = b[0] as string;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The widest neighbourhood a filtered k-NN widens to. */
const MAX_KNN = 4096;
/** What `searchCandidates` reads of each candidate. */
const CANDIDATE_READER = columnsReader(CANDIDATE_FIELDS);
/** What `vectorSearch` reads of each neighbour the filters allow. */
const ID_READER = columnsReader(['id'] as const);

/**
 * The embedded long-term store: one SQLite file holding rows, vectors (int8 and int16, with a
 * binary code) clustered by (tenant, user) for k-NN (vectors.ts), and an FTS5 index over
 * `keywordTokens` terms for BM25. Every write is one transaction.
 */
export interface SqliteStoreOptions {
  keywordRanking?: KeywordRanking;
  turnContext?: TurnContextWindow;
  /**
   * A read pool answers this store's searches (pooled-store.ts): the serving connection then maps
   * none of the file (each connection maps it apart, and every mapping counts in the process's RSS).
   */
  searchesInPool?: boolean;
  /**
   * Another connection checkpoints the WAL (the pooled store's access worker calls `checkpoint`):
   * SQLite's automatic checkpoint ran in the COMMIT that took the WAL past 1,000 pages, on the event
   * loop, with an fsync of the WAL and one of the file (~35 ms of a 1,000-memory batch). This one
   * checkpoints only past BACKSTOP_CHECKPOINT_PAGES, and then finds most frames copied already.
   */
  checkpointsElsewhere?: boolean;
  /** Memory of each connection (SQLITE_CACHE_MIB, SQLITE_MMAP_MIB); DEFAULT_CONNECTION_MEMORY when omitted. */
  memory?: ConnectionMemory;
}

/**
 * The steps of one `searchCandidates` call, timed inside it (the calls it makes to itself pass no
 * instrumented proxy): keyword candidates, the k-NN, and the read of both lists' records.
 */
export type SearchStage = 'keywordSearch' | 'vectorSearch' | 'candidateRecords';
export type StageListener = (stage: SearchStage, seconds: number) => void;

/**
 * What one connection may hold in memory: its page cache, and how much of the file a searching
 * connection maps (a connection that only writes and looks rows up maps nothing). Every connection
 * has its own of both, and every mapping counts in the process's RSS apart.
 */
export interface ConnectionMemory {
  cacheBytes: number;
  mmapBytes: number;
}

export const DEFAULT_CONNECTION_MEMORY: ConnectionMemory = { cacheBytes: 8 * 1024 ** 2, mmapBytes: 0 };

export class SqliteMemoryStore implements MemoryStore, ReindexableStore {
  readonly backend = 'sqlite';
  private db: Database | undefined;
  private readonly statements = new Map<string, Statement>();
  private space: EmbeddingSpace | undefined;
  /** The vector tables of the space the store serves (named in store_meta, switched by a re-index). */
  private vectorTable = DEFAULT_VECTOR_TABLE;
  private servedVectors: SqliteVectors | undefined;
  /** The re-index this store is running (`beginReindex` … `finishReindex`). */
  private reindexing: UnfinishedReindex | undefined;
  private readonly keywords: SqliteKeywordIndex;
  private readonly searchesInPool: boolean;
  private readonly checkpointsElsewhere: boolean;
  private readonly memory: ConnectionMemory;
  private readonly turns: SqliteTurnIndex;
  private readonly keywordIndexVersion: string;
  /** Group commit: a write is acknowledged once a WAL flush begun after its commit is done. */
  private readonly durable: GroupSync;
  /** Writes arriving while a flush runs share one transaction after it (`commit`). */
  private readonly writes: TransactionGroup;
  private stageListener: StageListener | undefined;

  constructor(
    private readonly path: string,
    options: SqliteStoreOptions = {},
  ) {
    this.keywords = new SqliteKeywordIndex(
      (source) => this.sql(source),
      options.keywordRanking ?? DEFAULT_KEYWORD_RANKING,
    );
    this.searchesInPool = options.searchesInPool ?? false;
    this.checkpointsElsewhere = options.checkpointsElsewhere ?? false;
    this.memory = options.memory ?? DEFAULT_CONNECTION_MEMORY;
    this.turns = new SqliteTurnIndex(
      (source) => this.sql(source),
      this.keywords,
      options.turnContext ?? DEFAULT_TURN_CONTEXT,
    );
    this.keywordIndexVersion = keywordIndexVersion(options.turnContext ?? DEFAULT_TURN_CONTEXT);
    this.durable = new GroupSync(walFlusher(path));
    // IMMEDIATE: take the write lock up front, so another process sharing the file waits for it
    // (busy_timeout) instead of failing the upgrade from a read snapshot. A transaction inside the
    // open one is a savepoint (better-sqlite3 nests them so).
    this.writes = new TransactionGroup(this.durable, {
      transaction: (work) => this.database().transaction(work).immediate(),
      savepoint: (work) => this.database().transaction(work)(),
      inTransaction: () => this.database().inTransaction,
    });
  }

  async open(space: EmbeddingSpace): Promise<void> {
    if (this.path !== ':memory:') mkdirSync(dirname(this.path), { recursive: true });
    const db = new BetterSqlite3(this.path);
    try {
      configure(db, { exclusive: false, path: this.path, searches: !this.searchesInPool, memory: this.memory });
      if (this.checkpointsElsewhere) db.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
      db.exec('CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
      const meta = readMeta(db);
      const builtWith = recordedSpace(meta, 'embedding');
      const where = `the store at ${this.path}`;
      // Only its target is read here: its tables may still be of an older schema.
      const unfinished = recordedSpace(meta, 'reindex');
      if (builtWith && unfinished) {
        throw new EmbeddingMismatchError(unfinishedReindexInstruction(builtWith, unfinished, space, where));
      }
      if (builtWith && !sameSpace(builtWith, space)) {
        throw new EmbeddingMismatchError(reindexInstruction(builtWith, space, where));
      }
      this.initialise(db, space, builtWith === undefined);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /**
   * Opens the file for reads only: one connection of a read pool (read-pool.ts) beside the serving
   * store, which opened the file first (schema migrated, space checked, keyword index current).
   * It writes nothing and migrates nothing; a store in another space is refused as `open` refuses it.
   */
  async openReader(space: EmbeddingSpace): Promise<void> {
    const db = new BetterSqlite3(this.path, { readonly: true, fileMustExist: true });
    try {
      sqliteVec.load(db);
      tuneReads(db, { searches: true, memory: this.memory });
      const meta = readMeta(db);
      const builtWith = recordedSpace(meta, 'embedding');
      if (builtWith === undefined || Number(meta.get('schema_version')) !== LATEST_VERSION) {
        throw new Error(`the store at ${this.path} is not open for serving: open it with a writer first`);
      }
      if (!sameSpace(builtWith, space)) {
        throw new EmbeddingMismatchError(reindexInstruction(builtWith, space, `the store at ${this.path}`));
      }
      this.db = db;
      this.serveVectors(vectorTableName(meta.get('vector_table') ?? DEFAULT_VECTOR_TABLE), space);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /**
   * Brings an opened file to the latest schema under `space` (the space it was built with, or the
   * one a new store gets) and makes it this store's database.
   */
  private initialise(db: Database, space: EmbeddingSpace, fresh: boolean): void {
    const version = Number(readMeta(db).get('schema_version') ?? 0);
    const setMeta = db.prepare('INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)');
    let compact = false;
    for (const migration of MIGRATIONS) {
      if (migration.version <= version) continue;
      db.transaction(() => {
        migration.up(db, space.dimension);
        setMeta.run('schema_version', String(migration.version));
      })();
      compact ||= (migration.compact ?? false) && !fresh;
    }
    if (compact && this.path !== ':memory:') {
      // A migration left much of the file free (the old vector chunks): rewrite it without them,
      // and cut the WAL that rewrite went through back down.
      db.exec('VACUUM');
      db.pragma('wal_checkpoint(TRUNCATE)');
    }
    if (fresh) {
      setMeta.run('embedding_model', space.model);
      setMeta.run('embedding_dimension', String(space.dimension));
      // Born with secure deletes: no free space from before them to scrub (see purgeDeleted).
      setMeta.run(FREE_SPACE_SCRUBBED, 'yes');
    }
    const meta = readMeta(db);
    if (Number(meta.get('schema_version')) !== LATEST_VERSION) throw new Error('schema migration did not complete');
    // FTS5 removes a deleted row's entries from its index instead of appending a delete marker
    // next to them (a persistent setting of the table, written once: opening writes nothing).
    const secureDelete = db.prepare("SELECT v FROM memory_keywords_config WHERE k = 'secure-delete'").get() as
      | { v: number }
      | undefined;
    if (secureDelete?.v !== 1) {
      db.prepare("INSERT INTO memory_keywords (memory_keywords, rank) VALUES ('secure-delete', 1)").run();
    }
    // Derived, so kept outside the migrations (any schema gets it): a session's turns in order,
    // for the turn-context index.
    db.exec('CREATE INDEX IF NOT EXISTS memories_session_turns ON memories (tenant, user_id, session_id, occurred_at)');
    this.db = db;
    this.serveVectors(vectorTableName(meta.get('vector_table') ?? DEFAULT_VECTOR_TABLE), space);
    if (meta.get('keyword_index_version') !== this.keywordIndexVersion) {
      // Terms from another tokenizer, layout or context window would never match today's queries: rebuild them.
      db.transaction(() => {
        this.rebuildKeywordIndex();
        setMeta.run('keyword_index_version', this.keywordIndexVersion);
      })();
    }
  }

  /**
   * Opens the file alone (SQLite's exclusive locking mode: a memory-api that has it open makes this
   * fail, and none can open it until the re-index closes it; a killed run's lock dies with it) as it
   * was built, and prepares a vec0 table for the target beside the one it serves.
   */
  async beginReindex(target: EmbeddingSpace): Promise<ReindexStatus> {
    if (this.path === ':memory:' || !existsSync(this.path)) throw new NoStoreError(this.path);
    const db = new BetterSqlite3(this.path, { fileMustExist: true, timeout: REINDEX_LOCK_WAIT_MS });
    let current: EmbeddingSpace | undefined;
    try {
      configure(db, { exclusive: true, path: this.path, searches: true, memory: this.memory });
      const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'store_meta'").get();
      current = hasMeta ? recordedSpace(readMeta(db), 'embedding') : undefined;
      if (current === undefined) throw new NoStoreError(this.path);
      this.initialise(db, current, false);
    } catch (error) {
      db.close();
      throw error;
    }
    const setMeta = this.sql('INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)');
    const unfinished = unfinishedReindex(readMeta(db));
    let discarded: EmbeddingSpace | undefined;
    if (unfinished && !sameSpace(unfinished.target, target)) {
      db.transaction(() => {
        dropVectorTables(db, unfinished.table);
        db.exec(`DELETE FROM store_meta WHERE key IN (${REINDEX_KEYS.map((k) => `'${k}'`).join(', ')})`);
      })();
      discarded = unfinished.target;
    }
    const total = (this.sql('SELECT count(*) AS n FROM memories').get() as { n: number }).n;
    if (sameSpace(current, target)) return { current, target, total, done: total, resumed: false, discarded };
    if (unfinished && discarded === undefined) {
      this.reindexing = unfinished;
      const done = (
        this.sql('SELECT count(*) AS n FROM memories WHERE rowid <= ?').get(unfinished.after) as { n: number }
      ).n;
      return { current, target, total, done, resumed: true };
    }
    const table = nextVectorTable(this.vectorTable);
    db.transaction(() => {
      dropVectorTables(db, table);
      db.exec(vectorTablesDefinition(table));
      setMeta.run('reindex_model', target.model);
      setMeta.run('reindex_dimension', String(target.dimension));
      setMeta.run('reindex_table', table);
      setMeta.run('reindex_after', '0');
    })();
    this.reindexing = { target, table, after: 0 };
    return { current, target, total, done: 0, resumed: false, ...(discarded ? { discarded } : {}) };
  }

  async nextToReindex(limit: number): Promise<MemoryRecord[]> {
    const { after } = this.reindexRun();
    const rows = this.records(
      `SELECT ${RECORD_SELECT} FROM ${RECORD_FROM} WHERE m.rowid > ? ORDER BY m.rowid LIMIT ?`,
    ).all(after, limit) as unknown[][];
    return rows.map(recordFromValues);
  }

  async writeReindexed(batch: readonly NewMemory[]): Promise<void> {
    const run = this.reindexRun();
    const rowidOf = this.sql('SELECT rowid FROM memories WHERE id = ? AND tenant = ?');
    const vectors = new SqliteVectors((source) => this.sql(source), run.table, run.target.dimension);
    const setMeta = this.sql('INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)');
    const after = this.database()
      .transaction(() => {
        let last = run.after;
        for (const { record, vector } of batch) {
          if (vector.length !== run.target.dimension) {
            throw new Error(`vector has dimension ${vector.length}, the re-index target has ${run.target.dimension}`);
          }
          const row = rowidOf.get(record.id, record.tenant) as { rowid: number } | undefined;
          if (!row) throw new Error(`memory ${record.id} of tenant ${record.tenant} is no longer in the store`);
          const scope = vectorScope(record.tenant, record.user_id);
          vectors.remove(BigInt(row.rowid), scope);
          vectors.add(BigInt(row.rowid), scope, vector);
          last = Math.max(last, row.rowid);
        }
        setMeta.run('reindex_after', String(last));
        return last;
      })
      .immediate();
    await this.durable.afterCommit();
    run.after = after;
  }

  async finishReindex(): Promise<void> {
    const run = this.reindexRun();
    const db = this.database();
    const setMeta = this.sql('INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)');
    db.transaction(() => {
      const { n: left } = this.sql('SELECT count(*) AS n FROM memories WHERE rowid > ?').get(run.after) as {
        n: number;
      };
      const { n: memories } = this.sql('SELECT count(*) AS n FROM memories').get() as { n: number };
      const vectors = new SqliteVectors((source) => db.prepare(source), run.table, run.target.dimension).count();
      if (left > 0 || vectors !== memories) {
        throw new Error(`${memories - vectors} of ${memories} memories have no vector in the re-index target yet`);
      }
      dropVectorTables(db, this.vectorTable);
      setMeta.run('vector_table', run.table);
      setMeta.run('embedding_model', run.target.model);
      setMeta.run('embedding_dimension', String(run.target.dimension));
      db.exec(`DELETE FROM store_meta WHERE key IN (${REINDEX_KEYS.map((k) => `'${k}'`).join(', ')})`);
      db.prepare('UPDATE memories SET embedding_model = ?').run(run.target.model);
    }).immediate();
    await this.durable.afterCommit();
    // Statements naming the dropped table are prepared again on first use.
    this.statements.clear();
    this.serveVectors(run.table, run.target);
    this.reindexing = undefined;
  }

  private reindexRun(): UnfinishedReindex {
    if (!this.reindexing) throw new Error('no re-index is running: call beginReindex first');
    return this.reindexing;
  }

  async check(): Promise<void> {
    this.sql('SELECT 1').get();
  }

  async close(): Promise<void> {
    this.statements.clear();
    this.db?.close();
    this.db = undefined;
  }

  async commit(batch: WriteBatch): Promise<void> {
    // Applied with the writes waiting beside it, in one transaction; answered once that is durable.
    await this.writes.commit(() => this.applyWrite(batch));
    if (!this.checkpointsElsewhere && isBulkWrite(batch)) this.checkpointAfterBulkWrite();
  }

  /**
   * Copies what the WAL holds into the file without waiting for the writer or any reader (what
   * has not been read out of the WAL by every reader stays for the next one); after a bulk write
   * (`truncate`), once all of it is in the file, cuts the WAL to nothing. For the connection that
   * checkpoints on behalf of one opened with `checkpointsElsewhere`; it never waits for the lock.
   */
  async checkpoint(truncate: boolean): Promise<void> {
    if (this.path === ':memory:') return;
    const db = this.database();
    const [passive] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{
      busy: number;
      log: number;
      checkpointed: number;
    }>;
    if (!truncate || !passive || passive.busy || passive.checkpointed < passive.log) return;
    db.pragma('busy_timeout = 0');
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  /** A batch's statements, inside the transaction `commit` runs it in (prepared there: a re-index may switch tables). */
  private applyWrite(batch: WriteBatch): void {
    const insertRow = this.sql(
      `INSERT INTO memories (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`,
    );
    const updateRow = this.sql(
      `UPDATE memories SET ${COLUMNS.map(updateAssignment).join(', ')} WHERE id = ? AND tenant = ? AND version = ?`,
    );
    const storedOf = this.sql('SELECT rowid, user_id FROM memories WHERE id = ? AND tenant = ?');
    const vectors = this.vectors();
    const deleteTags = this.sql('DELETE FROM memory_tags WHERE memory_rowid = ?');
    const insertTag = this.sql('INSERT OR IGNORE INTO memory_tags (memory_rowid, tag) VALUES (?, ?)');

    const turns: TurnPosition[] = [];
    const indexText = (rowid: bigint, record: MemoryRecord, fresh: boolean) => {
      this.keywords.put(rowid, record, this.turns.entry({ rowid: Number(rowid), ...record }), fresh);
      // A row inserted in this transaction has no tags yet (a deleted memory's went with it: foreign keys cascade).
      if (!fresh) deleteTags.run(rowid);
      for (const tag of record.tags) insertTag.run(rowid, tag);
      if (record.layer === 'episodic' && record.session_id !== null) {
        turns.push(turnPosition(record, record.session_id, Number(rowid)));
      }
    };

    for (const { record, vector } of batch.inserts) {
      this.assertDimension(vector);
      let rowid: bigint;
      try {
        rowid = BigInt(insertRow.run(...recordToValues(record)).lastInsertRowid);
      } catch (error) {
        if (isUniqueViolation(error, 'memories.tenant')) throw new DuplicateContentError(record.content_hash);
        // Ids are unique across tenants (an import may carry one another tenant already holds).
        if (isUniqueViolation(error, 'memories.id')) throw new IdTakenError(record.id);
        throw error;
      }
      vectors.add(rowid, vectorScope(record.tenant, record.user_id), vector);
      indexText(rowid, record, true);
    }
    for (const { record, vector } of batch.updates) {
      const stored = storedOf.get(record.id, record.tenant) as { rowid: number; user_id: string } | undefined;
      // Its vector and keyword entry leave by their owner's scope: the owner they were written under.
      if (stored && stored.user_id !== record.user_id) {
        throw new OwnerChangeError(record.id, stored.user_id, record.user_id);
      }
      let result: { changes: number };
      try {
        result = updateRow.run(...recordToValues(record), record.id, record.tenant, record.version);
      } catch (error) {
        if (isUniqueViolation(error, 'memories.tenant')) throw new DuplicateContentError(record.content_hash);
        throw error;
      }
      // Changed or deleted since it was read: the decision must be made again.
      if (result.changes === 0 || !stored) throw new StaleWriteError([record.id]);
      const rowid = BigInt(stored.rowid);
      if (vector) {
        this.assertDimension(vector);
        const owner = vectorScope(record.tenant, record.user_id);
        vectors.remove(rowid, owner);
        vectors.add(rowid, owner, vector);
      }
      indexText(rowid, record, false);
    }
    this.turns.refresh(turns);
  }

  /**
   * Moves a bulk write out of the WAL into the file and truncates the WAL at once, unless a reader
   * is inside the WAL right now (no waiting on the event loop): then the next checkpoint does it,
   * and `journal_size_limit` cuts the WAL back when it restarts.
   */
  private checkpointAfterBulkWrite(): void {
    if (this.path === ':memory:') return;
    const db = this.database();
    db.pragma('busy_timeout = 0');
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  async get(tenant: string, id: string): Promise<MemoryRecord | undefined> {
    const row = this.records(`SELECT ${RECORD_SELECT} FROM ${RECORD_FROM} WHERE m.id = ? AND m.tenant = ?`).get(
      id,
      tenant,
    ) as unknown[] | undefined;
    return row ? recordFromValues(row) : undefined;
  }

  async getMany(tenant: string, ids: readonly string[]): Promise<MemoryRecord[]> {
    if (ids.length === 0) return [];
    // `+tenant`: without it SQLite picks a tenant index and scans every row of the tenant
    // (15+ ms at 100k memories) instead of looking the ids up in the unique id index.
    const rows = this.records(
      `SELECT ${RECORD_SELECT} FROM ${RECORD_FROM} WHERE +m.tenant = ? AND m.id ${IN_JSON_LIST}`,
    ).all(tenant, JSON.stringify(ids)) as unknown[][];
    return rows.map(recordFromValues);
  }

  async findActiveByHash(
    tenant: string,
    userId: string,
    layer: Layer,
    contentHash: string,
  ): Promise<MemoryRecord | undefined> {
    const row = this.records(
      `SELECT ${RECORD_SELECT} FROM ${RECORD_FROM}
       WHERE m.tenant = ? AND m.user_id = ? AND m.layer = ? AND m.content_hash = ? AND m.status = 'active'`,
    ).get(tenant, userId, layer, contentHash) as unknown[] | undefined;
    return row ? recordFromValues(row) : undefined;
  }

  async list(filter: MemoryFilter, limit: number, cursor?: string): Promise<Page<MemoryRecord>> {
    const { where, params } = filterToSql(filter);
    const after = cursor === undefined ? 0 : Number(decodeSequenceCursor(cursor));
    const rows = this.records(
      `SELECT ${RECORD_SELECT}, m.rowid FROM ${RECORD_FROM} WHERE ${where} AND m.rowid > ? ORDER BY m.rowid LIMIT ?`,
    ).all(...params, after, limit + 1) as unknown[][];
    return pageBySequence(rows, limit, recordFromValues, (row) => row[COLUMNS.length] as number);
  }

  async listIds(filter: MemoryFilter, limit: number): Promise<string[]> {
    const { where, params } = filterToSql(filter);
    const rows = this.sql(`SELECT m.id FROM memories m WHERE ${where} ORDER BY m.rowid LIMIT ?`).all(
      ...params,
      limit,
    ) as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }

  async count(filter: MemoryFilter): Promise<number> {
    const { where, params } = filterToSql(filter);
    return (this.sql(`SELECT count(*) AS n FROM memories m WHERE ${where}`).get(...params) as { n: number }).n;
  }

  async vectorSearch(scope: SearchScope, vector: Float32Array, k: number): Promise<Candidate[]> {
    return this.nearestAllowed(scope, vector, k, ID_READER).map(({ row, score }) => ({ id: row[0] as string, score }));
  }

  /**
   * The k nearest memories the filters allow, nearest first, each with its row of `reader`'s
   * columns (raw, the rowid after them) as the filter check read it: a search takes its dense
   * candidates' records from the same pass over their rows instead of looking them up again.
   */
  private nearestAllowed(
    scope: SearchScope,
    vector: Float32Array,
    k: number,
    reader: { select: string },
  ): Array<{ row: unknown[]; score: number }> {
    this.assertDimension(vector);
    const { where, params } = filterToSql(scope);
    const vectors = this.vectors();
    const owner = vectorScope(scope.tenant, scope.userId);
    const check = this.records(`SELECT ${reader.select}, m.rowid FROM ${BY_ROWID_LIST} WHERE ${where}`);
    // Filters are applied after the k-NN; widen the neighbourhood until enough survive. Most
    // searches filter out few of an owner's memories: the first read asks only what is rescored.
    let fetch = Math.min(MAX_KNN, k + EXACT_RESCORE_MARGIN);
    for (;;) {
      const neighbours = vectors.nearest(owner, vector, fetch);
      if (neighbours.length === 0) return [];
      const allowed = check.all(JSON.stringify(neighbours.map((n) => n.rowid)), ...params) as unknown[][];
      const rowOf = new Map(allowed.map((row) => [row[row.length - 1] as number, row]));
      // Ranked by int8 cosine: the first survivors, a few past k, get their exact cosine and order.
      const kept = neighbours.filter((n) => rowOf.has(n.rowid)).slice(0, k + EXACT_RESCORE_MARGIN);
      if (kept.length >= k || neighbours.length < fetch || fetch >= MAX_KNN) {
        return vectors
          .rescore(owner, kept, vector, kept.length)
          .slice(0, k)
          .map((n) => ({ row: rowOf.get(n.rowid) as unknown[], score: 1 - n.distance }));
      }
      fetch = Math.min(MAX_KNN, fetch * 4);
    }
  }

  /** BM25 over one user's memories, ranked with that user's own statistics (keyword-search.ts). */
  async keywordSearch(scope: SearchScope, terms: readonly string[], k: number): Promise<Candidate[]> {
    return this.keywords.search(scope, terms, k);
  }

  async similarities(tenant: string, ids: readonly string[], vector: Float32Array): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const owned = this.sql(`SELECT rowid, id, user_id FROM memories WHERE +tenant = ? AND id ${IN_JSON_LIST}`).all(
      tenant,
      JSON.stringify(ids),
    ) as Array<{ rowid: number; id: string; user_id: string }>;
    // A memory's vector is kept under its owner: one read per owner among the ids.
    const byOwner = new Map<string, Array<{ rowid: number; id: string }>>();
    for (const memory of owned) {
      const listed = byOwner.get(memory.user_id) ?? [];
      listed.push(memory);
      byOwner.set(memory.user_id, listed);
    }
    const result = new Map<string, number>();
    for (const [userId, memories] of byOwner) {
      const distances = this.vectors().distances(
        vectorScope(tenant, userId),
        memories.map((m) => m.rowid),
        vector,
      );
      for (const { rowid, id } of memories) {
        const distance = distances.get(rowid);
        if (distance !== undefined) result.set(id, 1 - distance);
      }
    }
    return result;
  }

  /**
   * Keyword candidates first (while the query vector is still being embedded), then the k-NN, then
   * one read of both lists' records with their rowids, from which the keyword-only candidates'
   * similarities are read: what `searchInSteps` answers, with one statement fewer.
   */
  async searchCandidates(query: CandidateQuery): Promise<CandidateSet> {
    const { scope, k } = query;
    let since = performance.now();
    const keyword = await this.keywordSearch(scope, query.terms, k);
    since = this.stageDone('keywordSearch', since);
    const vector = await query.vector;
    since = performance.now();
    const nearest = vector ? this.nearestAllowed(scope, vector, k, CANDIDATE_READER) : [];
    const dense = nearest.map(({ row, score }) => ({ id: row[0] as string, score }));
    if (vector) since = this.stageDone('vectorSearch', since);
    const denseIds = new Set(dense.map((c) => c.id));
    const keywordOnlyIds = [...new Set(keyword.map((c) => c.id))].filter((id) => !denseIds.has(id));
    // The dense candidates' rows came with the k-NN's filter check; the keyword-only ones are read
    // as getMany looks them up (`+tenant`: the ids' unique index), only what a search reads, with the rowid after.
    const keywordOnlyRows =
      keywordOnlyIds.length === 0
        ? []
        : (this.records(
            `SELECT ${CANDIDATE_READER.select}, m.rowid FROM memories m WHERE +m.tenant = ? AND m.id ${IN_JSON_LIST}`,
          ).all(scope.tenant, JSON.stringify(keywordOnlyIds)) as unknown[][]);
    const rows = [...nearest.map((n) => n.row), ...keywordOnlyRows];
    // In the ids' order, as one lookup of both lists answered them (SQLite's binary order; JS's alike for ASCII ids).
    rows.sort(byIdColumn);
    const records = rows.map(CANDIDATE_READER.fromValues);
    const keywordOnlySimilarities = new Map<string, number>();
    if (vector && keywordOnlyRows.length > 0) {
      const keywordOnly = new Map(
        keywordOnlyRows.map((row) => [row[CANDIDATE_FIELDS.length] as number, row[0] as string]),
      );
      for (const [rowid, distance] of this.vectors().distances(
        vectorScope(scope.tenant, scope.userId),
        [...keywordOnly.keys()],
        vector,
      )) {
        keywordOnlySimilarities.set(keywordOnly.get(rowid) as string, 1 - distance);
      }
    }
    if (rows.length > 0) this.stageDone('candidateRecords', since);
    return { dense, keyword, records, keywordOnlySimilarities };
  }

  /** Hears how long each step of every `searchCandidates` call took (the service's /metrics). */
  onStage(listener: StageListener): void {
    this.stageListener = listener;
  }

  /** Reports a step begun at `since` (performance.now()) and answers now. */
  private stageDone(stage: SearchStage, since: number): number {
    const now = performance.now();
    this.stageListener?.(stage, (now - since) / 1000);
    return now;
  }

  async recordAccess(tenant: string, ids: readonly string[], at: number): Promise<void> {
    if (ids.length === 0) return;
    this.sql(
      // `+tenant`: look the ids up in their unique index, not every row of the tenant (~30 ms at 100k).
      // Into the narrow `memory_access` (rows.ts RECORD_FROM): the larger of its count and the record's, plus one.
      `INSERT INTO memory_access (rowid, access_count, last_accessed_at)
       SELECT rowid, access_count + 1, ? FROM memories WHERE +tenant = ? AND id ${IN_JSON_LIST}
       ON CONFLICT (rowid) DO UPDATE SET access_count = max(access_count + 1, excluded.access_count),
         last_accessed_at = excluded.last_accessed_at`,
    ).run(at, tenant, JSON.stringify(ids));
  }

  async deleteMany(tenant: string, ids: readonly string[], atVersions?: ReadonlyMap<string, number>): Promise<number> {
    if (ids.length === 0) return 0;
    const db = this.database();
    const rowOf = this.sql(
      'SELECT rowid, version, user_id, session_id, layer, occurred_at FROM memories WHERE tenant = ? AND id = ?',
    );
    const deleteRow = this.sql('DELETE FROM memories WHERE rowid = ?');
    const deleteAccess = this.sql('DELETE FROM memory_access WHERE rowid = ?');
    const vectors = this.vectors();
    const removed = db
      .transaction(() => {
        let removed = 0;
        // A deleted turn's words leave its neighbours' context too.
        const turns: TurnPosition[] = [];
        for (const id of ids) {
          const row = rowOf.get(tenant, id) as
            | (Pick<MemoryRow, 'rowid' | 'user_id' | 'session_id' | 'layer' | 'occurred_at'> & { version: number })
            | undefined;
          if (!row) continue;
          const expected = atVersions?.get(id);
          if (expected !== undefined && row.version !== expected) continue;
          const rowid = BigInt(row.rowid);
          vectors.remove(rowid, vectorScope(tenant, row.user_id));
          this.keywords.remove(rowid, { tenant, user_id: row.user_id });
          deleteAccess.run(rowid);
          removed += deleteRow.run(rowid).changes;
          if (row.layer === 'episodic' && row.session_id !== null) {
            turns.push({
              tenant,
              userId: row.user_id,
              sessionId: row.session_id,
              occurredAt: row.occurred_at,
              rowid: row.rowid,
            });
          }
        }
        this.turns.refresh(turns);
        return removed;
      })
      .immediate();
    if (removed > 0) await this.durable.afterCommit();
    return removed;
  }

  async purgeDeleted(): Promise<StorePurge> {
    const db = this.database();
    const scrubbed = this.sql('SELECT value FROM store_meta WHERE key = ?').get(FREE_SPACE_SCRUBBED) as
      | { value: string }
      | undefined;
    if (this.path !== ':memory:' && scrubbed?.value !== 'yes') {
      // A store that predates secure deletes may hold old bytes in free space and old index
      // segments: once, merge the keyword index and rewrite the file without its free pages.
      db.prepare("INSERT INTO memory_keywords (memory_keywords) VALUES ('optimize')").run();
      db.exec('VACUUM');
      this.sql('INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)').run(FREE_SPACE_SCRUBBED, 'yes');
    }
    if (this.path === ':memory:') return { purged: true, detail: 'in-memory store: nothing is written to disk' };
    const [checkpoint] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
    if (checkpoint?.busy) {
      return {
        purged: false,
        detail: 'rows zeroed by secure_delete, but a reader kept the WAL from being truncated; the next erase retries',
      };
    }
    return {
      purged: true,
      detail:
        'rows, vectors and keyword entries deleted with secure_delete and FTS5 secure-delete; WAL checkpointed and truncated',
    };
  }

  async saveErasure(tenant: string, receipt: ErasureReceipt): Promise<void> {
    this.sql(
      `INSERT INTO erasures (erasure_id, tenant, user_id, receipt) VALUES (?, ?, ?, ?)
       ON CONFLICT (erasure_id) DO UPDATE SET receipt = excluded.receipt`,
    ).run(receipt.erasure_id, tenant, receipt.user_id, JSON.stringify(receipt));
    await this.durable.afterCommit();
  }

  async listErasures(
    tenant: string,
    filter: { userId?: string },
    limit: number,
    cursor?: string,
  ): Promise<Page<ErasureReceipt>> {
    const before = sequenceBefore(cursor);
    const rows = (
      filter.userId === undefined
        ? this.sql(
            'SELECT rowid, receipt FROM erasures WHERE tenant = ? AND rowid < ? ORDER BY rowid DESC LIMIT ?',
          ).all(tenant, BigInt(before), limit + 1)
        : this.sql(
            'SELECT rowid, receipt FROM erasures WHERE tenant = ? AND user_id = ? AND rowid < ? ORDER BY rowid DESC LIMIT ?',
          ).all(tenant, filter.userId, BigInt(before), limit + 1)
    ) as Array<{ rowid: number; receipt: string }>;
    return pageBySequence(
      rows,
      limit,
      (row) => ErasureReceipt.parse(JSON.parse(row.receipt)),
      (row) => row.rowid,
    );
  }

  async countByLayer(tenant?: string): Promise<LayerCounts[]> {
    const rows = (
      tenant === undefined
        ? this.sql('SELECT layer, status, count(*) AS count FROM memories GROUP BY layer, status').all()
        : this.sql('SELECT layer, status, count(*) AS count FROM memories WHERE tenant = ? GROUP BY layer, status').all(
            tenant,
          )
    ) as Array<{ layer: Layer; status: MemoryStatus; count: number }>;
    return rows;
  }

  async countByUser(tenant: string): Promise<UserLayerCounts[]> {
    return this.sql(
      `SELECT user_id AS userId, layer, status, count(*) AS count, max(created_at) AS lastCreatedAt
       FROM memories WHERE tenant = ? GROUP BY user_id, layer, status`,
    ).all(tenant) as UserLayerCounts[];
  }

  /**
   * Terms indexed for keyword search — of the question a memory answers plus its content, and a
   * turn's neighbours — each prefixed with the owner's scope token, so a query reads only that
   * user's postings.
   */
  private rebuildKeywordIndex(): void {
    this.keywords.clear();
    const rows = this.sql('SELECT rowid, tenant, user_id, query, content FROM memories').all() as Array<
      Pick<MemoryRow, 'rowid' | 'tenant' | 'user_id' | 'query' | 'content'>
    >;
    for (const row of rows) this.keywords.put(BigInt(row.rowid), row, this.turns.entry(row), true);
    this.turns.rebuildAll();
  }

  /** Makes `table` (holding vectors of `space`) the one the store serves. */
  private serveVectors(table: string, space: EmbeddingSpace): void {
    this.space = space;
    this.vectorTable = table;
    this.servedVectors = new SqliteVectors((source) => this.sql(source), table, space.dimension);
  }

  private vectors(): SqliteVectors {
    if (!this.servedVectors) throw new Error('store is not open');
    return this.servedVectors;
  }

  private database(): Database {
    if (!this.db) throw new Error('store is not open');
    return this.db;
  }

  /** A statement reading `RECORD_SELECT` rows as values by position (`recordFromValues`). */
  private records(source: string): Statement {
    return this.sql(source).raw(true);
  }

  private sql(source: string): Statement {
    let statement = this.statements.get(source);
    if (!statement) {
      statement = this.database().prepare(source);
      this.statements.set(source, statement);
    }
    return statement;
  }

  private assertDimension(vector: Float32Array): void {
    if (this.space && vector.length !== this.space.dimension) {
      throw new Error(`vector has dimension ${vector.length}, the store holds ${this.space.dimension}`);
    }
  }
}

/** The vector tables of every store until its first re-index (vectors.ts). */
const DEFAULT_VECTOR_TABLE = 'memory_vectors';
const VECTOR_TABLE = /^memory_vectors(?:_g(\d+))?$/;
const REINDEX_KEYS = ['reindex_model', 'reindex_dimension', 'reindex_table', 'reindex_after'] as const;
/** How long a re-index waits for the file's lock before saying another process has it open. */
const REINDEX_LOCK_WAIT_MS = 2000;

interface UnfinishedReindex {
  target: EmbeddingSpace;
  table: string;
  /** The checkpoint: every memory up to this rowid has its target vector. */
  after: number;
}

/** A vector table name read from the file, checked before it is put into SQL. */
function vectorTableName(name: string): string {
  if (!VECTOR_TABLE.test(name)) throw new Error(`store_meta names an unknown vector table "${name}"`);
  return name;
}

/** memory_embeddings → memory_embeddings_g2 → memory_embeddings_g3 … */
function nextVectorTable(current: string): string {
  const generation = Number(VECTOR_TABLE.exec(current)?.[1] ?? 1);
  return `${DEFAULT_VECTOR_TABLE}_g${generation + 1}`;
}

/**
 * Connection settings, applied before the first read. Exclusive: the connection takes the file's
 * lock at once and keeps it (another connection holding the file open makes that fail).
 */
function configure(
  db: Database,
  options: { exclusive: boolean; path: string; searches: boolean; memory: ConnectionMemory },
): void {
  sqliteVec.load(db);
  // A new file's page size (an existing file keeps its own; set before WAL, which fixes it): an
  // exact vector (512 int16 = 1 KiB + its cell) is a little over a quarter of a 4 KiB page, so such
  // pages held three and wasted a quarter; 16 KiB pages hold fifteen (1,536-d: five instead of one).
  db.pragma(`page_size = ${PAGE_SIZE_BYTES}`);
  try {
    if (options.exclusive) {
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('BEGIN EXCLUSIVE');
      db.exec('COMMIT');
    }
    db.pragma('journal_mode = WAL');
  } catch (error) {
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    throw new StoreInUseError(
      options.exclusive
        ? `another process has the store at ${options.path} open: stop memory-api (and anything else using that DATA_DIR) before re-indexing it`
        : `the store at ${options.path} is locked by another process (a running \`hindsight reindex\`?): let it finish, then start again`,
    );
  }
  // NORMAL: a commit is written to the WAL without waiting for the disk; the store acknowledges a
  // write only after the WAL flush that follows it (GroupSync), so an acknowledged write survives a
  // crash of the process and of the machine, and writers arriving together share one flush.
  db.pragma('synchronous = NORMAL');
  // Statement journals in memory: each write of a group commit runs in a savepoint, which first
  // copies every page it changes into one (a few hundred KiB per write); beyond 64 KiB SQLite
  // spilled it to a temporary file, one pwrite per page, for a copy that is discarded at RELEASE.
  db.pragma('temp_store = MEMORY');
  db.pragma('foreign_keys = ON');
  // Erasure (DESIGN §9): a deleted or rewritten row's bytes are zeroed, not left in free space.
  db.pragma('secure_delete = ON');
  // Each time the WAL restarts after a checkpoint it is cut back to this size, so a bulk write
  // never leaves a WAL of its own size behind for good.
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  tuneReads(db, options);
}

/** Settings of every connection that searches: the serving one and each of a read pool's. */
function tuneReads(db: Database, options: { searches: boolean; memory: ConnectionMemory }): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // Index pages are read on every search: keep a warm page cache and map the file. A connection
  // that only writes and looks rows up keeps the cache and maps nothing.
  db.pragma(`cache_size = -${Math.max(1, Math.floor(options.memory.cacheBytes / 1024))}`);
  db.pragma(`mmap_size = ${options.searches ? options.memory.mmapBytes : 0}`);
}

function readMeta(db: Database): Map<string, string> {
  const rows = db.prepare('SELECT key, value FROM store_meta').all() as Array<{ key: string; value: string }>;
  return new Map(rows.map((row) => [row.key, row.value]));
}

function unfinishedReindex(meta: ReadonlyMap<string, string>): UnfinishedReindex | undefined {
  const target = recordedSpace(meta, 'reindex');
  if (target === undefined) return undefined;
  return {
    target,
    table: vectorTableName(meta.get('reindex_table') ?? ''),
    after: Number(meta.get('reindex_after') ?? 0),
  };
}

/** Whether a commit is a bulk write (BULK_WRITE_ROWS memories or more). */
export function isBulkWrite(batch: WriteBatch): boolean {
  return batch.inserts.length + batch.updates.length >= BULK_WRITE_ROWS;
}

function turnPosition(record: MemoryRecord, sessionId: string, rowid: number): TurnPosition {
  return {
    tenant: record.tenant,
    userId: record.user_id,
    sessionId,
    occurredAt: Date.parse(record.occurred_at),
    rowid,
  };
}

/**
 * How an update sets each column (values in `COLUMNS` order): the version moves one past the one
 * the update was decided on, and access statistics recorded meanwhile are never lowered.
 */
function updateAssignment(column: (typeof COLUMNS)[number]): string {
  if (column === 'version') return 'version = ? + 1';
  if (column === 'access_count') return 'access_count = max(access_count, ?)';
  if (column === 'last_accessed_at')
    return 'last_accessed_at = nullif(max(coalesce(last_accessed_at, -1), coalesce(?, -1)), -1)';
  return `${column} = ?`;
}

function isUniqueViolation(error: unknown, columnHint: string): boolean {
  return (
    error instanceof Error &&
    (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' &&
    error.message.includes(columnHint)
  );
}
