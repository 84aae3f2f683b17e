import { createHash } from 'node:crypto';
import { type Layer, type MemoryRecord, type MemoryStatus, searchableText } from '@hindsight/memory-model';
import type { Schemas } from '@qdrant/js-client-rest';
import type { EmbeddingSpace } from '../../../memory/store-port.ts';
import { documentSparseVector, type SparseVector } from './sparse.ts';

/** Names of the two vectors every point carries. */
export const DENSE_VECTOR = 'dense';
export const KEYWORD_VECTOR = 'keywords';

/**
 * The payload of one point. Filterable fields are stored flat with times as
 * epoch ms (integer range indexes); free JSON (metadata, source, history) is
 * stored as text so it comes back byte-for-byte as it was written.
 */
export type MemoryPayload = {
  id: string;
  tenant: string;
  user_id: string;
  agent_id: string | null;
  session_id: string | null;
  layer: Layer;
  category: string;
  content: string;
  query: string | null;
  tags: string[];
  metadata_json: string;
  confidence: number;
  importance: number | null;
  proof_count: number;
  source_json: string;
  occurred_at: number;
  created_at: number;
  updated_at: number;
  valid_until: number | null;
  status: MemoryStatus;
  superseded_by: string | null;
  history_json: string;
  access_count: number;
  last_accessed_at: number | null;
  decay_weight: number;
  content_hash: string;
  embedding_model: string;
  /** Absent on points written before versions existed: read as 1. */
  version?: number;
  /** The commit that wrote this version of the point: tells a writer whether its conditional update landed. */
  commit_id?: string;
};

export interface MemoryPoint {
  id: string;
  vector: { [DENSE_VECTOR]: number[]; [KEYWORD_VECTOR]?: SparseVector };
  payload: MemoryPayload;
}

/**
 * Point ids are UUIDs derived from (tenant, memory id): the same memory id in two
 * tenants can never address, and so never overwrite, the other tenant's point.
 */
export function pointIdOf(tenant: string, memoryId: string): string {
  const hex = createHash('sha256').update(`${tenant}\u001f${memoryId}`).digest('hex');
  // Shaped as an RFC 4122 name-based UUID (version 5 nibble, variant 10xx).
  const variant = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const msOrNull = (iso: string | null) => (iso === null ? null : Date.parse(iso));
const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function recordToPayload(record: MemoryRecord): MemoryPayload {
  return {
    id: record.id,
    tenant: record.tenant,
    user_id: record.user_id,
    agent_id: record.agent_id,
    session_id: record.session_id,
    layer: record.layer,
    category: record.category,
    content: record.content,
    query: record.query,
    tags: [...record.tags],
    metadata_json: JSON.stringify(record.metadata),
    confidence: record.confidence,
    importance: record.importance,
    proof_count: record.proof_count,
    source_json: JSON.stringify(record.source),
    occurred_at: Date.parse(record.occurred_at),
    created_at: Date.parse(record.created_at),
    updated_at: Date.parse(record.updated_at),
    valid_until: msOrNull(record.valid_until),
    status: record.status,
    superseded_by: record.superseded_by,
    history_json: JSON.stringify(record.history),
    access_count: record.access_count,
    last_accessed_at: msOrNull(record.last_accessed_at),
    decay_weight: record.decay_weight,
    content_hash: record.content_hash,
    embedding_model: record.embedding_model,
    version: record.version,
  };
}

export function payloadToRecord(payload: MemoryPayload): MemoryRecord {
  return {
    id: payload.id,
    tenant: payload.tenant,
    user_id: payload.user_id,
    agent_id: payload.agent_id,
    session_id: payload.session_id,
    layer: payload.layer,
    category: payload.category,
    content: payload.content,
    query: payload.query,
    tags: [...payload.tags],
    metadata: JSON.parse(payload.metadata_json),
    confidence: payload.confidence,
    importance: payload.importance,
    proof_count: payload.proof_count,
    source: JSON.parse(payload.source_json),
    occurred_at: new Date(payload.occurred_at).toISOString(),
    created_at: new Date(payload.created_at).toISOString(),
    updated_at: new Date(payload.updated_at).toISOString(),
    valid_until: isoOrNull(payload.valid_until),
    status: payload.status,
    superseded_by: payload.superseded_by,
    history: JSON.parse(payload.history_json),
    access_count: payload.access_count,
    last_accessed_at: isoOrNull(payload.last_accessed_at),
    decay_weight: payload.decay_weight,
    content_hash: payload.content_hash,
    embedding_model: payload.embedding_model,
    version: payload.version ?? 1,
  };
}

/** The point a memory is stored as: dense vector, keyword sparse vector (when it has terms) and payload. */
export function toPoint(record: MemoryRecord, dense: ArrayLike<number>): MemoryPoint {
  const keywords = documentSparseVector(searchableText(record));
  return {
    id: pointIdOf(record.tenant, record.id),
    vector:
      keywords.indices.length > 0
        ? { [DENSE_VECTOR]: Array.from(dense), [KEYWORD_VECTOR]: keywords }
        : { [DENSE_VECTOR]: Array.from(dense) },
    payload: recordToPayload(record),
  };
}

/** True when `value` looks like a payload this adapter wrote (guards against foreign points). */
export function isMemoryPayload(value: unknown): value is MemoryPayload {
  if (!value || typeof value !== 'object') return false;
  const p = value as Record<string, unknown>;
  return typeof p.id === 'string' && typeof p.tenant === 'string' && typeof p.metadata_json === 'string';
}

/**
 * One collection per embedding space: the name carries the model and dimension so
 * two models never share (and corrupt) one vector space.
 */
export function collectionNameFor(prefix: string, space: EmbeddingSpace): string {
  const model = space.model
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  return `${prefix}_${model || 'model'}_${space.dimension}`;
}

/** The memory id a point carries in its payload. */
export function memoryIdOf(point: { id: Schemas['ExtendedPointId']; payload?: unknown }): string {
  const id = (point.payload as { id?: unknown } | null | undefined)?.id;
  if (typeof id !== 'string') throw new Error(`Qdrant point ${String(point.id)} carries no memory id`);
  return id;
}

/** The record a point holds, when it is a memory of `tenant`. */
export function recordOf(point: Schemas['Record'], tenant: string): MemoryRecord | undefined {
  return isMemoryPayload(point.payload) && point.payload.tenant === tenant ? payloadToRecord(point.payload) : undefined;
}

/** The dense vector of a point read `with_vector`. */
export function denseOf(point: Schemas['Record'] | undefined, memoryId: string): number[] {
  const vectors = point?.vector as Record<string, unknown> | undefined;
  const dense = vectors?.[DENSE_VECTOR];
  if (!Array.isArray(dense)) throw new Error(`memory ${memoryId} has no dense vector in Qdrant`);
  return dense as number[];
}
