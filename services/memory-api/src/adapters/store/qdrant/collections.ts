import { searchableText } from '@hindsight/memory-model';
import { KEYWORD_TOKENIZER_VERSION } from '@hindsight/text';
import type { Schemas } from '@qdrant/js-client-rest';
import type { EmbeddingSpace } from '../../../memory/store-port.ts';
import type { QdrantConnection } from './connection.ts';
import { collectionNameFor, DENSE_VECTOR, KEYWORD_VECTOR, type MemoryPayload } from './points.ts';
import { documentSparseVector } from './sparse.ts';

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
export interface HindsightCollection extends EmbeddingSpace {
  name: string;
  tokenizerVersion: number;
  reindex?: { from: string; fromSpace: EmbeddingSpace; next: ReindexOffset; copied: boolean };
}

export type ReindexOffset = 'start' | 'end' | Schemas['ExtendedPointId'];

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
 * The collection lifecycle of the Qdrant store: one collection per embedding space under the
 * store's prefix, marked and described by its metadata (space, keyword tokenizer, an unfinished
 * re-index), created with its vectors and payload indexes, migrated when the tokenizer changes.
 */
export class QdrantCollections {
  constructor(
    private readonly qdrant: QdrantConnection,
    private readonly prefix: string,
    private readonly url: string,
  ) {}

  /** The collection of an embedding space: `<prefix>_<model>_<dimension>`. */
  nameFor(space: EmbeddingSpace): string {
    return collectionNameFor(this.prefix, space);
  }

  async drop(name: string): Promise<void> {
    await this.qdrant.call(() => this.qdrant.client.deleteCollection(name));
  }

  /** Drops the source of a fully copied re-index and clears the marker: the copy is the store now. */
  async completeSwitch(from: string, to: string, space: EmbeddingSpace): Promise<void> {
    const { exists } = await this.qdrant.call(() => this.qdrant.client.collectionExists(from));
    if (exists) await this.qdrant.call(() => this.qdrant.client.deleteCollection(from));
    await this.updateMetadata(to, { ...collectionMetadata(space), ...CLEARED_REINDEX });
  }
  async checkServer(): Promise<void> {
    const { version } = await this.qdrant.call(() => this.qdrant.client.versionInfo());
    if (!supportsServer(version)) {
      throw new Error(`Qdrant ${version} is too old: hindsight needs Qdrant ${MINIMUM_SERVER.join('.')} or later`);
    }
  }
  description(): string {
    return `Qdrant at ${this.url} (QDRANT_COLLECTION_PREFIX "${this.prefix}")`;
  }
  async exactCount(name: string): Promise<number> {
    const { count } = await this.qdrant.call(() => this.qdrant.client.count(name, { exact: true }));
    return count;
  }
  async updateMetadata(name: string, metadata: Partial<CollectionMetadata>): Promise<void> {
    await this.qdrant.call(() =>
      this.qdrant.client.api().updateCollection({ collection_name: name, metadata: { ...metadata } }),
    );
  }
  /** Idempotent: also adds indexes introduced after the collection was created. */
  async ensurePayloadIndexes(name: string): Promise<void> {
    for (const [field_name, field_schema] of PAYLOAD_INDEXES) {
      await this.qdrant.call(() =>
        this.qdrant.client.createPayloadIndex(name, { field_name, field_schema, wait: true }),
      );
    }
  }
  async describe(name: string): Promise<HindsightCollection | undefined> {
    const { exists } = await this.qdrant.call(() => this.qdrant.client.collectionExists(name));
    if (!exists) return undefined;
    const info = await this.qdrant.call(() => this.qdrant.client.getCollection(name));
    const described = describeCollection(name, info.config.metadata);
    if (described === undefined) {
      throw new Error(
        `Qdrant collection ${name} exists but was not created by hindsight; choose another QDRANT_COLLECTION_PREFIX`,
      );
    }
    return described;
  }
  /** The hindsight collections under this store's prefix (other collections are left alone). */
  async list(): Promise<HindsightCollection[]> {
    const { collections } = await this.qdrant.call(() => this.qdrant.client.getCollections());
    const prefix = `${this.prefix}_`;
    const found: HindsightCollection[] = [];
    for (const { name } of collections) {
      if (!name.startsWith(prefix)) continue;
      const info = await this.qdrant.call(() => this.qdrant.client.getCollection(name));
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
  async rebuildKeywordVectors(name: string, space: EmbeddingSpace): Promise<void> {
    let offset: Schemas['ExtendedPointId'] | undefined;
    do {
      const page = await this.qdrant.call(() =>
        this.qdrant.client.scroll(name, {
          limit: this.qdrant.batchSize,
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
      if (operations.length > 0)
        await this.qdrant.call(() => this.qdrant.client.batchUpdate(name, { operations, wait: true }));
      const next = page.next_page_offset;
      offset = typeof next === 'string' || typeof next === 'number' ? next : undefined;
    } while (offset !== undefined);
    await this.qdrant.call(() =>
      this.qdrant.client.api().updateCollection({ collection_name: name, metadata: { ...collectionMetadata(space) } }),
    );
  }
  async create(name: string, space: EmbeddingSpace, reindex: Partial<CollectionMetadata> = {}): Promise<void> {
    const metadata = { ...collectionMetadata(space), ...reindex };
    try {
      // The low-level call: the convenience wrapper of client 1.17 drops `metadata`.
      await this.qdrant.call(() =>
        this.qdrant.client.api().createCollection({
          collection_name: name,
          vectors: { [DENSE_VECTOR]: { size: space.dimension, distance: 'Cosine' } },
          sparse_vectors: { [KEYWORD_VECTOR]: { modifier: 'idf' } },
          metadata: { ...metadata },
        }),
      );
    } catch (error) {
      // Another replica created it at the same moment; `open` re-reads and checks what it built.
      const { exists } = await this.qdrant.call(() => this.qdrant.client.collectionExists(name));
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
