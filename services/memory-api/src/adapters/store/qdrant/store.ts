import { cosine } from '@hindsight/embedding';
import { EmbeddingMismatchError } from '@hindsight/errors';
import { type ErasureReceipt, LAYERS, type Layer, type MemoryRecord, STATUSES } from '@hindsight/memory-model';
import { KEYWORD_TOKENIZER_VERSION } from '@hindsight/text';
import type { Schemas } from '@qdrant/js-client-rest';
import {
  type Candidate,
  type CandidateQuery,
  type CandidateSet,
  type EmbeddingSpace,
  type LayerCounts,
  type MemoryFilter,
  type MemoryStore,
  type NewMemory,
  NoStoreError,
  type Page,
  type ReindexableStore,
  type ReindexStatus,
  type SearchScope,
  type StorePurge,
  sameSpace,
  searchInSteps,
  type UserLayerCounts,
  type WriteBatch,
} from '../../../memory/store-port.ts';
import { reindexInstruction, unfinishedReindexInstruction } from '../reindex.ts';
import { QdrantCollections, type ReindexOffset } from './collections.ts';
import { commitBatch, storedVersion, versionFilter } from './commit.ts';
import { QdrantConnection, type QdrantConnectionOptions } from './connection.ts';
import { QdrantErasures } from './erasures.ts';
import { buildFilter, MATCHES_NOTHING } from './filter.ts';
import { chunks, decodeCursor, encodeCursor } from './paging.ts';
import {
  DENSE_VECTOR,
  denseOf,
  isMemoryPayload,
  type MemoryPayload,
  memoryIdOf,
  payloadToRecord,
  pointIdOf,
  recordOf,
  toPoint,
} from './points.ts';
import { denseQuery, hybridQuery, keywordQuery } from './queries.ts';
import { querySparseVector } from './sparse.ts';

export interface QdrantStoreOptions extends QdrantConnectionOptions {
  /** Collections are named `<prefix>_<model>_<dimension>`. */
  collectionPrefix: string;
}

interface QdrantReindex {
  from: string;
  to: string;
  target: EmbeddingSpace;
  next: ReindexOffset;
  /** Where the page `nextToReindex` last returned ends: the checkpoint once it is written. */
  pageEnd: ReindexOffset;
}

/**
 * The long-term store on Qdrant: one collection per embedding space with a named
 * dense vector (cosine) and a named sparse keyword vector (`modifier: idf`, so
 * Qdrant supplies BM25's IDF), payload indexes for every filter, and the tenant
 * as Qdrant's tenant key.
 *
 * Its parts: the server connection (`connection.ts`), the collection lifecycle and re-index
 * bookkeeping (`collections.ts`), the compensating commit protocol — what `commit` guarantees
 * without multi-point transactions (`commit.ts`) —, the point mapping (`points.ts`), filters and
 * queries (`filter.ts`, `queries.ts`) and the erasure tombstones (`erasures.ts`); this class holds
 * the port's methods.
 */
export class QdrantMemoryStore implements MemoryStore, ReindexableStore {
  readonly backend = 'qdrant';
  private readonly qdrant: QdrantConnection;
  private readonly collections: QdrantCollections;
  private collection: string | undefined;
  private space: EmbeddingSpace | undefined;
  /** The re-index this store is running (`beginReindex` … `finishReindex`). */
  private reindexing: QdrantReindex | undefined;
  private readonly erasures: QdrantErasures;

  constructor(private readonly options: QdrantStoreOptions) {
    this.qdrant = new QdrantConnection(options);
    this.collections = new QdrantCollections(this.qdrant, options.collectionPrefix, options.url);
    this.erasures = new QdrantErasures(this.qdrant.client, `${options.collectionPrefix}-erasures`, (work) =>
      this.qdrant.call(work),
    );
  }

  /** The collection this store reads and writes (known once open). */
  get collectionName(): string {
    return this.opened();
  }

