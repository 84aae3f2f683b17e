import { ConflictError } from '@hindsight/errors';
import type { ErasureReceipt, Layer, MemoryRecord, MemoryStatus } from '@hindsight/memory-model';

/**
 * Which memories a query may see. `tenant` is always set by the caller from the
 * API key, never from a request body; adapters must apply it as a hard filter.
 */
export interface MemoryFilter {
  tenant: string;
  userId?: string;
  agentId?: string;
  sessionId?: string;
  layers?: readonly Layer[];
  categories?: readonly string[];
  /** Matches a memory carrying at least one of these tags. */
  tags?: readonly string[];
  statuses?: readonly MemoryStatus[];
  /** occurred_at window in epoch ms, inclusive. */
  occurredFrom?: number;
  occurredTo?: number;
  /** created_at strictly before, epoch ms (forget `before`). */
  createdBefore?: number;
  /** Only memories still valid at this time (valid_until unset or later), epoch ms. */
  validAt?: number;
  ids?: readonly string[];
  /** Memories superseded by one of these (the versions a memory replaced: its history chain). */
  supersededBy?: readonly string[];
}

/** A search scope is always one user of one tenant (the partition k-NN runs in). */
export type SearchScope = MemoryFilter & { userId: string };

export interface Candidate {
  id: string;
  /** Cosine similarity for dense search, a positive relevance (higher is better) for keyword search. */
  score: number;
}

/**
 * What one search asks of the store. The query vector is usually still being embedded when the
 * call is made: the store looks for keyword candidates meanwhile and goes on once it is known.
 */
export interface CandidateQuery {
  scope: SearchScope;
  /** The query's `keywordTokens`. */
  terms: readonly string[];
  /** Candidates per source (dense and keyword). */
  k: number;
  /** The query vector; undefined (the embedder is unavailable, or the deadline came first): keywords alone. */
  vector: Promise<Float32Array | undefined>;
}

/**
 * The fields of a memory a search reads (search.ts: scoring, dialogue focus, the hit it answers):
 * all a store must answer of a candidate, so one need not read or copy the rest (history, query,
 * hashes) for the ~60 candidates of every search.
 */
export const CANDIDATE_FIELDS = [
  'id',
  'content',
  'layer',
  'category',
  'status',
  'tags',
  'metadata',
  'source',
  'confidence',
  'decay_weight',
  'occurred_at',
  'created_at',
  'session_id',
  'superseded_by',
] as const satisfies ReadonlyArray<keyof MemoryRecord>;
export type CandidateRecord = Pick<MemoryRecord, (typeof CANDIDATE_FIELDS)[number]>;

/** Everything a search needs from the store, as `vectorSearch`, `keywordSearch`, `getMany` and `similarities` answer it. */
export interface CandidateSet {
  dense: Candidate[];
  keyword: Candidate[];
  /** The candidates of both lists (each once, in no particular order): at least their `CANDIDATE_FIELDS`, as `getMany` answers them. */
  records: CandidateRecord[];
  /** Cosine similarity to the query vector of the keyword candidates the k-NN did not return (none without a vector). */
  keywordOnlySimilarities: Map<string, number>;
}

export interface NewMemory {
  record: MemoryRecord;
  vector: Float32Array;
}

export interface MemoryUpdate {
  /**
   * The memory as it should be stored, carrying the `version` it was decided on (the version that
   * was read: a `structuredClone` of the read record keeps it). The store writes `version + 1`.
   */
  record: MemoryRecord;
  /** Present when the embedded text changed. */
  vector?: Float32Array;
}

/** Everything one write changes; applied all-or-nothing. */
export interface WriteBatch {
  inserts: NewMemory[];
  updates: MemoryUpdate[];
}

