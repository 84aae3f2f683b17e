import type { ErasureReceipt, Layer, MemoryRecord } from '@hindsight/memory-model';
import type {
  Candidate,
  CandidateQuery,
  CandidateSet,
  EmbeddingSpace,
  LayerCounts,
  MemoryFilter,
  MemoryStore,
  NewMemory,
  Page,
  ReindexableStore,
  ReindexStatus,
  SearchScope,
  StorePurge,
  UserLayerCounts,
  WriteBatch,
} from '../../../memory/store-port.ts';
import { SqliteReadPool } from './read-pool.ts';
import type { PooledRead, StoreReads } from './read-protocol.ts';
import {
  DEFAULT_CONNECTION_MEMORY,
  isBulkWrite,
  SqliteMemoryStore,
  type SqliteStoreOptions,
  type StageListener,
} from './store.ts';

/** Memories whose access statistics one statement of the access worker updates. */
const ACCESS_CHUNK = 64;
/** The access worker's page cache: an update of ACCESS_CHUNK rows by id touches a few hundred pages at most. */
const ACCESS_CACHE_BYTES = 2 * 1024 ** 2;
/**
 * How long after a write the WAL is checkpointed (a bulk write's at once): writes of the same
 * moments share one checkpoint, and its fsync of the file, as SQLite's own every ~1,000 pages did.
 */
const CHECKPOINT_DELAY_MS = 200;

export interface PooledStoreHooks {
  /** A checkpoint of the WAL failed (the next write asks for another; nothing acknowledged is lost): a process warning when not given. */
  onCheckpointError?: (error: Error) => void;
}

/**
 * The embedded store serving memory-api: writes (and erasure, re-index) on the one serving
 * connection, serialised and durable as `SqliteMemoryStore` makes them; reads answered by a pool of
 * worker threads, each with its own read-only connection, so searches run on every core and never
 * block the event loop. Results are those of the serving connection (the same adapter reads), and
 * a read sees every write acknowledged before it started.
 */
export class PooledSqliteStore implements MemoryStore, ReindexableStore {
  readonly backend = 'sqlite';
  private readonly writer: SqliteMemoryStore;
  private pool: SqliteReadPool | undefined;
  /** One worker with a writing connection of its own for access statistics (read-pool.ts ACCESS_WRITES). */
  private access: SqliteReadPool | undefined;
  private stageListener: StageListener | undefined;
  /** The checkpoint asked of the access worker and not answered yet; one more waits at most. */
  private checkpointRun: Promise<void> | undefined;
  private checkpointTimer: NodeJS.Timeout | undefined;
  private truncateWanted = false;
  private checkpointAgain = false;

  constructor(
    private readonly path: string,
    private readonly options: SqliteStoreOptions,
    private readonly readWorkers: number,
    private readonly hooks: PooledStoreHooks = {},
  ) {
    // The access worker checkpoints the WAL, off the event loop (`checkpointAfterWrite`).
    this.writer = new SqliteMemoryStore(path, { ...options, searchesInPool: true, checkpointsElsewhere: true });
  }

  async open(space: EmbeddingSpace): Promise<void> {
    await this.writer.open(space);
    // The access worker writes and looks rows up by id only: it maps nothing of the file, as the
    // serving connection, and its page cache holds the few pages one update touches.
    const memory = this.options.memory ?? DEFAULT_CONNECTION_MEMORY;
    const accessOptions = {
      ...this.options,
      searchesInPool: true,
      memory: { mmapBytes: 0, cacheBytes: Math.min(memory.cacheBytes, ACCESS_CACHE_BYTES) },
    };
    const [pool, access] = await Promise.allSettled([
      SqliteReadPool.start({ path: this.path, options: this.options, space, role: 'reads' }, this.readWorkers),
      SqliteReadPool.start({ path: this.path, options: accessOptions, space, role: 'access' }, 1),
    ]);
    if (pool.status === 'rejected' || access.status === 'rejected') {
      if (pool.status === 'fulfilled') await pool.value.close();
      if (access.status === 'fulfilled') await access.value.close();
      await this.writer.close();
      throw pool.status === 'rejected' ? pool.reason : (access as PromiseRejectedResult).reason;
    }
    this.pool = pool.value;
    this.pool.onStage((stage, seconds) => this.stageListener?.(stage, seconds));
    this.access = access.value;
  }

  /** Hears how long each step of a search took in the read workers (the service's /metrics). */
  onStage(listener: StageListener): void {
    this.stageListener = listener;
  }

  async close(): Promise<void> {
    clearTimeout(this.checkpointTimer);
    this.checkpointTimer = undefined;
    this.checkpointAgain = false;
    await this.checkpointRun;
    await this.access?.close();
    this.access = undefined;
    await this.pool?.close();
    this.pool = undefined;
    await this.writer.close();
  }

  check(): Promise<void> {
    return this.writer.check();
  }

  async commit(batch: WriteBatch): Promise<void> {
    await this.writer.commit(batch);
    this.checkpointAfterWrite(isBulkWrite(batch));
  }