  async open(space: EmbeddingSpace): Promise<void> {
    await this.collections.checkServer();
    const name = this.collections.nameFor(space);
    const collections = await this.collections.list();
    const unfinished = collections.find((collection) => collection.reindex);
    if (unfinished?.reindex) {
      throw new EmbeddingMismatchError(
        unfinishedReindexInstruction(unfinished.reindex.fromSpace, unfinished, space, this.collections.description()),
      );
    }
    let built = await this.collections.describe(name);
    if (built === undefined) {
      const other = collections.find((collection) => collection.name !== name);
      if (other) {
        throw new EmbeddingMismatchError(
          reindexInstruction(
            other,
            space,
            `the Qdrant collection "${other.name}" (QDRANT_COLLECTION_PREFIX "${this.options.collectionPrefix}")`,
          ),
        );
      }
      await this.collections.create(name, space);
      built = await this.collections.describe(name);
    }
    if (built === undefined) throw new Error(`Qdrant collection ${name} could not be created`);
    if (built.model !== space.model || built.dimension !== space.dimension) {
      throw new EmbeddingMismatchError(reindexInstruction(built, space, `the Qdrant collection "${name}"`));
    }
    if (built.tokenizerVersion !== KEYWORD_TOKENIZER_VERSION) await this.collections.rebuildKeywordVectors(name, space);
    await this.collections.ensurePayloadIndexes(name);
    await this.erasures.open();
    this.collection = name;
    this.space = space;
  }

  /**
   * Copies the served collection into a new one for the target space (`<prefix>_<model>_<dim>`),
   * point by point with the new dense vector; the copy's metadata holds the checkpoint. It switches
   * by dropping the source and clearing the marker, so `open` then finds only the new collection.
   */
  async beginReindex(target: EmbeddingSpace): Promise<ReindexStatus> {
    await this.collections.checkServer();
    let collections = await this.collections.list();
    // A re-index that copied every point is done but for its bookkeeping: complete it first.
    const copied = collections.find((collection) => collection.reindex?.copied);
    if (copied?.reindex) {
      await this.collections.completeSwitch(copied.reindex.from, copied.name, copied);
      collections = await this.collections.list();
    }
    const served = collections.filter((collection) => !collection.reindex);
    const current = served[0];
    if (current === undefined) throw new NoStoreError(this.collections.description());
    if (served.length > 1) {
      throw new Error(
        `${this.collections.description()} holds several hindsight collections (${served.map((c) => c.name).join(', ')}): keep the one memory-api serves`,
      );
    }
    const unfinished = collections.find((collection) => collection.reindex);
    let discarded: EmbeddingSpace | undefined;
    if (unfinished && (!sameSpace(unfinished, target) || unfinished.reindex?.from !== current.name)) {
      await this.collections.drop(unfinished.name);
      discarded = { model: unfinished.model, dimension: unfinished.dimension };
    }
    this.collection = current.name;
    this.space = { model: current.model, dimension: current.dimension };
    const total = await this.collections.exactCount(current.name);
    const extra = discarded ? { discarded } : {};
    if (sameSpace(current, target)) {
      return { current: this.space, target, total, done: total, resumed: false, ...extra };
    }
    if (unfinished?.reindex && discarded === undefined) {
      const next = unfinished.reindex.next;
      this.reindexing = { from: current.name, to: unfinished.name, target, next, pageEnd: next };
      const done = await this.collections.exactCount(unfinished.name);
      return { current: this.space, target, total, done, resumed: true };
    }
    const to = this.collections.nameFor(target);
    await this.collections.create(to, target, {
      reindex_from: current.name,
      reindex_from_model: current.model,
      reindex_from_dimension: current.dimension,
      reindex_next: 'start',
      reindex_copied: false,
    });
    await this.collections.ensurePayloadIndexes(to);
    this.reindexing = { from: current.name, to, target, next: 'start', pageEnd: 'start' };
    return { current: this.space, target, total, done: 0, resumed: false, ...extra };
  }

  async nextToReindex(limit: number): Promise<MemoryRecord[]> {
    const run = this.reindexRun();
    if (run.next === 'end') return [];
    const page = await this.qdrant.call(() =>
      this.qdrant.client.scroll(run.from, {
        limit,
        with_payload: true,
        with_vector: false,
        ...(run.next !== 'start' ? { offset: run.next } : {}),
      }),
    );
    const next = page.next_page_offset;
    run.pageEnd = typeof next === 'string' || typeof next === 'number' ? next : 'end';
    return page.points.flatMap((point) => (isMemoryPayload(point.payload) ? [payloadToRecord(point.payload)] : []));
  }

