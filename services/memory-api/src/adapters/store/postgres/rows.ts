import type { MemoryRecord } from '@hindsight/memory-model';
import { MEMORY_COLUMNS as COLUMNS, type MemoryColumn } from '../memory-columns.ts';

export { COLUMNS };

/** The SQL type of each column's parameter (JSON travels as text and is cast, so it is kept verbatim). */
const CASTS: Partial<Record<MemoryColumn, string>> = {
  tags: 'text[]',
  metadata: 'json',
  source: 'json',
  history: 'json',
  occurred_at: 'timestamptz',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  valid_until: 'timestamptz',
  last_accessed_at: 'timestamptz',
};

/** `$n::type` for column `i` of a row whose first parameter is `$offset + 1`. */
export function placeholder(offset: number, i: number): string {
  const cast = CASTS[COLUMNS[i] as MemoryColumn];
  return cast ? `$${offset + i + 1}::${cast}` : `$${offset + i + 1}`;
}

/** A `memories` row as node-postgres returns it: times as Date, JSON parsed, tags as an array. */
export interface MemoryRow {
  seq: string;
  id: string;
  tenant: string;
  user_id: string;
  agent_id: string | null;
  session_id: string | null;
  layer: string;
  category: string;
  content: string;
  query: string | null;
  tags: string[];
  metadata: MemoryRecord['metadata'];
  confidence: number;
  importance: number | null;
  proof_count: number;
  source: MemoryRecord['source'];
  occurred_at: Date;
  created_at: Date;
  updated_at: Date;
  valid_until: Date | null;
  status: string;
  superseded_by: string | null;
  history: MemoryRecord['history'];
  access_count: number;
  last_accessed_at: Date | null;
  decay_weight: number;
  content_hash: string;
  embedding_model: string;
}

/** The record columns to select (never the vector or the keyword terms). */
export const RECORD_COLUMNS = ['seq', ...COLUMNS].map((c) => `m.${c}`).join(', ');

const isoOrNull = (at: Date | null) => (at === null ? null : at.toISOString());

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
    tags: row.tags,
    metadata: row.metadata,
    confidence: row.confidence,
    importance: row.importance,
    proof_count: row.proof_count,
    source: row.source,
    occurred_at: row.occurred_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    valid_until: isoOrNull(row.valid_until),
    status: row.status as MemoryRecord['status'],
    superseded_by: row.superseded_by,
    history: row.history,
    access_count: row.access_count,
    last_accessed_at: isoOrNull(row.last_accessed_at),
    decay_weight: row.decay_weight,
    content_hash: row.content_hash,
    embedding_model: row.embedding_model,
  };
}

/** Column values in the order of `COLUMNS`; JSON fields as text, times as ISO strings. */
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
    record.tags,
    JSON.stringify(record.metadata),
    record.confidence,
    record.importance,
    record.proof_count,
    JSON.stringify(record.source),
    record.occurred_at,
    record.created_at,
    record.updated_at,
    record.valid_until,
    record.status,
    record.superseded_by,
    JSON.stringify(record.history),
    record.access_count,
    record.last_accessed_at,
    record.decay_weight,
    record.content_hash,
    record.embedding_model,
  ];
}