  /**
   * Asks the access worker to checkpoint the WAL, CHECKPOINT_DELAY_MS after a write (a bulk
   * write's at once, truncating the WAL after it): the copy into the file and its fsync run on that
   * worker's connection, never blocking the serving one (a passive checkpoint takes no lock).
   */
  private checkpointAfterWrite(bulk: boolean): void {
    if (!this.access) return;
    this.truncateWanted ||= bulk;
    if (this.checkpointTimer !== undefined) {
      if (!bulk) return;
      clearTimeout(this.checkpointTimer);
    }
    this.checkpointTimer = setTimeout(
      () => {
        this.checkpointTimer = undefined;
        this.runCheckpoint();
      },
      bulk ? 0 : CHECKPOINT_DELAY_MS,
    );
    this.checkpointTimer.unref();
  }

  private runCheckpoint(): void {
    const access = this.access;
    if (!access) return;
    if (this.checkpointRun) {
      this.checkpointAgain = true;
      return;
    }
    const truncate = this.truncateWanted;
    this.truncateWanted = false;
    this.checkpointRun = access
      .call('checkpoint', [truncate])
      .catch((error: Error) => (this.hooks.onCheckpointError ?? process.emitWarning)(error))
      .finally(() => {
        this.checkpointRun = undefined;
        if (!this.checkpointAgain) return;
        this.checkpointAgain = false;
        this.runCheckpoint();
      });
  }

  /**
   * On the access worker's connection, in statements of at most ACCESS_CHUNK memories: the event
   * loop never runs the update, and a commit of the serving connection waits for at most one of
   * them (both take the file's one write lock).
   */
  async recordAccess(tenant: string, ids: readonly string[], at: number): Promise<void> {
    const access = this.access;
    if (!access) throw new Error('store is not open');
    for (let i = 0; i < ids.length; i += ACCESS_CHUNK) {
      await access.call('recordAccess', [tenant, ids.slice(i, i + ACCESS_CHUNK), at]);
    }
  }

  deleteMany(tenant: string, ids: readonly string[], atVersions?: ReadonlyMap<string, number>): Promise<number> {
    return this.writer.deleteMany(tenant, ids, atVersions);
  }

  purgeDeleted(): Promise<StorePurge> {
    return this.writer.purgeDeleted();
  }

  saveErasure(tenant: string, receipt: ErasureReceipt): Promise<void> {
    return this.writer.saveErasure(tenant, receipt);
  }

  get(tenant: string, id: string): Promise<MemoryRecord | undefined> {
    return this.writer.get(tenant, id);
  }

  getMany(tenant: string, ids: readonly string[]): Promise<MemoryRecord[]> {
    return this.read('getMany', [tenant, ids]);
  }

  findActiveByHash(
    tenant: string,
    userId: string,
    layer: Layer,
    contentHash: string,
  ): Promise<MemoryRecord | undefined> {
    return this.writer.findActiveByHash(tenant, userId, layer, contentHash);
  }

  list(filter: MemoryFilter, limit: number, cursor?: string): Promise<Page<MemoryRecord>> {
    return this.read('list', [filter, limit, cursor]);
  }

  listIds(filter: MemoryFilter, limit: number): Promise<string[]> {
    return this.read('listIds', [filter, limit]);
  }

  count(filter: MemoryFilter): Promise<number> {
    return this.read('count', [filter]);
  }

  vectorSearch(scope: SearchScope, vector: Float32Array, k: number): Promise<Candidate[]> {
    return this.read('vectorSearch', [scope, vector, k]);
  }

  keywordSearch(scope: SearchScope, terms: readonly string[], k: number): Promise<Candidate[]> {
    return this.read('keywordSearch', [scope, terms, k]);
  }

  similarities(tenant: string, ids: readonly string[], vector: Float32Array): Promise<Map<string, number>> {
    return this.read('similarities', [tenant, ids, vector]);
  }

  searchCandidates(query: CandidateQuery): Promise<CandidateSet> {
    if (!this.pool) return Promise.reject(new Error('store is not open'));
    return this.pool.searchCandidates(query);
  }

  countByLayer(tenant?: string): Promise<LayerCounts[]> {
    return this.read('countByLayer', [tenant]);
  }

  countByUser(tenant: string): Promise<UserLayerCounts[]> {
    return this.read('countByUser', [tenant]);
  }

  listErasures(
    tenant: string,
    filter: { userId?: string },
    limit: number,
    cursor?: string,
  ): Promise<Page<ErasureReceipt>> {
    return this.read('listErasures', [tenant, filter, limit, cursor]);
  }

  // A re-index opens the file alone (no pool can be open beside it): the writer does it all.
  beginReindex(target: EmbeddingSpace): Promise<ReindexStatus> {
    return this.writer.beginReindex(target);
  }

  nextToReindex(limit: number): Promise<MemoryRecord[]> {
    return this.writer.nextToReindex(limit);
  }

  writeReindexed(batch: readonly NewMemory[]): Promise<void> {
    return this.writer.writeReindexed(batch);
  }

  finishReindex(): Promise<void> {
    return this.writer.finishReindex();
  }

  private read<M extends Exclude<PooledRead, 'searchCandidates'>>(
    method: M,
    args: Parameters<StoreReads[M]>,
  ): ReturnType<StoreReads[M]> {
    if (!this.pool) return Promise.reject(new Error('store is not open')) as ReturnType<StoreReads[M]>;
    return this.pool.call(method, args);
  }
}