  /** Writes the page `nextToReindex` returned into the target collection, then moves the checkpoint past it. */
  async writeReindexed(batch: readonly NewMemory[]): Promise<void> {
    const run = this.reindexRun();
    for (const { vector } of batch) {
      if (vector.length !== run.target.dimension) {
        throw new Error(`vector has dimension ${vector.length}, the re-index target has ${run.target.dimension}`);
      }
    }
    const points = batch.map(({ record, vector }) => toPoint({ ...record, embedding_model: run.target.model }, vector));
    for (const chunk of chunks(points, this.qdrant.batchSize)) {
      await this.qdrant.call(() =>
        this.qdrant.client.upsert(run.to, {
          points: chunk as Schemas['PointStruct'][],
          wait: true,
          ordering: 'strong',
        }),
      );
    }
    await this.collections.updateMetadata(run.to, { reindex_next: run.pageEnd });
    run.next = run.pageEnd;
  }

  async finishReindex(): Promise<void> {
    const run = this.reindexRun();
    const [source, copied] = await Promise.all([
      this.collections.exactCount(run.from),
      this.collections.exactCount(run.to),
    ]);
    if (run.next !== 'end' || copied !== source) {
      throw new Error(`${source - copied} of ${source} memories have no vector in the re-index target yet`);
    }
    await this.collections.updateMetadata(run.to, { reindex_copied: true });
    await this.collections.completeSwitch(run.from, run.to, run.target);
    this.collection = run.to;
    this.space = run.target;
    this.reindexing = undefined;
  }

  private reindexRun(): QdrantReindex {
    if (!this.reindexing) throw new Error('no re-index is running: call beginReindex first');
    return this.reindexing;
  }

  async check(): Promise<void> {
    const info = await this.qdrant.client.getCollection(this.opened());
    if (info.status === 'red') throw new Error(`Qdrant collection ${this.opened()} is red (an operation failed)`);
  }

  async close(): Promise<void> {
    // The client keeps no resources beyond pooled keep-alive sockets, which close when idle.
    this.collection = undefined;
  }

  async commit(batch: WriteBatch): Promise<void> {
    if (batch.inserts.length === 0 && batch.updates.length === 0) return;
    // Fail before reading anything when the store is not open.
    const collection = this.opened();
    for (const { vector } of batch.inserts) this.assertDimension(vector);
    for (const { vector } of batch.updates) if (vector) this.assertDimension(vector);
    await commitBatch(this.qdrant, collection, batch);
  }

  async get(tenant: string, id: string): Promise<MemoryRecord | undefined> {
    const [point] = await this.qdrant.retrieve(this.opened(), [pointIdOf(tenant, id)], { with_payload: true });
    return point ? recordOf(point, tenant) : undefined;
  }

  async getMany(tenant: string, ids: readonly string[]): Promise<MemoryRecord[]> {
    const points = await this.qdrant.retrieve(
      this.opened(),
      ids.map((id) => pointIdOf(tenant, id)),
      { with_payload: true },
    );
    return points.flatMap((point) => recordOf(point, tenant) ?? []);
  }

  async findActiveByHash(
    tenant: string,
    userId: string,
    layer: Layer,
    contentHash: string,
  ): Promise<MemoryRecord | undefined> {
    const filter = buildFilter({ tenant, userId, layers: [layer], statuses: ['active'] });
    if (filter === MATCHES_NOTHING) return undefined;
    (filter.must as Schemas['Condition'][]).push({ key: 'content_hash', match: { value: contentHash } });
    const { points } = await this.qdrant.call(() =>
      this.qdrant.client.scroll(this.opened(), { filter, limit: 1, with_payload: true, with_vector: false }),
    );
    const [point] = points;
    return point ? recordOf(point, tenant) : undefined;
  }

  async list(filter: MemoryFilter, limit: number, cursor?: string): Promise<Page<MemoryRecord>> {
    const offset = cursor === undefined ? undefined : decodeCursor(cursor);
    const qdrantFilter = buildFilter(filter);
    if (qdrantFilter === MATCHES_NOTHING) return { items: [], nextCursor: null };
    // Scrolling is ordered by point id, which is stable and unique: each match comes exactly once.
    const page = await this.qdrant.call(() =>
      this.qdrant.client.scroll(this.opened(), {
        filter: qdrantFilter,
        limit,
        with_payload: true,
        with_vector: false,
        ...(offset !== undefined ? { offset } : {}),
      }),
    );
    const next = page.next_page_offset;
    return {
      items: page.points.flatMap((point) => recordOf(point, filter.tenant) ?? []),
      nextCursor: typeof next === 'string' ? encodeCursor(next) : null,
    };
  }

  async listIds(filter: MemoryFilter, limit: number): Promise<string[]> {
    const qdrantFilter = buildFilter(filter);
    if (qdrantFilter === MATCHES_NOTHING) return [];
    const { points } = await this.qdrant.call(() =>
      this.qdrant.client.scroll(this.opened(), {
        filter: qdrantFilter,
        limit,
        with_payload: ['id'],
        with_vector: false,
      }),
    );
    return points.map(memoryIdOf);
  }

