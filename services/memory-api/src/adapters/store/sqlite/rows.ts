import type { MemoryRecord } from '@hindsight/memory-model';

/** The `memories` table row: times as epoch ms, JSON fields as text. */
export interface MemoryRow {
  rowid: number;
  id: string;
  tenant: string;
  user_id: string;
  agent_id: string | null;
  session_id: string | null;
  layer: string;
  category: string;
  content: string;
  query: string | null;
  tags: string;
  metadata: string;
  confidence: number;
  importance: number | null;
  proof_count: number;
  source: string;
  occurred_at: number;
  created_at: number;
  updated_at: number;
  valid_until: number | null;
  status: string;
  superseded_by: string | null;
  history: string;
  access_count: number;
  last_accessed_at: number | null;
  decay_weight: number;
  content_hash: string;
  embedding_model: string;
}

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));
const msOrNull = (value: string | null) => (value === null ? null : Date.parse(value));

export function rowToRecord(row: MemoryRow): MemoryRecord {
  return {
    id: row.id,
    tenant: row.tenant,
    user_id: row.user_id,
    agent_id: row.agent_id,
    session_id: row.session_id,
    layer: row.layer as MemoryRecord['layer'],
    category: row.category,
    content: row.content,
    query: row.query,
    tags: JSON.parse(row.tags),
    metadata: JSON.parse(row.metadata),
    confidence: row.confidence,
    importance: row.importance,
    proof_count: row.proof_count,
    source: JSON.parse(row.source),
    occurred_at: iso(row.occurred_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    valid_until: isoOrNull(row.valid_until),
    status: row.status as MemoryRecord['status'],
    superseded_by: row.superseded_by,
    history: JSON.parse(row.history),
    access_count: row.access_count,
    last_accessed_at: isoOrNull(row.last_accessed_at),
    decay_weight: row.decay_weight,
    content_hash: row.content_hash,
    embedding_model: row.embedding_model,
  };
}

/** Column values in the order of `COLUMNS` (without rowid). */
export function recordToValues(record: MemoryRecord): unknown[] {
  return [
    record.id,
    record.tenant,
    record.user_id,
    record.agent_id,
    record.session_id,
    record.layer,
    record.category,
    record.content,
    record.query,
    JSON.stringify(record.tags),
    JSON.stringify(record.metadata),
    record.confidence,
    record.importance,
    record.proof_count,
    JSON.stringify(record.source),
    Date.parse(record.occurred_at),
    Date.parse(record.created_at),
    Date.parse(record.updated_at),
    msOrNull(record.valid_until),
    record.status,
    record.superseded_by,
    JSON.stringify(record.history),
    record.access_count,
    msOrNull(record.last_accessed_at),
    record.decay_weight,
    record.content_hash,
    record.embedding_model,
  ];
}

export { MEMORY_COLUMNS as COLUMNS } from '../memory-columns.ts';
