import type { MemoryRecord } from '@hindsight/memory-model';
import {
  type ColumnCodec,
  rowToRecord as columnsToRecord,
  recordToValues as recordToColumns,
} from '../memory-columns.ts';

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
  version: number;
}

const SQLITE_COLUMNS: ColumnCodec = {
  time: { encode: (iso) => Date.parse(iso), decode: (ms: number) => new Date(ms).toISOString() },
  json: { encode: (value) => JSON.stringify(value), decode: (text: string) => JSON.parse(text) },
  tags: { encode: (tags) => JSON.stringify(tags), decode: (text: string) => JSON.parse(text) },
};

export function rowToRecord(row: MemoryRow): MemoryRecord {
  return columnsToRecord(row, SQLITE_COLUMNS);
}

/** Column values in the order of `COLUMNS` (without rowid). */
export function recordToValues(record: MemoryRecord): unknown[] {
  return recordToColumns(record, SQLITE_COLUMNS);
}

export { MEMORY_COLUMNS as COLUMNS } from '../memory-columns.ts';