  async count(filter: MemoryFilter): Promise<number> {
    const qdrantFilter = buildFilter(filter);
    if (qdrantFilter === MATCHES_NOTHING) return 0;
    const { count } = await this.qdrant.call(() =>
      this.qdrant.client.count(this.opened(), { filter: qdrantFilter, exact: true }),
    );
    return count;
  }

  async vectorSearch(scope: SearchScope, vector: Float32Array, k: number): Promise<Candidate[]> {
    this.assertDimension(vector);
    const filter = buildFilter(scope);
    if (filter === MATCHES_NOTHING || k <= 0) return [];
    return this.candidates(denseQuery(vector, filter, k));
  }

  async keywordSearch(scope: SearchScope, terms: readonly string[], k: number): Promise<Candidate[]> {
    const query = querySparseVector(terms);
    const filter = buildFilter(scope);
    if (filter === MATCHES_NOTHING || query.indices.length === 0 || k <= 0) return [];
    return this.candidates(keywordQuery(query, filter, k));
  }

  /**
   * Dense and keyword candidates fused by Qdrant (prefetch + RRF) in one round trip,
   * for callers that need only the fused order, not each source's own score.
   */
  async hybridSearch(
    scope: SearchScope,
    vector: Float32Array,
    terms: readonly string[],
    k: number,
    rrfK = 60,
  ): Promise<Candidate[]> {
    this.assertDimension(vector);
    const filter = buildFilter(scope);
    if (filter === MATCHES_NOTHING || k <= 0) return [];
    return this.candidates(hybridQuery(vector, querySparseVector(terms), filter, k, rrfK));
  }

  searchCandidates(query: CandidateQuery): Promise<CandidateSet> {
    return searchInSteps(this, query);
  }

  async similarities(tenant: string, ids: readonly string[], vector: Float32Array): Promise<Map<string, number>> {
    const points = await this.qdrant.retrieve(
      this.opened(),
      ids.map((id) => pointIdOf(tenant, id)),
      { with_payload: ['id', 'tenant'], with_vector: [DENSE_VECTOR] },
    );
    const result = new Map<string, number>();
    for (const point of points) {
      const payload = point.payload as Partial<MemoryPayload> | null | undefined;
      if (payload?.tenant !== tenant || typeof payload.id !== 'string') continue;
      result.set(payload.id, cosine(vector, denseOf(point, payload.id)));
    }
    return result;
  }

  /**
   * Qdrant cannot increment a payload field in place: concurrent accesses of one
   * memory may count once. Access counts steer decay, where that is harmless.
   */
  async recordAccess(tenant: string, ids: readonly string[], at: number): Promise<void> {
    const points = await this.qdrant.retrieve(
      this.opened(),
      ids.map((id) => pointIdOf(tenant, id)),
      { with_payload: ['tenant', 'access_count'] },
    );
    const operations: Schemas['UpdateOperation'][] = points
      .filter((point) => (point.payload as Partial<MemoryPayload> | undefined)?.tenant === tenant)
      .map((point) => ({
        set_payload: {
          payload: {
            access_count: Number((point.payload as Partial<MemoryPayload>).access_count ?? 0) + 1,
            last_accessed_at: at,
          },
          points: [point.id],
        },
      }));
    for (const chunk of chunks(operations, this.qdrant.batchSize)) {
      await this.qdrant.call(() =>
        this.qdrant.client.batchUpdate(this.opened(), { operations: chunk, wait: true, ordering: 'strong' }),
      );
    }
  }

