import { isDeepStrictEqual } from 'node:util';
import { EmbeddingMismatchError, ValidationError } from '@hindsight/errors';
import { ErasureReceipt, type Layer, type MemoryRecord, type MemoryStatus } from '@hindsight/memory-model';
import { bm25Weights, KEYWORD_TOKENIZER_VERSION } from '@hindsight/text';
import pg from 'pg';
import pgvector from 'pgvector';
import {
  type Candidate,
  type CandidateQuery,
  type CandidateSet,
  committed,
  DuplicateContentError,
  type EmbeddingSpace,
  IdTakenError,
  type LayerCounts,
  type MemoryFilter,
  type MemoryStore,
  type NewMemory,
  NoStoreError,
  type Page,
  type ReindexableStore,
  type ReindexStatus,
  type SearchScope,
  StaleWriteError,
  StoreInUseError,
  type StorePurge,
  sameSpace,
  searchInSteps,
  type UserLayerCounts,
  type WriteBatch,
} from '../../../memory/store-port.ts';
import {
  contextTermPrefix,
  DEFAULT_KEYWORD_RANKING,
  type KeywordRanking,
  ownerTermPrefix,
  rankKeywordMatches,
} from '../keywords.ts';
import { recordedSpace, reindexInstruction, unfinishedReindexInstruction } from '../reindex.ts';
import { decodeSequenceCursor, pageBySequence, sequenceBefore } from '../sequence-page.ts';
import { DEFAULT_TURN_CONTEXT, type TurnContextWindow, windowLabel } from '../turn-context.ts';
import { ALL_TENANTS, type PostgresConnectionOptions, PostgresDatabase, type TenantScope } from './database.ts';
import { filterToSql } from './filter-sql.ts';
import {
  embeddingIndexStatements,
  LATEST_VERSION,
  MAX_INDEXED_DIMENSION,
  MIGRATIONS,
  type SchemaNames,
} from './migrations.ts';
import { COLUMNS, type MemoryRow, placeholder, RECORD_COLUMNS, recordToValues, rowToRecord } from './rows.ts';
import { keywordColumns, PostgresTurnIndex, type TurnPosition } from './turn-index.ts';

export interface PostgresStoreOptions extends PostgresConnectionOptions {
  /** The schema holding hindsight's tables (created when missing). */
  schema: string;
  /** Told once at open when vectors are searched without an ANN index (dimension above 2000). */
  onUnindexedVectors?: (dimension: number) => void;
  keywordRanking?: KeywordRanking;
  turnContext?: TurnContextWindow;
  /** The store is opened by a re-index (`beginReindex`), not to serve memory-api. */
  reindexing?: boolean;
}

/** Keyword terms: tokenizer version + layout (owner keys, turn context); a change recomputes them on open. */
const keywordIndexVersion = (window: TurnContextWindow) =>
  `${KEYWORD_TOKENIZER_VERSION}/owner-keys/${windowLabel(window)}`;
/** pgvector 0.5 brought HNSW; 0.8 iterative index scans, which keep filtered k-NN complete. */
const MINIMUM_PGVECTOR: readonly [number, number] = [0, 5];
const ITERATIVE_SCAN_PGVECTOR: readonly [number, number] = [0, 8];
/** Keyword candidates rescored per requested result, and at least this many. */
const RESCORE_FACTOR = 4;
const MIN_RESCORED = 100;
const MAX_QUERY_TERMS = 48;
/** Rows per INSERT statement (each row takes 30 parameters; PostgreSQL allows 65535). */
const INSERT_CHUNK = 500;
const REBUILD_CHUNK = 1000;
const UNIQUE_VIOLATION = '23505';
/** Text PostgreSQL refuses: a NUL character (22021) or an escape it cannot store (22P05). */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

/**
 * The long-term store on PostgreSQL with pgvector: one `memories` table holding the record, its
 * vector (`vector(n)`, HNSW index, cosine) and its analysed keyword terms (`keywordTokens`, which
 * split Chinese as the SQLite store does; GIN-indexed per owner and ranked with the same per-owner
 * BM25). Each call is one transaction naming its tenant for the row-level security policy, and
 * every query filters by tenant as well; a write's batch commits all or nothing; transactions
 * failing for a transient reason (serialization failure, deadlock, a dropped connection) are
 * repeated whole.
 */
export class PostgresMemoryStore implements MemoryStore, ReindexableStore {
  readonly backend = 'postgres';
  private readonly db: PostgresDatabase;
  private readonly names: SchemaNames;
  private space: EmbeddingSpace | undefined;
  private iterativeScan = false;
  private opened = false;
  private readonly turns: PostgresTurnIndex;
  private readonly keywordRanking: KeywordRanking;
  private readonly keywordIndexVersion: string;
  /** The re-index this store is running (`beginReindex` … `finishReindex`). */
  private reindexing: PostgresReindex | undefined;

