import type { MemoryRecord } from '@hindsight/memory-model';

/** The memory record's fields as the SQL stores name their columns, in one agreed order. */
export const MEMORY_COLUMNS = [
  'id',
  'tenant',
  'user_id',
  'agent_id',
  'session_id',
  'layer',
  'category',
  'content',
  'query',
  'tags',
  'metadata',
  'confidence',
  'importance',
  'proof_count',
  'source',
  'occurred_at',
  'created_at',
  'updated_at',
  'valid_until',
  'status',
  'superseded_by',
  'history',
  'access_count',
  'last_accessed_at',
  'decay_weight',
  'content_hash',
  'embedding_model',
  'version',
] as const;

export type MemoryColumn = (typeof MEMORY_COLUMNS)[number];

/** How a column's value differs from the record's: a time (ISO in the record), JSON, the tag list, or as is. */
export type ColumnKind = 'value' | 'time' | 'json' | 'tags';

const KINDS: Partial<Record<MemoryColumn, ColumnKind>> = {
  tags: 'tags',
  metadata: 'json',
  source: 'json',
  history: 'json',
  occurred_at: 'time',
  created_at: 'time',
  updated_at: 'time',
  valid_until: 'time',
  last_accessed_at: 'time',
};

export function columnKind(column: MemoryColumn): ColumnKind {
  return KINDS[column] ?? 'value';
}

/** How one store represents times, JSON and tags in its columns, both ways. */
export interface ColumnCodec {
  time: { encode(iso: string): unknown; decode(stored: never): string };
  json: { encode(value: unknown): unknown; decode(stored: never): unknown };
  tags: { encode(tags: string[]): unknown; decode(stored: never): string[] };
}

/** Column values in the order of `MEMORY_COLUMNS`; a null stays null. */
export function recordToValues(record: MemoryRecord, codec: ColumnCodec): unknown[] {
  return MEMORY_COLUMNS.map((column) => {
    const value = record[column];
    const kind = columnKind(column);
    if (value === null || kind === 'value') return value;
    return (codec[kind].encode as (v: unknown) => unknown)(value);
  });
}

/** The record a row of these columns holds. */
export function rowToRecord(row: Readonly<Record<MemoryColumn, unknown>>, codec: ColumnCodec): MemoryRecord {
  const record: Record<string, unknown> = {};
  for (const column of MEMORY_COLUMNS) {
    const stored = row[column];
    const kind = columnKind(column);
    record[column] =
      stored === null || kind === 'value' ? stored : (codec[kind].decode as (v: unknown) => unknown)(stored);
  }
  return record as MemoryRecord;
}