  async deleteMany(tenant: string, ids: readonly string[], atVersions?: ReadonlyMap<string, number>): Promise<number> {
    const existing = await this.qdrant.retrieve(
      this.opened(),
      ids.map((id) => pointIdOf(tenant, id)),
      { with_payload: ['tenant', 'id', 'version'] },
    );
    const owned = existing.filter((point) => (point.payload as Partial<MemoryPayload> | undefined)?.tenant === tenant);
    if (atVersions === undefined) {
      for (const chunk of chunks(
        owned.map((point) => point.id),
        this.qdrant.batchSize,
      )) {
        await this.qdrant.call(() =>
          this.qdrant.client.delete(this.opened(), { points: chunk, wait: true, ordering: 'strong' }),
        );
      }
      return owned.length;
    }
    // Conditional: a filter on the version deletes each point only if it is still the version that was read.
    const byVersion = new Map<number, Schemas['ExtendedPointId'][]>();
    for (const point of owned) {
      const expected = atVersions.get(memoryIdOf(point));
      if (expected === undefined || storedVersion(point) !== expected) continue;
      byVersion.set(expected, [...(byVersion.get(expected) ?? []), point.id]);
    }
    let removed = 0;
    for (const [version, points] of byVersion) {
      for (const chunk of chunks(points, this.qdrant.batchSize)) {
        await this.qdrant.call(() =>
          this.qdrant.client.delete(this.opened(), {
            filter: { must: [{ has_id: chunk }, versionFilter(version)] },
            wait: true,
            ordering: 'strong',
          }),
        );
      }
      const kept = await this.qdrant.retrieve(this.opened(), points.map(String), { with_payload: false });
      removed += points.length - kept.length;
    }
    return removed;
  }

  async purgeDeleted(): Promise<StorePurge> {
    return {
      purged: false,
      detail:
        'points deleted (waited for, strong ordering); Qdrant drops their bytes from its segments when its ' +
        'optimizer vacuums them (optimizer_config.deleted_threshold)',
    };
  }

  saveErasure(tenant: string, receipt: ErasureReceipt): Promise<void> {
    this.opened();
    return this.erasures.save(tenant, receipt);
  }

  listErasures(
    tenant: string,
    filter: { userId?: string },
    limit: number,
    cursor?: string,
  ): Promise<Page<ErasureReceipt>> {
    this.opened();
    return this.erasures.list(tenant, filter, limit, cursor);
  }

  async countByLayer(tenant?: string): Promise<LayerCounts[]> {
    const perStatus = await Promise.all(
      STATUSES.map(async (status) => {
        const must: Schemas['Condition'][] = [{ key: 'status', match: { value: status } }];
        if (tenant !== undefined) must.push({ key: 'tenant', match: { value: tenant } });
        const { hits } = await this.qdrant.call(() =>
          this.qdrant.client.facet(this.opened(), { key: 'layer', filter: { must }, exact: true, limit: 16 }),
        );
        return hits.map((hit) => ({ layer: hit.value as Layer, status, count: hit.count }));
      }),
    );
    return perStatus.flat().filter((row) => row.count > 0);
  }

  /**
   * Facets count users per layer and status; each user's newest memory comes from a scroll ordered
   * by `created_at` (range-indexed), one per user and status.
   */
  async countByUser(tenant: string): Promise<UserLayerCounts[]> {
    const groups = LAYERS.filter((layer) => layer !== 'working').flatMap((layer) =>
      STATUSES.map((status) => ({ layer, status })),
    );
    const rows = await Promise.all(
      groups.map(async ({ layer, status }) => {
        const must: Schemas['Condition'][] = [
          { key: 'tenant', match: { value: tenant } },
          { key: 'layer', match: { value: layer } },
          { key: 'status', match: { value: status } },
        ];
        const { hits } = await this.qdrant.call(() =>
          this.qdrant.client.facet(this.opened(), { key: 'user_id', filter: { must }, exact: true, limit: 100_000 }),
        );
        return Promise.all(
          hits.map(async (hit) => {
            const userId = String(hit.value);
            const { points } = await this.qdrant.call(() =>
              this.qdrant.client.scroll(this.opened(), {
                filter: { must: [...must, { key: 'user_id', match: { value: userId } }] },
                limit: 1,
                with_payload: ['created_at'],
                with_vector: false,
                order_by: { key: 'created_at', direction: 'desc' },
              }),
            );
            const created = points[0]?.payload?.created_at;
            return {
              userId,
              layer,
              status,
              count: hit.count,
              lastCreatedAt: typeof created === 'number' ? created : 0,
            };
          }),
        );
      }),
    );
    return rows.flat();
  }

  private opened(): string {
    if (this.collection === undefined) throw new Error('store is not open');
    return this.collection;
  }

  private assertDimension(vector: ArrayLike<number>): void {
    if (this.space && vector.length !== this.space.dimension) {
      throw new Error(`vector has dimension ${vector.length}, the store holds ${this.space.dimension}`);
    }
  }

  private async candidates(request: Schemas['QueryRequest']): Promise<Candidate[]> {
    const { points } = await this.qdrant.call(() => this.qdrant.client.query(this.opened(), request));
    return points.map((point) => ({ id: memoryIdOf(point), score: point.score }));
  }
}