  constructor(private readonly options: PostgresStoreOptions) {
    this.db = new PostgresDatabase({
      ...options,
      applicationName: options.reindexing ? REINDEX_APPLICATION_NAME : servingApplicationName(options.schema),
    });
    const schema = pg.escapeIdentifier(options.schema);
    this.names = { schema, memories: `${schema}.memories`, erasures: `${schema}.erasures` };
    const window = options.turnContext ?? DEFAULT_TURN_CONTEXT;
    this.turns = new PostgresTurnIndex(this.names, window);
    this.keywordRanking = options.keywordRanking ?? DEFAULT_KEYWORD_RANKING;
    this.keywordIndexVersion = keywordIndexVersion(window);
  }

  async open(space: EmbeddingSpace): Promise<void> {
    const pgvectorVersion = await this.connectAndCheckExtension();
    this.iterativeScan = atLeast(pgvectorVersion, ITERATIVE_SCAN_PGVECTOR);
    await this.db.run({ tenant: ALL_TENANTS }, async (client) => {
      await this.lockSchema(client);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.names.schema}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${this.names.schema}.store_meta (key text PRIMARY KEY, value text NOT NULL)`,
      );
      const meta = await readMeta(client, this.names);
      const builtWith = recordedSpace(meta, 'embedding');
      const unfinished = unfinishedReindex(meta);
      if (builtWith && unfinished) {
        throw new EmbeddingMismatchError(
          unfinishedReindexInstruction(builtWith, unfinished.target, space, this.description()),
        );
      }
      if (builtWith && !sameSpace(builtWith, space)) {
        throw new EmbeddingMismatchError(reindexInstruction(builtWith, space, this.description()));
      }
      await this.migrate(client, meta, space, builtWith === undefined);
    });
    if (space.dimension > MAX_INDEXED_DIMENSION) this.options.onUnindexedVectors?.(space.dimension);
    this.space = space;
    this.opened = true;
  }

  /** Replicas opening at once (or a re-index): one migrates, the others wait and then find it done. */
  private async lockSchema(client: pg.PoolClient): Promise<void> {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`hindsight:${this.options.schema}`]);
  }

  private description(): string {
    return `the PostgreSQL store ${this.db.target} (schema ${this.options.schema})`;
  }

  /** Brings the schema to the latest version under `space` (the one it was built with, or a new store's). */
  private async migrate(
    client: pg.PoolClient,
    meta: ReadonlyMap<string, string>,
    space: EmbeddingSpace,
    fresh: boolean,
  ): Promise<void> {
    const version = Number(meta.get('schema_version') ?? 0);
    if (version > LATEST_VERSION) {
      throw new Error(
        `the PostgreSQL schema ${this.options.schema} is at version ${version}, newer than this memory-api knows (${LATEST_VERSION}): upgrade memory-api`,
      );
    }
    for (const migration of MIGRATIONS) {
      if (migration.version <= version) continue;
      for (const statement of migration.statements(this.names, space.dimension)) await client.query(statement);
      await setMeta(client, this.names, 'schema_version', String(migration.version));
    }
    if (fresh) {
      await setMeta(client, this.names, 'embedding_model', space.model);
      await setMeta(client, this.names, 'embedding_dimension', String(space.dimension));
    }
    // Derived, so kept outside the migrations: a session's turns in order, for the turn-context index.
    await client.query(
      `CREATE INDEX IF NOT EXISTS memories_session_turns ON ${this.names.memories} (tenant, user_id, session_id, occurred_at, seq)`,
    );
    if (meta.get('keyword_index_version') !== this.keywordIndexVersion) {
      // Terms from another tokenizer, layout or context window would never match today's queries: recompute them.
      await this.rebuildKeywordTerms(client);
      await setMeta(client, this.names, 'keyword_index_version', this.keywordIndexVersion);
    }
  }

  /**
   * Opens the schema as it was built and adds a column for the target's vectors beside the one it
   * serves. Refuses while memory-api has connections open to the database (as far as
   * pg_stat_activity shows them: an idle replica's pool may have closed its connections).
   */
  async beginReindex(target: EmbeddingSpace): Promise<ReindexStatus> {
    const pgvectorVersion = await this.connectAndCheckExtension();
    this.iterativeScan = atLeast(pgvectorVersion, ITERATIVE_SCAN_PGVECTOR);
    const { status, current, run } = await this.db.run({ tenant: ALL_TENANTS }, async (client) => {
      await this.lockSchema(client);
      const found = await client.query<{ meta: string | null }>('SELECT to_regclass($1) AS meta', [
        `${this.names.schema}.store_meta`,
      ]);
      const meta = found.rows[0]?.meta ? await readMeta(client, this.names) : new Map<string, string>();
      const current = recordedSpace(meta, 'embedding');
      if (current === undefined) throw new NoStoreError(this.description());
      await this.refuseWhileServed(client);
      await this.migrate(client, meta, current, false);
      const unfinished = unfinishedReindex(meta);
      let discarded: EmbeddingSpace | undefined;
      if (unfinished && !sameSpace(unfinished.target, target)) {
        await this.dropReindexColumn(client);
        discarded = unfinished.target;
      }
      const total = await countRows(client, `SELECT count(*) AS n FROM ${this.names.memories}`);
      const extra = discarded ? { discarded } : {};
      if (sameSpace(current, target)) {
        return { current, status: { current, target, total, done: total, resumed: false, ...extra } };
      }
      if (unfinished && discarded === undefined) {
        const done = await countRows(
          client,
          `SELECT count(*) AS n FROM ${this.names.memories} WHERE seq <= $1::bigint`,
          [unfinished.after],
        );
        return { current, run: unfinished, status: { current, target, total, done, resumed: true } };
      }
      await client.query(`ALTER TABLE ${this.names.memories} DROP COLUMN IF EXISTS ${NEXT_EMBEDDING}`);
      await client.query(`ALTER TABLE ${this.names.memories} ADD COLUMN ${NEXT_EMBEDDING} vector(${target.dimension})`);
      await setMeta(client, this.names, 'reindex_model', target.model);
      await setMeta(client, this.names, 'reindex_dimension', String(target.dimension));
      await setMeta(client, this.names, 'reindex_after', '0');
      return {
        current,
        run: { target, after: '0' },
        status: { current, target, total, done: 0, resumed: false, ...extra },
      };
    });
    this.space = current;
    this.reindexing = run;
    this.opened = true;
    return status;
  }

  async nextToReindex(limit: number): Promise<MemoryRecord[]> {
    const { after } = this.reindexRun();
    return this.records(
      ALL_TENANTS,
      `SELECT ${RECORD_COLUMNS} FROM ${this.names.memories} m WHERE m.seq > $1::bigint ORDER BY m.seq LIMIT $2`,
      [after, limit],
    );
  }

  async writeReindexed(batch: readonly NewMemory[]): Promise<void> {
    const run = this.reindexRun();
    for (const { vector } of batch) {
      if (vector.length !== run.target.dimension) {
        throw new Error(`vector has dimension ${vector.length}, the re-index target has ${run.target.dimension}`);
      }
    }
    if (batch.length === 0) return;
    run.after = await this.db.run({ tenant: ALL_TENANTS }, async (client) => {
      const { rows } = await client.query<{ seq: string }>(
        `UPDATE ${this.names.memories} m SET ${NEXT_EMBEDDING} = v.embedding::vector
         FROM unnest($1::text[], $2::text[], $3::text[]) AS v(tenant, id, embedding)
         WHERE m.tenant = v.tenant AND m.id = v.id RETURNING m.seq`,
        [
          batch.map(({ record }) => record.tenant),
          batch.map(({ record }) => record.id),
          batch.map(({ vector }) => pgvector.toSql(Array.from(vector))),
        ],
      );
      if (rows.length !== batch.length) {
        throw new Error(`${batch.length - rows.length} of the memories to re-index are no longer in the store`);
      }
      const after = rows.reduce((last, row) => (BigInt(row.seq) > BigInt(last) ? row.seq : last), run.after);
      await setMeta(client, this.names, 'reindex_after', after);
      return after;
    });
  }

  /** Replaces the embedding column by the target's and rebuilds the HNSW index, in one transaction. */
  async finishReindex(): Promise<void> {
    const run = this.reindexRun();
    // Building the HNSW index over every memory may take longer than a request's statement timeout.
    await this.db.run({ tenant: ALL_TENANTS, settings: { statement_timeout: '0' } }, async (client) => {
      await this.lockSchema(client);
      const { memories } = this.names;
      const missing = await countRows(client, `SELECT count(*) AS n FROM ${memories} WHERE ${NEXT_EMBEDDING} IS NULL`);
      if (missing > 0) throw new Error(`${missing} memories have no vector in the re-index target yet`);
      await client.query(`DROP INDEX IF EXISTS ${this.names.schema}.memories_embedding`);
      await client.query(`ALTER TABLE ${memories} DROP COLUMN embedding`);
      await client.query(`ALTER TABLE ${memories} RENAME COLUMN ${NEXT_EMBEDDING} TO embedding`);
      await client.query(`ALTER TABLE ${memories} ALTER COLUMN embedding SET NOT NULL`);
      await client.query(`UPDATE ${memories} SET embedding_model = $1`, [run.target.model]);
      for (const statement of embeddingIndexStatements(this.names, run.target.dimension)) await client.query(statement);
      await setMeta(client, this.names, 'embedding_model', run.target.model);
      await setMeta(client, this.names, 'embedding_dimension', String(run.target.dimension));
      await client.query(`DELETE FROM ${this.names.schema}.store_meta WHERE key = ANY($1::text[])`, [
        [...REINDEX_KEYS],
      ]);
    });
    this.space = run.target;
    this.reindexing = undefined;
  }

  private async dropReindexColumn(client: pg.PoolClient): Promise<void> {
    await client.query(`ALTER TABLE ${this.names.memories} DROP COLUMN IF EXISTS ${NEXT_EMBEDDING}`);
    await client.query(`DELETE FROM ${this.names.schema}.store_meta WHERE key = ANY($1::text[])`, [[...REINDEX_KEYS]]);
  }

  private async refuseWhileServed(client: pg.PoolClient): Promise<void> {
    const serving = await countRows(
      client,
      `SELECT count(*) AS n FROM pg_stat_activity
       WHERE datname = current_database() AND application_name = $1 AND pid <> pg_backend_pid()`,
      [servingApplicationName(this.options.schema)],
    );
    if (serving > 0) {
      throw new StoreInUseError(
        `memory-api has ${serving} connection(s) open to ${this.description()}: stop every memory-api replica before re-indexing it`,
      );
    }
  }

  private reindexRun(): PostgresReindex {
    if (!this.reindexing) throw new Error('no re-index is running: call beginReindex first');
    return this.reindexing;
  }

  async check(): Promise<void> {
    this.assertOpen();
    await this.db.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    this.opened = false;
    await this.db.close();
  }

  async commit(batch: WriteBatch): Promise<void> {
    if (batch.inserts.length === 0 && batch.updates.length === 0) return;
    this.assertOpen();
    for (const { vector } of batch.inserts) this.assertDimension(vector);
    for (const { vector } of batch.updates) if (vector) this.assertDimension(vector);
    const first = batch.inserts[0]?.record.tenant ?? batch.updates[0]?.record.tenant ?? '';
    // Should the answer to COMMIT be lost, the batch is done when every record reads back as written.
    await this.db.run(
      { tenant: first },
      (client) => this.applyBatch(client, batch, first),
      () => this.batchApplied(batch),
    );
  }

  async get(tenant: string, id: string): Promise<MemoryRecord | undefined> {
    const [record] = await this.getMany(tenant, [id]);
    return record;
  }

  async getMany(tenant: string, ids: readonly string[]): Promise<MemoryRecord[]> {
    if (ids.length === 0) return [];
    return this.records(
      tenant,
      `SELECT ${RECORD_COLUMNS} FROM ${this.names.memories} m WHERE m.tenant = $1 AND m.id = ANY($2::text[]) ORDER BY m.seq`,
      [tenant, [...ids]],
    );
  }

  async findActiveByHash(
    tenant: string,
    userId: string,
    layer: Layer,
    contentHash: string,
  ): Promise<MemoryRecord | undefined> {
    const [record] = await this.records(
      tenant,
      `SELECT ${RECORD_COLUMNS} FROM ${this.names.memories} m
       WHERE m.tenant = $1 AND m.user_id = $2 AND m.layer = $3 AND m.content_hash = $4 AND m.status = 'active'`,
      [tenant, userId, layer, contentHash],
    );
    return record;
  }

  async list(filter: MemoryFilter, limit: number, cursor?: string): Promise<Page<MemoryRecord>> {
    const { where, params } = filterToSql(filter);
    const after = cursor === undefined ? '0' : decodeSequenceCursor(cursor);
    const rows = await this.read(filter.tenant, async (client) => {
      const result = await client.query<MemoryRow>(
        `SELECT ${RECORD_COLUMNS} FROM ${this.names.memories} m
         WHERE ${where} AND m.seq > $${params.length + 1}::bigint ORDER BY m.seq LIMIT $${params.length + 2}`,
        [...params, after, limit + 1],
      );
      return result.rows;
    });
    return pageBySequence(rows, limit, rowToRecord, (row) => row.seq);
  }

  async listIds(filter: MemoryFilter, limit: number): Promise<string[]> {
    const { where, params } = filterToSql(filter);
    return this.read(filter.tenant, async (client) => {
      const result = await client.query<{ id: string }>(
        `SELECT m.id FROM ${this.names.memories} m WHERE ${where} ORDER BY m.seq LIMIT $${params.length + 1}`,
        [...params, limit],
      );
      return result.rows.map((row) => row.id);
    });
  }

  async count(filter: MemoryFilter): Promise<number> {
    const { where, params } = filterToSql(filter);
    return this.read(filter.tenant, async (client) => {
      const result = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${this.names.memories} m WHERE ${where}`,
        params,
      );
      return Number(result.rows[0]?.n ?? 0);
    });
  }

  async vectorSearch(scope: SearchScope, vector: Float32Array, k: number): Promise<Candidate[]> {
    this.assertDimension(vector);
    if (k <= 0) return [];
    const { where, params } = filterToSql(scope, 1);
    // The HNSW scan must look at least k deep; iterative scans go on past filtered-out rows.
    const settings: Record<string, string> = { 'hnsw.ef_search': String(Math.min(1000, Math.max(40, k))) };
    if (this.iterativeScan) settings['hnsw.iterative_scan'] = 'relaxed_order';
    const hits = await this.read(
      scope.tenant,
      async (client) => {
        const result = await client.query<{ id: string; score: number }>(
          `SELECT m.id, 1 - (m.embedding <=> $1::vector) AS score FROM ${this.names.memories} m
           WHERE ${where} ORDER BY m.embedding <=> $1::vector LIMIT $${params.length + 2}`,
          [pgvector.toSql(Array.from(vector)), ...params, k],
        );
        return result.rows;
      },
      settings,
    );
    // relaxed_order may hand back neighbours slightly out of order.
    return hits.map((hit) => ({ id: hit.id, score: Number(hit.score) })).sort((a, b) => b.score - a.score);
  }

  /**
   * BM25 over one user's memories, as the SQLite store ranks: the owner-scoped keys find the
   * matches through the GIN index, and the best of them (by the IDF of the query terms they hold,
   * under every filter) are rescored with that user's own statistics.
   */
  async keywordSearch(scope: SearchScope, terms: readonly string[], k: number): Promise<Candidate[]> {
    const unique = [...new Set(terms)].slice(0, MAX_QUERY_TERMS);
    if (unique.length === 0 || k <= 0) return [];
    const prefix = ownerTermPrefix(scope.tenant, scope.userId);
    const keys = unique.map((term) => prefix + term);
    const contextKeys = unique.map((term) => contextTermPrefix(scope.tenant, scope.userId) + term);
    const window = Math.max(k * RESCORE_FACTOR, MIN_RESCORED);
    return this.read(scope.tenant, async (client) => {
      const statistics = await client.query<{ documents: string; frequencies: string[] }>(
        `SELECT
           (SELECT count(*) FROM ${this.names.memories} WHERE tenant = $1 AND user_id = $2) AS documents,
           array(
             SELECT (SELECT count(*) FROM ${this.names.memories} m
                     WHERE m.tenant = $1 AND m.user_id = $2 AND m.keyword_keys @> ARRAY[u.key])
             FROM unnest($3::text[]) WITH ORDINALITY AS u(key, i) ORDER BY u.i
           ) AS frequencies`,
        [scope.tenant, scope.userId, keys],
      );
      const row = statistics.rows[0];
      const documents = Number(row?.documents ?? 0);
      const frequency = new Map(unique.map((term, i) => [term, Number(row?.frequencies[i] ?? 0)]));
      if (documents === 0 || [...frequency.values()].every((df) => df === 0)) return [];
      const documentFrequency = (term: string) => frequency.get(term) ?? 0;
      const weights = bm25Weights(unique, documents, documentFrequency);
      const { where, params } = filterToSql(scope, 3);
      const idf = unique.map((term) => weights.get(term) ?? 0);
      const matches = await client.query<{ id: string; terms: string[] }>(
        `SELECT m.id, m.keyword_terms AS terms FROM ${this.names.memories} m
         WHERE m.keyword_keys && $1::text[] AND ${where}
         ORDER BY (SELECT sum(q.weight) FROM unnest($1::text[], $2::float8[]) AS q(key, weight)
                   WHERE q.key = ANY(m.keyword_keys)) DESC, m.seq
         LIMIT $3`,
        [
          [...keys, ...contextKeys],
          [...idf, ...idf.map((w) => w * this.keywordRanking.contextWeight)],
          window,
          ...params,
        ],
      );
      return rankKeywordMatches(unique, matches.rows, { documents, documentFrequency }, k, this.keywordRanking);
    });
  }

  searchCandidates(query: CandidateQuery): Promise<CandidateSet> {
    return searchInSteps(this, query);
  }

  async similarities(tenant: string, ids: readonly string[], vector: Float32Array): Promise<Map<string, number>> {
    this.assertDimension(vector);
    if (ids.length === 0) return new Map();
    const rows = await this.read(tenant, async (client) => {
      const result = await client.query<{ id: string; similarity: number }>(
        `SELECT m.id, 1 - (m.embedding <=> $1::vector) AS similarity FROM ${this.names.memories} m
         WHERE m.tenant = $2 AND m.id = ANY($3::text[])`,
        [pgvector.toSql(Array.from(vector)), tenant, [...ids]],
      );
      return result.rows;
    });
    return new Map(rows.map((row) => [row.id, Number(row.similarity)]));
  }

  async recordAccess(tenant: string, ids: readonly string[], at: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db.run({ tenant }, (client) =>
      client.query(
        `UPDATE ${this.names.memories} SET access_count = access_count + 1, last_accessed_at = $3::timestamptz
         WHERE tenant = $1 AND id = ANY($2::text[])`,
        [tenant, [...ids], new Date(at).toISOString()],
      ),
    );
  }

  async deleteMany(tenant: string, ids: readonly string[], atVersions?: ReadonlyMap<string, number>): Promise<number> {
    if (ids.length === 0) return 0;
    if (atVersions !== undefined) {
      const expected = ids.flatMap((id) => {
        const version = atVersions.get(id);
        return version === undefined ? [] : [{ id, version }];
      });
      if (expected.length === 0) return 0;
      return this.db.run({ tenant }, async (client) => {
        const result = await client.query(
          `DELETE FROM ${this.names.memories} m USING unnest($2::text[], $3::integer[]) AS v(id, version)
           WHERE m.tenant = $1 AND m.id = v.id AND m.version = v.version`,
          [tenant, expected.map((e) => e.id), expected.map((e) => e.version)],
        );
        return result.rowCount ?? 0;
      });
    }
    return this.db.run({ tenant }, async (client) => {
      const result = await client.query<{
        user_id: string;
        session_id: string | null;
        layer: string;
        occurred_at: Date;
        seq: string;
      }>(
        `DELETE FROM ${this.names.memories} WHERE tenant = $1 AND id = ANY($2::text[])
         RETURNING user_id, session_id, layer, occurred_at, seq`,
        [tenant, [...ids]],
      );
      // A deleted turn's words leave its neighbours' context too.
      await this.turns.refresh(client, tenant, result.rows.flatMap(turnPosition));
      return result.rowCount ?? 0;
    });
  }

  async purgeDeleted(): Promise<StorePurge> {
    return {
      purged: false,
      detail:
        'rows deleted in one transaction; PostgreSQL keeps their bytes in dead tuples (and its WAL) until VACUUM ' +
        'reuses the space: VACUUM FULL rewrites the table at once',
    };
  }

  async saveErasure(tenant: string, receipt: ErasureReceipt): Promise<void> {
    this.assertOpen();
    await this.db.run({ tenant }, (client) =>
      client.query(
        `INSERT INTO ${this.names.erasures} (erasure_id, tenant, user_id, receipt) VALUES ($1, $2, $3, $4)
         ON CONFLICT (erasure_id) DO UPDATE SET receipt = EXCLUDED.receipt`,
        [receipt.erasure_id, tenant, receipt.user_id, JSON.stringify(receipt)],
      ),
    );
  }

  async listErasures(
    tenant: string,
    filter: { userId?: string },
    limit: number,
    cursor?: string,
  ): Promise<Page<ErasureReceipt>> {
    const before = sequenceBefore(cursor);
    const rows = await this.read(tenant, async (client) => {
      const result = await client.query<{ seq: string; receipt: unknown }>(
        `SELECT seq, receipt FROM ${this.names.erasures}
         WHERE tenant = $1 AND ($2::text IS NULL OR user_id = $2) AND seq < $3::bigint ORDER BY seq DESC LIMIT $4`,
        [tenant, filter.userId ?? null, before, limit + 1],
      );
      return result.rows;
    });
    return pageBySequence(
      rows,
      limit,
      (row) => ErasureReceipt.parse(row.receipt),
      (row) => row.seq,
    );
  }

  async countByLayer(tenant?: string): Promise<LayerCounts[]> {
    const scope: TenantScope = tenant ?? ALL_TENANTS;
    return this.read(scope, async (client) => {
      const result = await client.query<{ layer: Layer; status: MemoryStatus; count: string }>(
        tenant === undefined
          ? `SELECT layer, status, count(*) AS count FROM ${this.names.memories} GROUP BY layer, status`
          : `SELECT layer, status, count(*) AS count FROM ${this.names.memories} WHERE tenant = $1 GROUP BY layer, status`,
        tenant === undefined ? [] : [tenant],
      );
      return result.rows.map((row) => ({ layer: row.layer, status: row.status, count: Number(row.count) }));
    });
  }

  async countByUser(tenant: string): Promise<UserLayerCounts[]> {
    return this.read(tenant, async (client) => {
      const result = await client.query<{
        user_id: string;
        layer: Layer;
        status: MemoryStatus;
        count: string;
        last_created_at: Date;
      }>(
        `SELECT user_id, layer, status, count(*) AS count, max(created_at) AS last_created_at
         FROM ${this.names.memories} WHERE tenant = $1 GROUP BY user_id, layer, status`,
        [tenant],
      );
      return result.rows.map((row) => ({
        userId: row.user_id,
        layer: row.layer,
        status: row.status,
        count: Number(row.count),
        lastCreatedAt: row.last_created_at.getTime(),
      }));
    });
  }

  /**
   * Inserts first, then updates, in one transaction; rule violations become the port's errors.
   * The transaction names each record's tenant before writing it (row-level security checks it).
   */
  private async applyBatch(client: pg.PoolClient, batch: WriteBatch, firstTenant: string): Promise<void> {
    let current = firstTenant;
    const serve = async (tenant: string) => {
      if (tenant === current) return;
      await client.query("SELECT set_config('hindsight.tenant', $1, true)", [tenant]);
      current = tenant;
    };
    try {
      for (const run of tenantRuns(batch.inserts, INSERT_CHUNK)) {
        await serve(run[0]?.record.tenant ?? current);
        await this.insertRows(client, run);
      }
      for (const { record, vector } of batch.updates) {
        await serve(record.tenant);
        const assignments = COLUMNS.map((column, i) => updateAssignment(column, placeholder(0, i)));
        const values = [...recordToValues(record), ...keywordColumns(record)];
        assignments.push(`keyword_terms = $${values.length - 1}::text[]`, `keyword_keys = $${values.length}::text[]`);
        if (vector) {
          values.push(pgvector.toSql(Array.from(vector)));
          assignments.push(`embedding = $${values.length}::vector`);
        }
        const result = await client.query(
          `UPDATE ${this.names.memories} SET ${assignments.join(', ')}
           WHERE id = $${values.length + 1} AND tenant = $${values.length + 2} AND version = $${values.length + 3}`,
          [...values, record.id, record.tenant, record.version],
        );
        // Changed or deleted since it was read: the decision must be made again.
        if (result.rowCount === 0) throw new StaleWriteError([record.id]);
      }
      await this.refreshTurns(client, batch, serve);
    } catch (error) {
      throw portError(error, batch);
    }
  }

  /** The context of the turns a batch wrote, and of their neighbours, in the batch's transaction. */
  private async refreshTurns(
    client: pg.PoolClient,
    batch: WriteBatch,
    serve: (tenant: string) => Promise<void>,
  ): Promise<void> {
    const turnIds = new Map<string, string[]>();
    for (const { record } of [...batch.inserts, ...batch.updates]) {
      if (record.layer !== 'episodic' || record.session_id === null) continue;
      turnIds.set(record.tenant, [...(turnIds.get(record.tenant) ?? []), record.id]);
    }
    for (const [tenant, ids] of turnIds) {
      await serve(tenant);
      const { rows } = await client.query<{
        user_id: string;
        session_id: string | null;
        layer: string;
        occurred_at: Date;
        seq: string;
      }>(
        `SELECT user_id, session_id, layer, occurred_at, seq FROM ${this.names.memories}
         WHERE tenant = $1 AND id = ANY($2::text[])`,
        [tenant, ids],
      );
      await this.turns.refresh(client, tenant, rows.flatMap(turnPosition));
    }
  }

  /** One multi-row INSERT of memories of one tenant. */
  private async insertRows(client: pg.PoolClient, rows: readonly NewMemory[]): Promise<void> {
    const width = COLUMNS.length + 3;
    const tuples = rows.map((_, row) => {
      const offset = row * width;
      return `(${[
        ...COLUMNS.map((_column, i) => placeholder(offset, i)),
        `$${offset + COLUMNS.length + 1}::vector`,
        `$${offset + COLUMNS.length + 2}::text[]`,
        `$${offset + COLUMNS.length + 3}::text[]`,
      ].join(', ')})`;
    });
    await client.query(
      `INSERT INTO ${this.names.memories} (${COLUMNS.join(', ')}, embedding, keyword_terms, keyword_keys)
       VALUES ${tuples.join(', ')}`,
      rows.flatMap(({ record, vector }) => [
        ...recordToValues(record),
        pgvector.toSql(Array.from(vector)),
        ...keywordColumns(record),
      ]),
    );
  }

  /** Whether every record of the batch is stored exactly as the batch wrote it. */
  private async batchApplied(batch: WriteBatch): Promise<boolean> {
    const written = [...batch.inserts, ...batch.updates].map(({ record }) => record);
    const updated = new Set(batch.updates.map(({ record }) => record.id));
    // An applied update is one version up and keeps the access statistics the row had gathered.
    const expected = (record: MemoryRecord, stored: MemoryRecord | undefined): MemoryRecord =>
      updated.has(record.id) && stored
        ? { ...committed(record), access_count: stored.access_count, last_accessed_at: stored.last_accessed_at }
        : record;
    for (const tenant of new Set(written.map((record) => record.tenant))) {
      const mine = written.filter((record) => record.tenant === tenant);
      const stored = new Map(
        (
          await this.getMany(
            tenant,
            mine.map((r) => r.id),
          )
        ).map((r) => [r.id, r]),
      );
      if (!mine.every((record) => isDeepStrictEqual(stored.get(record.id), expected(record, stored.get(record.id)))))
        return false;
    }
    return true;
  }

  private async records(tenant: TenantScope, sql: string, params: unknown[]): Promise<MemoryRecord[]> {
    return this.read(tenant, async (client) => (await client.query<MemoryRow>(sql, params)).rows.map(rowToRecord));
  }

  private read<T>(
    tenant: TenantScope,
    work: (client: pg.PoolClient) => Promise<T>,
    settings?: Record<string, string>,
  ): Promise<T> {
    this.assertOpen();
    return this.db.run({ tenant, readOnly: true, ...(settings ? { settings } : {}) }, work);
  }

  /** The server answers and has pgvector (installed here, or installable): its version. */
  private async connectAndCheckExtension(): Promise<string> {
    const where = this.db.target;
    let available: { default_version: string; installed_version: string | null } | undefined;
    try {
      available = (
        await this.db.retrying(() =>
          this.db.pool.query<{ default_version: string; installed_version: string | null }>(
            "SELECT default_version, installed_version FROM pg_available_extensions WHERE name = 'vector'",
          ),
        )
      ).rows[0];
    } catch (error) {
      throw new Error(
        `cannot reach PostgreSQL at ${where} (DATABASE_URL): ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    if (!available) {
      throw new Error(
        `PostgreSQL at ${where} has no pgvector: the "vector" extension is not available on that server. ` +
          'Install pgvector on it (e.g. the postgresql-<version>-pgvector package, or the pgvector/pgvector image; ' +
          'managed services list it as an extension to enable) and start again.',
      );
    }
    if (available.installed_version === null) {
      try {
        await this.db.pool.query('CREATE EXTENSION IF NOT EXISTS vector');
      } catch (error) {
        throw new Error(
          `PostgreSQL at ${where} has pgvector but it is not enabled in this database, and enabling it failed ` +
            `(${error instanceof Error ? error.message : String(error)}): ask an administrator to run ` +
            '"CREATE EXTENSION vector" in the database named by DATABASE_URL, then start again.',
          { cause: error },
        );
      }
    }
    const version = available.installed_version ?? available.default_version;
    if (!atLeast(version, MINIMUM_PGVECTOR)) {
      throw new Error(
        `PostgreSQL at ${where} has pgvector ${version}; hindsight needs ${MINIMUM_PGVECTOR.join('.')} or later (HNSW): ALTER EXTENSION vector UPDATE`,
      );
    }
    return version;
  }

  private async rebuildKeywordTerms(client: pg.PoolClient): Promise<void> {
    let after = '0';
    for (;;) {
      const { rows } = await client.query<Pick<MemoryRow, 'seq' | 'tenant' | 'user_id' | 'query' | 'content'>>(
        `SELECT seq, tenant, user_id, query, content FROM ${this.names.memories} WHERE seq > $1::bigint ORDER BY seq LIMIT $2`,
        [after, REBUILD_CHUNK],
      );
      if (rows.length === 0) break;
      for (const row of rows) {
        await client.query(
          `UPDATE ${this.names.memories} SET keyword_terms = $2::text[], keyword_keys = $3::text[] WHERE seq = $1::bigint`,
          [row.seq, ...keywordColumns(row)],
        );
      }
      after = rows[rows.length - 1]?.seq ?? after;
    }
    await this.turns.rebuildAll(client);
  }

  private assertOpen(): void {
    if (!this.opened) throw new Error('store is not open');
  }

  private assertDimension(vector: Float32Array): void {
    if (this.space && vector.length !== this.space.dimension) {
      throw new Error(`vector has dimension ${vector.length}, the store holds ${this.space.dimension}`);
    }
  }
}

/** The column a re-index writes the target's vectors into, renamed to `embedding` when it finishes. */
const NEXT_EMBEDDING = 'embedding_next';
const REINDEX_KEYS = ['reindex_model', 'reindex_dimension', 'reindex_after'] as const;
const REINDEX_APPLICATION_NAME = 'hindsight-reindex';
/** How memory-api's connections to one schema name themselves, so a re-index can see them (63 bytes at most). */
const servingApplicationName = (schema: string) => `hindsight-memory-api/${schema}`.slice(0, 63);

interface PostgresReindex {
  target: EmbeddingSpace;
  /** The checkpoint: every memory up to this seq has its target vector. */
  after: string;
}

function unfinishedReindex(meta: ReadonlyMap<string, string>): PostgresReindex | undefined {
  const target = recordedSpace(meta, 'reindex');
  return target === undefined ? undefined : { target, after: meta.get('reindex_after') ?? '0' };
}

async function countRows(client: pg.PoolClient, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await client.query<{ n: string }>(sql, params);
  return Number(rows[0]?.n ?? 0);
}

/** A deleted or written row that is an episodic memory of a session, as a turn position. */
function turnPosition(row: {
  user_id: string;
  session_id: string | null;
  layer: string;
  occurred_at: Date;
  seq: string;
}): TurnPosition[] {
  if (row.layer !== 'episodic' || row.session_id === null) return [];
  return [{ userId: row.user_id, sessionId: row.session_id, occurredAt: row.occurred_at, seq: row.seq }];
}

/** Consecutive inserts of the same tenant, at most `size` at a time (the batch's order is kept). */
function tenantRuns(inserts: readonly NewMemory[], size: number): NewMemory[][] {
  const runs: NewMemory[][] = [];
  for (const insert of inserts) {
    const last = runs[runs.length - 1];
    if (last && last.length < size && last[0]?.record.tenant === insert.record.tenant) last.push(insert);
    else runs.push([insert]);
  }
  return runs;
}

/**
 * How an update sets each column: the version moves one past the one the update was decided on,
 * and access statistics recorded meanwhile are never lowered (GREATEST ignores NULL).
 */
function updateAssignment(column: (typeof COLUMNS)[number], value: string): string {
  if (column === 'version') return `version = ${value}::integer + 1`;
  if (column === 'access_count' || column === 'last_accessed_at') return `${column} = GREATEST(${column}, ${value})`;
  return `${column} = ${value}`;
}

function portError(error: unknown, batch: WriteBatch): unknown {
  const { code, constraint, detail } = error as { code?: string; constraint?: string; detail?: string };
  if (code === UNIQUE_VIOLATION && constraint === 'memories_active_hash') {
    // "Key (tenant, user_id, layer, content_hash)=(t1, u1, semantic, <hash>) already exists."
    const hash = /=\(.*, ([^,)]+)\) already exists/.exec(detail ?? '')?.[1];
    const record = [...batch.inserts, ...batch.updates].find((r) => r.record.content_hash === hash)?.record;
    return new DuplicateContentError(record?.content_hash ?? hash ?? 'unknown');
  }
  if (code === UNIQUE_VIOLATION && constraint === 'memories_id_key') {
    // "Key (id)=(<id>) already exists." — ids are unique across tenants, as in the SQLite store.
    const id = /=\((.*)\) already exists/.exec(detail ?? '')?.[1] ?? batch.inserts[0]?.record.id;
    return new IdTakenError(id ?? 'unknown');
  }
  if (code !== undefined && UNSTORABLE_TEXT.has(code)) {
    return new ValidationError('text may not contain the NUL character (U+0000)');
  }
  return error;
}

async function readMeta(client: pg.PoolClient, names: SchemaNames): Promise<Map<string, string>> {
  const { rows } = await client.query<{ key: string; value: string }>(
    `SELECT key, value FROM ${names.schema}.store_meta`,
  );
  return new Map(rows.map((row) => [row.key, row.value]));
}

async function setMeta(client: pg.PoolClient, names: SchemaNames, key: string, value: string): Promise<void> {
  await client.query(
    `INSERT INTO ${names.schema}.store_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
    [key, value],
  );
}

function atLeast(version: string, minimum: readonly [number, number]): boolean {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  return major > minimum[0] || (major === minimum[0] && minor >= minimum[1]);
}
