import { randomUUID } from 'node:crypto';
import { cosine, type RetryOptions, withRetries } from '@hindsight/embedding';
import { BadRequestError, EmbeddingMismatchError } from '@hindsight/errors';
import {
  type ErasureReceipt,
  LAYERS,
  type Layer,
  type MemoryRecord,
  STATUSES,
  searchableText,
} from '@hindsight/memory-model';
import { KEYWORD_TOKENIZER_VERSION } from '@hindsight/text';
import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import {
  type Candidate,
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
  type StorePurge,
  sameSpace,
  type UserLayerCounts,
  type WriteBatch,
} from '../../../memory/store-port.ts';
import { reindexInstruction, unfinishedReindexInstruction } from '../reindex.ts';
import { QdrantErasures } from './erasures.ts';
import { activeHashFilter, buildFilter, MATCHES_NOTHING } from './filter.ts';
import {
  collectionNameFor,
  DENSE_VECTOR,
  isMemoryPayload,
  KEYWORD_VECTOR,
  type MemoryPayload,
  type MemoryPoint,
  payloadToRecord,
  pointIdOf,
  toPoint,
} from './points.ts';
import { denseQuery, hybridQuery, keywordQuery } from './queries.ts';
import { DEFAULT_RETRY, qdrantRetryOptions, type RetryPolicy } from './retry.ts';
import { documentSparseVector, querySparseVector } from './sparse.ts';

export interface QdrantStoreOptions {
  url: string;
  apiKey?: string;
  /** Collections are named `<prefix>_<model>_<dimension>`. */
  collectionPrefix: string;
  /** Per-request timeout. */
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** Points per batch-update request. */
  batchSize?: number;
}

/** Marks a collection as a hindsight memory store and records the space it was built with. */
interface CollectionMetadata {
  hindsight_store: 'memory';
  embedding_model: string;
  embedding_dimension: number;
  keyword_tokenizer_version: number;
  /**
   * Set while this collection is the target of an unfinished re-index: the collection it copies
   * and its space, and the scroll offset of the next page to copy (`start`, a point id, or `end`).
   * Cleared with nulls (Qdrant merges metadata updates).
   */
  reindex_from?: string | null;
  reindex_from_model?: string | null;
  reindex_from_dimension?: number | null;
  reindex_next?: string | number | null;
  /** Every point is copied: only dropping the source and clearing these fields remain. */
  reindex_copied?: boolean | null;
}

/** A hindsight collection under the store's prefix, as its metadata describes it. */
interface HindsightCollection extends EmbeddingSpace {
  name: string;
  tokenizerVersion: number;
  reindex?: { from: string; fromSpace: EmbeddingSpace; next: ReindexOffset; copied: boolean };
}

type ReindexOffset = 'start' | 'end' | Schemas['ExtendedPointId'];

interface QdrantReindex {
  from: string;
  to: string;
  target: EmbeddingSpace;
  next: ReindexOffset;
  /** Where the page `nextToReindex` last returned ends: the checkpoint once it is written. */
  pageEnd: ReindexOffset;
}

const CLEARED_REINDEX = {
  reindex_from: null,
  reindex_from_model: null,
  reindex_from_dimension: null,
  reindex_next: null,
  reindex_copied: null,
} as const;

/** Payload fields with an index: the tenant key first (Qdrant co-locates a tenant's points by it). */
const PAYLOAD_INDEXES: ReadonlyArray<[string, Schemas['PayloadFieldSchema']]> = [
  ['tenant', { type: 'keyword', is_tenant: true }],
  ['user_id', { type: 'keyword' }],
  ['agent_id', { type: 'keyword' }],
  ['session_id', { type: 'keyword' }],
  ['layer', { type: 'keyword' }],
  ['category', { type: 'keyword' }],
  ['status', { type: 'keyword' }],
  ['tags', { type: 'keyword' }],
  ['content_hash', { type: 'keyword' }],
  ['superseded_by', { type: 'keyword' }],
  ['occurred_at', { type: 'integer', lookup: false, range: true }],
  ['created_at', { type: 'integer', lookup: false, range: true }],
  ['valid_until', { type: 'integer', lookup: false, range: true }],
];

/** update_mode (insert_only / update_only) arrived in Qdrant 1.17; collection metadata in 1.16. */
const MINIMUM_SERVER: readonly [number, number] = [1, 17];