export interface EmbeddingSpace {
  model: string;
  dimension: number;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface LayerCounts {
  layer: Layer;
  status: MemoryStatus;
  count: number;
}

/** One user's memories of one layer and status: how many, and when the newest was learned. */
export interface UserLayerCounts extends LayerCounts {
  userId: string;
  /** The newest `created_at` among them, epoch ms. */
  lastCreatedAt: number;
}

/**
 * The long-term memory store port (episodic + semantic layers).
 *
 * Contract, checked by test/adapters/store/contract.ts against every adapter:
 * - `open` creates or migrates the schema and records the embedding space; opening a
 *   store built with another model or dimension throws `EmbeddingMismatchError`.
 * - `commit` applies all inserts and updates atomically (row + vector + keyword index);
 *   an insert or update that would leave two active memories with the same (tenant, user,
 *   layer, content_hash) throws `DuplicateContentError`, an insert whose id is held (by any
 *   tenant, where ids are unique across tenants) throws `IdTakenError`, and nothing of the batch
 *   is applied.
 * - `commit` is a compare-and-swap per updated memory: an update applies only if the stored
 *   memory still has `update.record.version` (it was not changed or deleted since it was read);
 *   it is stored with `version + 1`. Otherwise `StaleWriteError` is thrown and nothing of the
 *   batch is applied: the caller reads again and decides again. Inserts are stored with the
 *   version they carry (1 for a new memory). Of several concurrent commits decided on the same
 *   version of a memory, at most one succeeds.
 * - Access statistics (`access_count`, `last_accessed_at`) are not decision state: `recordAccess`
 *   leaves the version alone, and an update never lowers them (the larger of stored and given wins).
 * - Every read is confined to `filter.tenant`.
 * - `list` pages in a stable order; following `nextCursor` yields each match exactly once.
 * - `vectorSearch` returns cosine similarities best first; `keywordSearch` BM25-like
 *   relevance best first over `keywordTokens` terms, normalised by the query's total term weight
 *   (about 1 for a memory holding every query term once, less for some or only common ones), so
 *   it reads the same across queries; both honour every filter field.
 * - Turn context: an episodic memory with a session_id whose category is not `summary`/`profile`
 *   is a turn of that user's session (ordered by occurred_at, then write order). Its keyword entry
 *   also holds the terms of the active turns around it (the store's window: `before` turns before,
 *   `after` after), weighted below its own, so it is found by the words of its exchange; stored
 *   content never changes. `commit` and `deleteMany` keep it current in the same write: a turn
 *   written later joins the earlier turns' context, an edited, deactivated or deleted one leaves it.
 */
export interface MemoryStore {
  readonly backend: string;
  open(space: EmbeddingSpace): Promise<void>;
  check(): Promise<void>;
  close(): Promise<void>;

  commit(batch: WriteBatch): Promise<void>;
  get(tenant: string, id: string): Promise<MemoryRecord | undefined>;
  getMany(tenant: string, ids: readonly string[]): Promise<MemoryRecord[]>;
  findActiveByHash(
    tenant: string,
    userId: string,
    layer: Layer,
    contentHash: string,
  ): Promise<MemoryRecord | undefined>;
  list(filter: MemoryFilter, limit: number, cursor?: string): Promise<Page<MemoryRecord>>;
  listIds(filter: MemoryFilter, limit: number): Promise<string[]>;
  count(filter: MemoryFilter): Promise<number>;

  vectorSearch(scope: SearchScope, vector: Float32Array, k: number): Promise<Candidate[]>;
  keywordSearch(scope: SearchScope, terms: readonly string[], k: number): Promise<Candidate[]>;
  /** Cosine similarity of the given memories to `vector` (for candidates found by keyword only). */
  similarities(tenant: string, ids: readonly string[], vector: Float32Array): Promise<Map<string, number>>;
  /**
   * One search's candidates, their records and the keyword-only candidates' similarities in one
   * call: what `searchInSteps` answers from the four calls above, in fewer trips where the store
   * can (the embedded store's read pool answers it in one round trip to one worker).
   */
  searchCandidates(query: CandidateQuery): Promise<CandidateSet>;