/**
 * The long-term store on Qdrant: one collection per embedding space with a named
 * dense vector (cosine) and a named sparse keyword vector (`modifier: idf`, so
 * Qdrant supplies BM25's IDF), payload indexes for every filter, and the tenant
 * as Qdrant's tenant key.
 *
 * What `commit` guarantees — Qdrant has no multi-point transactions, so:
 * - A batch that breaks a rule (an update whose memory is gone or no longer at the
 *   version it was decided on, an insert whose id exists, an active duplicate of
 *   stored content or within the batch) is rejected after reading the current state
 *   and before anything is written.
 * - Updates are conditional upserts (`update_filter` on the version read), stamped
 *   with the commit's id: of two writers racing on one version, only the first
 *   lands; the other sees another commit's stamp, undoes its own part and throws
 *   `StaleWriteError`.
 * - Each point is written whole (payload, dense and sparse vector in one upsert),
 *   so no reader ever sees a row without its vectors or with stale keywords.
 * - The batch goes out as ordered batch-update requests (`wait`, strong ordering)
 *   of `batchSize` points. Should a request fail, or a concurrent writer have
 *   inserted the same active content meanwhile, every point this commit inserted is
 *   deleted and every point it updated restored to what it was before the batch,
 *   then the error is thrown. A concurrent duplicate makes the writer that sees the other's point
 *   back off, so a duplicate never persists (both may back off; the write path
 *   then retries).
 * - Not guaranteed: readers may see part of a batch while it is being applied, and
 *   a memory-api process killed mid-batch leaves the part already applied (whole
 *   points, never torn ones). Writes carry fixed point ids, so a retried request
 *   (Idempotency-Key) converges to the same state.
 */
export class QdrantMemoryStore implements MemoryStore, ReindexableStore {
  readonly backend = 'qdrant';
  private readonly client: QdrantClient;
  private readonly retry: RetryOptions;
  private readonly batchSize: number;
  private collection: string | undefined;
  private space: EmbeddingSpace | undefined;
  /** The re-index this store is running (`beginReindex` … `finishReindex`). */
  private reindexing: QdrantReindex | undefined;
  private readonly erasures: QdrantErasures;

  constructor(private readonly options: QdrantStoreOptions) {
    this.client = new QdrantClient({
      url: options.url,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      timeout: options.timeoutMs ?? 10_000,
      // The version is checked in `open`, with an error instead of a console warning.
      checkCompatibility: false,
    });
    this.retry = qdrantRetryOptions(options.retry ?? DEFAULT_RETRY);
    this.batchSize = options.batchSize ?? 128;
    this.erasures = new QdrantErasures(this.client, `${options.collectionPrefix}-erasures`, (work) => this.call(work));
  }

  /** The collection this store reads and writes (known once open). */
  get collectionName(): string {
    return this.opened();
  }