  recordAccess(tenant: string, ids: readonly string[], at: number): Promise<void>;
  /**
   * Hard delete (explicit forget, user erasure, retention). Returns how many were removed. With
   * `atVersions`, a memory is deleted only if it is still at the version given for its id (one
   * restored or edited since it was read stays), and ids without a version are left alone.
   */
  deleteMany(tenant: string, ids: readonly string[], atVersions?: ReadonlyMap<string, number>): Promise<number>;
  countByLayer(tenant?: string): Promise<LayerCounts[]>;
  /** The tenant's memories grouped by user, layer and status (rows with a count of 0 are absent). */
  countByUser(tenant: string): Promise<UserLayerCounts[]>;

  /**
   * User erasure (DESIGN §9): makes what was deleted so far unrecoverable from the backend's own
   * files, as far as the backend allows, and says how. SQLite deletes with `secure_delete` and
   * FTS5 `secure-delete` (both set at open, so freed cells, pages and index entries are zeroed) and
   * here checkpoints and truncates its WAL; a server store reports what its engine keeps until it
   * vacuums. Idempotent; cheap when nothing was deleted.
   */
  purgeDeleted(): Promise<StorePurge>;
  /** Records an erasure's tombstone (ids, times, counts — never content), replacing one with its `erasure_id`. */
  saveErasure(tenant: string, receipt: ErasureReceipt): Promise<void>;
  /** A tenant's tombstones, newest first, optionally one user's; pages like `list`. */
  listErasures(
    tenant: string,
    filter: { userId?: string },
    limit: number,
    cursor?: string,
  ): Promise<Page<ErasureReceipt>>;
}

/** What `purgeDeleted` achieved: `purged` only when the files no longer hold the deleted bytes. */
export interface StorePurge {
  purged: boolean;
  detail: string;
}

/**
 * `searchCandidates` from the store's single calls: keyword candidates while the query vector is
 * embedded, then the k-NN, then the records of both lists and the keyword-only similarities.
 */
export async function searchInSteps(
  store: Pick<MemoryStore, 'vectorSearch' | 'keywordSearch' | 'getMany' | 'similarities'>,
  query: CandidateQuery,
): Promise<CandidateSet> {
  const { scope, k } = query;
  // Settled at once: a keyword failure while the vector is awaited is this call's error, never an unhandled rejection.
  const keywordWork = store.keywordSearch(scope, query.terms, k).then(
    (hits) => ({ hits }),
    (error: unknown) => ({ error }),
  );
  const vector = await query.vector;
  const dense = vector ? await store.vectorSearch(scope, vector, k) : [];
  const keywordOutcome = await keywordWork;
  if ('error' in keywordOutcome) throw keywordOutcome.error;
  const keyword = keywordOutcome.hits;
  const denseIds = new Set(dense.map((c) => c.id));
  const ids = [...new Set([...denseIds, ...keyword.map((c) => c.id)])];
  const keywordOnly = keyword.filter((c) => !denseIds.has(c.id)).map((c) => c.id);
  const [records, keywordOnlySimilarities] = await Promise.all([
    ids.length > 0 ? store.getMany(scope.tenant, ids) : [],
    vector && keywordOnly.length > 0
      ? store.similarities(scope.tenant, keywordOnly, vector)
      : new Map<string, number>(),
  ]);
  return { dense, keyword, records, keywordOnlySimilarities };
}

/** A memory as the store holds it once `commit` applied it as an update (one version up). */
export function committed(update: MemoryRecord): MemoryRecord {
  return { ...update, version: update.version + 1 };
}

/** A commit was decided on a version of a memory that is no longer the stored one (or is gone). */
export class StaleWriteError extends Error {
  constructor(readonly memoryIds: readonly string[]) {
    super(`memory ${memoryIds.join(', ')} changed since it was read`);
    this.name = 'StaleWriteError';
  }
}

/**
 * An update names another owner (`user_id`) than the stored memory's. No path moves a memory to
 * another user (PATCH cannot name one, an import only inserts); the embedded store refuses such an
 * update, as its vectors and keyword entry are scoped by the owner they were written under.
 */
export class OwnerChangeError extends Error {
  constructor(
    readonly memoryId: string,
    readonly from: string,
    readonly to: string,
  ) {
    super(`memory ${memoryId} belongs to user ${from}: an update cannot move it to user ${to}`);
    this.name = 'OwnerChangeError';
  }
}

/**
 * An inserted memory's id is already held. The SQL stores keep ids unique across tenants, so the
 * holder may be another tenant: only an import, which brings its own ids, can meet one it cannot see.
 */
export class IdTakenError extends ConflictError {
  constructor(readonly memoryId: string) {
    super(`memory ${memoryId} already exists`);
    this.name = 'IdTakenError';
  }
}

export class DuplicateContentError extends Error {
  constructor(readonly contentHash: string) {
    super(`an active memory with content hash ${contentHash} already exists`);
    this.name = 'DuplicateContentError';
  }
}

/** Where a re-index stands, as `beginReindex` finds it. */
export interface ReindexStatus {
  /** The space the store serves (searches and writes use it) until `finishReindex` switches. */
  current: EmbeddingSpace;
  target: EmbeddingSpace;
  /** Long-term memories of every tenant, layer and status. */
  total: number;
  /** Of those, how many already have their vector in the target (from an earlier, killed run). */
  done: number;
  /** An unfinished re-index into the same target was found, and this run continues it. */
  resumed: boolean;
  /** An unfinished re-index into another space was found and discarded. */
  discarded?: EmbeddingSpace;
}

/**
 * Re-embedding a store in place into another embedding space (`hindsight reindex`), a capability
 * every MemoryStore adapter has beside the port. Memory-api must not have the store open meanwhile.
 *
 * Contract, checked by test/adapters/store/reindex-contract.ts against every adapter:
 * - `beginReindex(target)` opens the store as it was built (no mismatch refusal; schema migrations
 *   run as in `open`) and prepares the target's vector storage beside the one it serves. Nothing is
 *   created where there is no store (`NoStoreError`). With `target` equal to the current space it
 *   changes nothing (but discards an unfinished re-index into another space). A store where a
 *   re-index into the same target was interrupted resumes from its checkpoint; one into another
 *   target is discarded first.
 * - `nextToReindex(limit)` lists the next memories past the checkpoint (every tenant, layer and
 *   status) in a stable order; `writeReindexed` stores their target vectors and moves the checkpoint
 *   past them in one atomic step, so a run killed at any moment loses at most the batch in flight.
 * - `finishReindex()` switches the store to the target in one step once every memory has its target
 *   vector: searches then use the new vectors, every record's `embedding_model` names the target,
 *   nothing else of any record changes (id, content, history, status, version), and the old vectors
 *   are gone. A memory without a target vector makes it throw, switching nothing.
 * - While a re-index is unfinished, `open` refuses with `EmbeddingMismatchError` saying so.
 */
export interface ReindexableStore {
  beginReindex(target: EmbeddingSpace): Promise<ReindexStatus>;
  nextToReindex(limit: number): Promise<MemoryRecord[]>;
  writeReindexed(batch: readonly NewMemory[]): Promise<void>;
  finishReindex(): Promise<void>;
  close(): Promise<void>;
}

export function sameSpace(a: EmbeddingSpace, b: EmbeddingSpace): boolean {
  return a.model === b.model && a.dimension === b.dimension;
}

/** There is no memory store where the configuration points (nothing to re-index; nothing was created). */
export class NoStoreError extends Error {
  constructor(where: string) {
    super(`there is no hindsight memory store at ${where}`);
    this.name = 'NoStoreError';
  }
}

/** Another process has the store open, and what is asked for needs it alone. */
export class StoreInUseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreInUseError';
  }
}