  async open(space: EmbeddingSpace): Promise<void> {
    await this.checkServer();
    const name = collectionNameFor(this.options.collectionPrefix, space);
    const collections = await this.hindsightCollections();
    const unfinished = collections.find((collection) => collection.reindex);
    if (unfinished?.reindex) {
      throw new EmbeddingMismatchError(
        unfinishedReindexInstruction(unfinished.reindex.fromSpace, unfinished, space, this.description()),
      );
    }
    let built = await this.describe(name);
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
      await this.createCollection(name, space);
      built = await this.describe(name);
    }
    if (built === undefined) throw new Error(`Qdrant collection ${name} could not be created`);
    if (built.model !== space.model || built.dimension !== space.dimension) {
      throw new EmbeddingMismatchError(reindexInstruction(built, space, `the Qdrant collection "${name}"`));
    }
    if (built.tokenizerVersion !== KEYWORD_TOKENIZER_VERSION) await this.rebuildKeywordVectors(name, space);
    await this.ensurePayloadIndexes(name);
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
    await this.checkServer();
    let collections = await this.hindsightCollections();
    // A re-index that copied every point is done but for its bookkeeping: complete it first.
    const copied = collections.find((collection) => collection.reindex?.copied);
    if (copied?.reindex) {
      await this.completeSwitch(copied.reindex.from, copied.name, copied);
      collections = await this.hindsightCollections();
    }
    const served = collections.filter((collection) => !collection.reindex);
    const current = served[0];
    if (current === undefined) throw new NoStoreError(this.description());
    if (served.length > 1) {
      throw new Error(
        `${this.description()} holds several hindsight collections (${served.map((c) => c.name).join(', ')}): keep the one memory-api serves`,
      );
    }
    const unfinished = collections.find((collection) => collection.reindex);
    let discarded: EmbeddingSpace | undefined;
    if (unfinished && (!sameSpace(unfinished, target) || unfinished.reindex?.from !== current.name)) {
      await this.call(() => this.client.deleteCollection(unfinished.name));
      discarded = { model: unfinished.model, dimension: unfinished.dimension };
    }
    this.collection = current.name;
    this.space = { model: current.model, dimension: current.dimension };
    const total = await this.exactCount(current.name);
    const extra = discarded ? { discarded } : {};
    if (sameSpace(current, target)) {
      return { current: this.space, target, total, done: total, resumed: false, ...extra };
    }
    if (unfinished?.reindex && discarded === undefined) {
      const next = unfinished.reindex.next;
      this.reindexing = { from: current.name, to: unfinished.name, target, next, pageEnd: next };
      const done = await this.exactCount(unfinished.name);
      return { current: this.space, target, total, done, resumed: true };
    }
    const to = collectionNameFor(this.options.collectionPrefix, target);
    await this.createCollection(to, target, {
      reindex_from: current.name,
      reindex_from_model: current.model,
      reindex_from_dimension: current.dimension,
      reindex_next: 'start',
      reindex_copied: false,
    });
    await this.ensurePayloadIndexes(to);
    this.reindexing = { from: current.name, to, target, next: 'start', pageEnd: 'start' };
    return { current: this.space, target, total, done: 0, resumed: false, ...extra };
  }

  async nextToReindex(limit: number): Promise<MemoryRecord[]> {
    const run = this.reindexRun();
    if (run.next === 'end') return [];
    const page = await this.call(() =>
      this.client.scroll(run.from, {
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
    for (const chunk of chunks(points, this.batchSize)) {
      await this.call(() =>
        this.client.upsert(run.to, { points: chunk as Schemas['PointStruct'][], wait: true, ordering: 'strong' }),
      );
    }
    await this.updateMetadata(run.to, { reindex_next: run.pageEnd });
    run.next = run.pageEnd;
  }

  async finishReindex(): Promise<void> {
    const run = this.reindexRun();
    const [source, copied] = await Promise.all([this.exactCount(run.from), this.exactCount(run.to)]);
    if (run.next !== 'end' || copied !== source) {
      throw new Error(`${source - copied} of ${source} memories have no vector in the re-index target yet`);
    }
    await this.updateMetadata(run.to, { reindex_copied: true });
    await this.completeSwitch(run.from, run.to, run.target);
    this.collection = run.to;
    this.space = run.target;
    this.reindexing = undefined;
  }

  /** Drops the source of a fully copied re-index and clears the marker: the copy is the store now. */
  private async completeSwitch(from: string, to: string, space: EmbeddingSpace): Promise<void> {
    const { exists } = await this.call(() => this.client.collectionExists(from));
    if (exists) await this.call(() => this.client.deleteCollection(from));
    await this.updateMetadata(to, { ...collectionMetadata(space), ...CLEARED_REINDEX });
  }

  private reindexRun(): QdrantReindex {
    if (!this.reindexing) throw new Error('no re-index is running: call beginReindex first');
    return this.reindexing;
  }

  private async checkServer(): Promise<void> {
    const { version } = await this.call(() => this.client.versionInfo());
    if (!supportsServer(version)) {
      throw new Error(`Qdrant ${version} is too old: hindsight needs Qdrant ${MINIMUM_SERVER.join('.')} or later`);
    }
  }

  private description(): string {
    return `Qdrant at ${this.options.url} (QDRANT_COLLECTION_PREFIX "${this.options.collectionPrefix}")`;
  }

  private async exactCount(name: string): Promise<number> {
    const { count } = await this.call(() => this.client.count(name, { exact: true }));
    return count;
  }

  private async updateMetadata(name: string, metadata: Partial<CollectionMetadata>): Promise<void> {
    await this.call(() => this.client.api().updateCollection({ collection_name: name, metadata: { ...metadata } }));
  }

  /** Idempotent: also adds indexes introduced after the collection was created. */
  private async ensurePayloadIndexes(name: string): Promise<void> {
    for (const [field_name, field_schema] of PAYLOAD_INDEXES) {
      await this.call(() => this.client.createPayloadIndex(name, { field_name, field_schema, wait: true }));
    }
  }

  async check(): Promise<void> {
    const info = await this.client.getCollection(this.opened());
    if (info.status === 'red') throw new Error(`Qdrant collection ${this.opened()} is red (an operation failed)`);
  }

  async close(): Promise<void> {
    // The client keeps no resources beyond pooled keep-alive sockets, which close when idle.
    this.collection = undefined;
  }

  async commit(batch: WriteBatch): Promise<void> {
    if (batch.inserts.length === 0 && batch.updates.length === 0) return;
    // Fail before reading anything when the store is not open.
    this.opened();
    for (const { vector } of batch.inserts) this.assertDimension(vector);
    for (const { vector } of batch.updates) if (vector) this.assertDimension(vector);

    const insertIds = batch.inserts.map(({ record }) => pointIdOf(record.tenant, record.id));
    const updateIds = batch.updates.map(({ record }) => pointIdOf(record.tenant, record.id));
    const [taken, before] = await Promise.all([
      this.retrieve(insertIds, { with_payload: ['id'] }),
      this.retrieve(updateIds, { with_payload: true, with_vector: true }),
    ]);
    const firstTaken = taken[0];
    if (firstTaken) throw new IdTakenError(memoryIdOf(firstTaken));
    const beforeById = new Map(before.map((point) => [String(point.id), point]));
    const stale = batch.updates
      .filter(({ record }, i) => storedVersion(beforeById.get(updateIds[i] ?? '')) !== record.version)
      .map(({ record }) => record.id);
    if (stale.length > 0) throw new StaleWriteError(stale);

    // Updates count too: an edit may give a memory the content of another active one.
    const active = [...batch.inserts, ...batch.updates]
      .map(({ record }) => record)
      .filter((r) => r.status === 'active');
    const repeated = firstRepeatedKey(active);
    if (repeated) throw new DuplicateContentError(repeated.content_hash);
    const stored = await this.activeClashes(active, new Set(updateIds));
    if (stored) throw new DuplicateContentError(stored);

    const commitId = randomUUID();
    const inserts = batch.inserts.map(({ record, vector }) => ({ ...toPoint(record, vector), commitId }));
    const updates = batch.updates.map(({ record, vector }, i) => {
      const previous = beforeById.get(updateIds[i] ?? '');
      const next = { ...withAccessOf(record, previous), version: record.version + 1 };
      return { ...toPoint(next, vector ?? denseOf(previous, record.id)), commitId, expected: record.version };
    });
    try {
      await this.writePoints(inserts, updates);
      // A conditional update that lost its race leaves the point as the winner wrote it.
      const landed = await this.landedOf(commitId, updateIds);
      const lost = batch.updates.filter((_, i) => !landed.has(updateIds[i] ?? '')).map(({ record }) => record.id);
      if (lost.length > 0) throw new StaleWriteError(lost);
      const raced = await this.activeClashes(active, new Set([...insertIds, ...updateIds]));
      if (raced) throw new DuplicateContentError(raced);
    } catch (error) {
      try {
        await this.undo(commitId, insertIds, before);
      } catch (undoError) {
        throw new AggregateError([error, undoError], 'a Qdrant write failed and undoing its applied part failed too');
      }
      throw error;
    }
  }

  async get(tenant: string, id: string): Promise<MemoryRecord | undefined> {
    const [point] = await this.retrieve([pointIdOf(tenant, id)], { with_payload: true });
    return point ? recordOf(point, tenant) : undefined;
  }

  async getMany(tenant: string, ids: readonly string[]): Promise<MemoryRecord[]> {
    const points = await this.retrieve(
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
    const { points } = await this.call(() =>
      this.client.scroll(this.opened(), { filter, limit: 1, with_payload: true, with_vector: false }),
    );
    const [point] = points;
    return point ? recordOf(point, tenant) : undefined;
  }

  async list(filter: MemoryFilter, limit: number, cursor?: string): Promise<Page<MemoryRecord>> {
    const offset = cursor === undefined ? undefined : decodeCursor(cursor);
    const qdrantFilter = buildFilter(filter);
    if (qdrantFilter === MATCHES_NOTHING) return { items: [], nextCursor: null };
    // Scrolling is ordered by point id, which is stable and unique: each match comes exactly once.
    const page = await this.call(() =>
      this.client.scroll(this.opened(), {
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
    const { points } = await this.call(() =>
      this.client.scroll(this.opened(), { filter: qdrantFilter, limit, with_payload: ['id'], with_vector: false }),
    );
    return points.map(memoryIdOf);
  }

  async count(filter: MemoryFilter): Promise<number> {
    const qdrantFilter = buildFilter(filter);
    if (qdrantFilter === MATCHES_NOTHING) return 0;
    const { count } = await this.call(() => this.client.count(this.opened(), { filter: qdrantFilter, exact: true }));
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

  async similarities(tenant: string, ids: readonly string[], vector: Float32Array): Promise<Map<string, number>> {
    const points = await this.retrieve(
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
    const points = await this.retrieve(
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
    for (const chunk of chunks(operations, this.batchSize)) {
      await this.call(() =>
        this.client.batchUpdate(this.opened(), { operations: chunk, wait: true, ordering: 'strong' }),
      );
    }
  }

  async deleteMany(tenant: string, ids: readonly string[], atVersions?: ReadonlyMap<string, number>): Promise<number> {
    const existing = await this.retrieve(
      ids.map((id) => pointIdOf(tenant, id)),
      { with_payload: ['tenant', 'id', 'version'] },
    );
    const owned = existing.filter((point) => (point.payload as Partial<MemoryPayload> | undefined)?.tenant === tenant);
    if (atVersions === undefined) {
      for (const chunk of chunks(
        owned.map((point) => point.id),
        this.batchSize,
      )) {
        await this.call(() => this.client.delete(this.opened(), { points: chunk, wait: true, ordering: 'strong' }));
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
      for (const chunk of chunks(points, this.batchSize)) {
        await this.call(() =>
          this.client.delete(this.opened(), {
            filter: { must: [{ has_id: chunk }, versionFilter(version)] },
            wait: true,
            ordering: 'strong',
          }),
        );
      }
      const kept = await this.retrieve(points.map(String), { with_payload: false });
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
        const { hits } = await this.call(() =>
          this.client.facet(this.opened(), { key: 'layer', filter: { must }, exact: true, limit: 16 }),
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
        const { hits } = await this.call(() =>
          this.client.facet(this.opened(), { key: 'user_id', filter: { must }, exact: true, limit: 100_000 }),
        );
        return Promise.all(
          hits.map(async (hit) => {
            const userId = String(hit.value);
            const { points } = await this.call(() =>
              this.client.scroll(this.opened(), {
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

  private call<T>(work: () => Promise<T>): Promise<T> {
    return withRetries(work, this.retry);
  }

  private assertDimension(vector: ArrayLike<number>): void {
    if (this.space && vector.length !== this.space.dimension) {
      throw new Error(`vector has dimension ${vector.length}, the store holds ${this.space.dimension}`);
    }
  }

  private async retrieve(
    ids: readonly string[],
    select: Pick<Schemas['PointRequest'], 'with_payload' | 'with_vector'>,
  ): Promise<Schemas['Record'][]> {
    if (ids.length === 0) return [];
    const found: Schemas['Record'][] = [];
    for (const chunk of chunks([...new Set(ids)], 256)) {
      found.push(...(await this.call(() => this.client.retrieve(this.opened(), { ids: chunk, ...select }))));
    }
    return found;
  }

  private async candidates(request: Schemas['QueryRequest']): Promise<Candidate[]> {
    const { points } = await this.call(() => this.client.query(this.opened(), request));
    return points.map((point) => ({ id: memoryIdOf(point), score: point.score }));
  }

  /**
   * Sends inserts (insert_only: an existing point is never overwritten) and updates (update_only:
   * a memory deleted meanwhile is not resurrected; conditional on the version each was decided
   * on, so of two writers racing on one version only the first lands) in ordered chunks.
   */
  private async writePoints(
    inserts: ReadonlyArray<MemoryPoint & { commitId: string }>,
    updates: ReadonlyArray<MemoryPoint & { commitId: string; expected: number }>,
  ): Promise<void> {
    const stamped = (point: MemoryPoint & { commitId: string }) =>
      ({
        id: point.id,
        vector: point.vector,
        payload: { ...point.payload, commit_id: point.commitId },
      }) as Schemas['PointStruct'];
    const tagged = [
      ...inserts.map((point) => ({ point, expected: undefined })),
      ...updates.map((point) => ({ point, expected: point.expected })),
    ];
    for (const chunk of chunks(tagged, this.batchSize)) {
      const operations: Schemas['UpdateOperation'][] = [];
      const fresh = chunk.filter((entry) => entry.expected === undefined).map((entry) => stamped(entry.point));
      if (fresh.length > 0) operations.push({ upsert: { points: fresh, update_mode: 'insert_only' } });
      for (const expected of new Set(
        chunk.flatMap((entry) => (entry.expected === undefined ? [] : [entry.expected])),
      )) {
        const points = chunk.filter((entry) => entry.expected === expected).map((entry) => stamped(entry.point));
        operations.push({ upsert: { points, update_mode: 'update_only', update_filter: versionFilter(expected) } });
      }
      await this.call(() => this.client.batchUpdate(this.opened(), { operations, wait: true, ordering: 'strong' }));
    }
  }

  /** Of the given points, those whose stored version was written by `commitId`. */
  private async landedOf(commitId: string, pointIds: readonly string[]): Promise<Set<string>> {
    const points = await this.retrieve(pointIds, { with_payload: ['commit_id'] });
    return new Set(
      points
        .filter((point) => (point.payload as Partial<MemoryPayload> | undefined)?.commit_id === commitId)
        .map((point) => String(point.id)),
    );
  }

  /**
   * Puts the points a failed commit wrote back as they were before it: only those this commit
   * wrote (a point another writer won stays as that writer left it).
   */
  private async undo(
    commitId: string,
    insertedIds: readonly string[],
    before: readonly Schemas['Record'][],
  ): Promise<void> {
    const ours = await this.landedOf(commitId, [...insertedIds, ...before.map((point) => String(point.id))]);
    for (const chunk of chunks(
      insertedIds.filter((id) => ours.has(id)),
      this.batchSize,
    )) {
      await this.call(() => this.client.delete(this.opened(), { points: chunk, wait: true, ordering: 'strong' }));
    }
    const restore = before
      .filter((point) => ours.has(String(point.id)))
      .map((point) => ({ id: point.id, vector: point.vector ?? {}, payload: point.payload ?? {} }));
    for (const chunk of chunks(restore, this.batchSize)) {
      await this.call(() =>
        this.client.batchUpdate(this.opened(), {
          operations: [
            {
              upsert: {
                points: chunk as Schemas['PointStruct'][],
                update_mode: 'update_only',
                update_filter: { must: [{ key: 'commit_id', match: { value: commitId } }] },
              },
            },
          ],
          wait: true,
          ordering: 'strong',
        }),
      );
    }
  }

  /**
   * The content hash of a stored active memory that clashes with one of `records`
   * on (tenant, user, layer, content_hash), ignoring the points in `own`.
   */
  private async activeClashes(records: readonly MemoryRecord[], own: ReadonlySet<string>): Promise<string | undefined> {
    const byTenant = new Map<string, MemoryRecord[]>();
    for (const record of records) byTenant.set(record.tenant, [...(byTenant.get(record.tenant) ?? []), record]);
    for (const [tenant, group] of byTenant) {
      const wanted = new Set(group.map(uniquenessKey));
      const filter = activeHashFilter(
        tenant,
        [...new Set(group.map((r) => r.user_id))],
        [...new Set(group.map((r) => r.content_hash))],
      );
      let offset: Schemas['ExtendedPointId'] | undefined;
      do {
        const page = await this.call(() =>
          this.client.scroll(this.opened(), {
            filter,
            limit: 256,
            with_payload: ['user_id', 'layer', 'content_hash', 'tenant'],
            with_vector: false,
            ...(offset !== undefined ? { offset } : {}),
          }),
        );
        for (const point of page.points) {
          const payload = point.payload as Pick<MemoryPayload, 'user_id' | 'layer' | 'content_hash'>;
          if (!own.has(String(point.id)) && wanted.has(uniquenessKey(payload))) return payload.content_hash;
        }
        const next = page.next_page_offset;
        offset = typeof next === 'string' || typeof next === 'number' ? next : undefined;
      } while (offset !== undefined);
    }
    return undefined;
  }

  private async describe(name: string): Promise<HindsightCollection | undefined> {
    const { exists } = await this.call(() => this.client.collectionExists(name));
    if (!exists) return undefined;
    const info = await this.call(() => this.client.getCollection(name));
    const described = describeCollection(name, info.config.metadata);
    if (described === undefined) {
      throw new Error(
        `Qdrant collection ${name} exists but was not created by hindsight; choose another QDRANT_COLLECTION_PREFIX`,
      );
    }
    return described;
  }

  /** The hindsight collections under this store's prefix (other collections are left alone). */
  private async hindsightCollections(): Promise<HindsightCollection[]> {
    const { collections } = await this.call(() => this.client.getCollections());
    const prefix = `${this.options.collectionPrefix}_`;
    const found: HindsightCollection[] = [];
    for (const { name } of collections) {
      if (!name.startsWith(prefix)) continue;
      const info = await this.call(() => this.client.getCollection(name));
      const described = describeCollection(name, info.config.metadata);
      if (described) found.push(described);
    }
    return found;
  }

  /**
   * Recomputes every point's keyword vector from its stored text: terms from another
   * tokenizer version would never match today's queries. Runs once, at the first
   * open after an upgrade; the version is recorded only when every point is done.
   */
  private async rebuildKeywordVectors(name: string, space: EmbeddingSpace): Promise<void> {
    let offset: Schemas['ExtendedPointId'] | undefined;
    do {
      const page = await this.call(() =>
        this.client.scroll(name, {
          limit: this.batchSize,
          with_payload: ['content', 'query'],
          with_vector: false,
          ...(offset !== undefined ? { offset } : {}),
        }),
      );
      const operations: Schemas['UpdateOperation'][] = [];
      const emptied: Schemas['ExtendedPointId'][] = [];
      const updated: Schemas['PointVectors'][] = [];
      for (const point of page.points) {
        const payload = point.payload as Pick<MemoryPayload, 'content' | 'query'>;
        const keywords = documentSparseVector(searchableText(payload));
        if (keywords.indices.length === 0) emptied.push(point.id);
        else updated.push({ id: point.id, vector: { [KEYWORD_VECTOR]: keywords } });
      }
      if (updated.length > 0) operations.push({ update_vectors: { points: updated } });
      if (emptied.length > 0) operations.push({ delete_vectors: { points: emptied, vector: [KEYWORD_VECTOR] } });
      if (operations.length > 0) await this.call(() => this.client.batchUpdate(name, { operations, wait: true }));
      const next = page.next_page_offset;
      offset = typeof next === 'string' || typeof next === 'number' ? next : undefined;
    } while (offset !== undefined);
    await this.call(() =>
      this.client.api().updateCollection({ collection_name: name, metadata: { ...collectionMetadata(space) } }),
    );
  }

  private async createCollection(
    name: string,
    space: EmbeddingSpace,
    reindex: Partial<CollectionMetadata> = {},
  ): Promise<void> {
    const metadata = { ...collectionMetadata(space), ...reindex };
    try {
      // The low-level call: the convenience wrapper of client 1.17 drops `metadata`.
      await this.call(() =>
        this.client.api().createCollection({
          collection_name: name,
          vectors: { [DENSE_VECTOR]: { size: space.dimension, distance: 'Cosine' } },
          sparse_vectors: { [KEYWORD_VECTOR]: { modifier: 'idf' } },
          metadata: { ...metadata },
        }),
      );
    } catch (error) {
      // Another replica created it at the same moment; `open` re-reads and checks what it built.
      const { exists } = await this.call(() => this.client.collectionExists(name));
      if (!exists) throw error;
    }
  }
}

function collectionMetadata(space: EmbeddingSpace): CollectionMetadata {
  return {
    hindsight_store: 'memory',
    embedding_model: space.model,
    embedding_dimension: space.dimension,
    keyword_tokenizer_version: KEYWORD_TOKENIZER_VERSION,
  };
}

function describeCollection(name: string, raw: unknown): HindsightCollection | undefined {
  const metadata = raw as Partial<CollectionMetadata> | null | undefined;
  if (metadata?.hindsight_store !== 'memory' || typeof metadata.embedding_model !== 'string') return undefined;
  const collection: HindsightCollection = {
    name,
    model: metadata.embedding_model,
    dimension: Number(metadata.embedding_dimension),
    tokenizerVersion: Number(metadata.keyword_tokenizer_version),
  };
  if (typeof metadata.reindex_from !== 'string') return collection;
  const next = metadata.reindex_next;
  return {
    ...collection,
    reindex: {
      from: metadata.reindex_from,
      fromSpace: { model: String(metadata.reindex_from_model), dimension: Number(metadata.reindex_from_dimension) },
      next: typeof next === 'string' || typeof next === 'number' ? next : 'start',
      copied: metadata.reindex_copied === true,
    },
  };
}

function supportsServer(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  return major > MINIMUM_SERVER[0] || (major === MINIMUM_SERVER[0] && minor >= MINIMUM_SERVER[1]);
}

function memoryIdOf(point: { id: Schemas['ExtendedPointId']; payload?: unknown }): string {
  const id = (point.payload as { id?: unknown } | null | undefined)?.id;
  if (typeof id !== 'string') throw new Error(`Qdrant point ${String(point.id)} carries no memory id`);
  return id;
}

function recordOf(point: Schemas['Record'], tenant: string): MemoryRecord | undefined {
  return isMemoryPayload(point.payload) && point.payload.tenant === tenant ? payloadToRecord(point.payload) : undefined;
}

function denseOf(point: Schemas['Record'] | undefined, memoryId: string): number[] {
  const vectors = point?.vector as Record<string, unknown> | undefined;
  const dense = vectors?.[DENSE_VECTOR];
  if (!Array.isArray(dense)) throw new Error(`memory ${memoryId} has no dense vector in Qdrant`);
  return dense as number[];
}

/** The version a stored point is at (1 for points written before versions existed); undefined when it is gone. */
function storedVersion(point: Schemas['Record'] | undefined): number | undefined {
  if (!point) return undefined;
  const version = (point.payload as Partial<MemoryPayload> | null | undefined)?.version;
  return typeof version === 'number' ? version : 1;
}

/** Matches a point still at `version` (points from before versions existed count as version 1). */
function versionFilter(version: number): Schemas['Filter'] {
  const atVersion: Schemas['Condition'] = { key: 'version', match: { value: version } };
  return version === 1 ? { should: [atVersion, { is_empty: { key: 'version' } }] } : { must: [atVersion] };
}

/** The record with the access statistics the stored point gathered meanwhile (they never go down). */
function withAccessOf(record: MemoryRecord, stored: Schemas['Record'] | undefined): MemoryRecord {
  const payload = stored?.payload as Partial<MemoryPayload> | null | undefined;
  const storedAccess = Number(payload?.access_count ?? 0);
  const storedAt = typeof payload?.last_accessed_at === 'number' ? payload.last_accessed_at : null;
  const givenAt = record.last_accessed_at === null ? null : Date.parse(record.last_accessed_at);
  const lastAt = storedAt === null ? givenAt : givenAt === null ? storedAt : Math.max(storedAt, givenAt);
  return {
    ...record,
    access_count: Math.max(record.access_count, storedAccess),
    last_accessed_at: lastAt === null ? null : new Date(lastAt).toISOString(),
  };
}

function uniquenessKey(record: Pick<MemoryRecord, 'user_id' | 'layer' | 'content_hash'>): string {
  return `${record.user_id}\u001f${record.layer}\u001f${record.content_hash}`;
}

function firstRepeatedKey(records: readonly MemoryRecord[]): MemoryRecord | undefined {
  const seen = new Set<string>();
  for (const record of records) {
    const key = `${record.tenant}\u001f${uniquenessKey(record)}`;
    if (seen.has(key)) return record;
    seen.add(key);
  }
  return undefined;
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeCursor(pointId: string): string {
  return Buffer.from(pointId).toString('base64url');
}

export function decodeCursor(cursor: string): string {
  const pointId = Buffer.from(cursor, 'base64url').toString();
  if (!UUID.test(pointId)) throw new BadRequestError('cursor is not one this API returned');
  return pointId;
}
