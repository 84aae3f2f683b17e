import type { MemoryRecord } from '@hindsight/memory-model';
import {
  type ColumnCodec,
  columnKind,
  MEMORY_COLUMNS,
  type MemoryColumn,
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

/**
 * Access statistics live in two places (schema 13): the record's columns in `memories`, as its
 * last commit wrote them, and `memory_access`, the narrow table `recordAccess` writes (a row of a few
 * integers; updating a wide `memories` row instead rewrote its 16 KiB page into the WAL per access).
 * A `memory_access` row holds the count including the record's own at its last access, so the
 * record's statistics are the larger of the two.
 */
const SELECT_EXPRESSIONS: Partial<Record<MemoryColumn, string>> = {
  access_count: 'max(m.access_count, coalesce(a.access_count, 0))',
  last_accessed_at: 'nullif(max(coalesce(m.last_accessed_at, -1), coalesce(a.last_accessed_at, -1)), -1)',
};
/** What a select list of `columnsReader` reads from: `memories m` and its access statistics `a`. */
export const RECORD_FROM = 'memories m LEFT JOIN memory_access a ON a.rowid = m.rowid';

/**
 * Some of the record's columns as a select list (from `RECORD_FROM`), and the record of a raw row of it (values by
 * position; values after the columns are ignored): a statement in raw mode skips building an object
 * keyed by every column name for each row and finding each column's decoder again (a search reads
 * ~70 rows: ~0.95 → ~0.58 ms).
 */
export function columnsReader<C extends MemoryColumn>(
  columns: readonly C[],
): { select: string; fromValues: (values: readonly unknown[]) => Pick<MemoryRecord, C> } {
  const decoders = columns.map((column) => {
    const kind = columnKind(column);
    return kind === 'value' ? undefined : (SQLITE_COLUMNS[kind].decode as (stored: never) => unknown);
  });
  return {
    select: columns.map((column) => SELECT_EXPRESSIONS[column] ?? `m.${column}`).join(', '),
    fromValues: (values) => {
      const record: Record<string, unknown> = {};
      for (let i = 0; i < columns.length; i++) {
        const stored = values[i];
        const decode = decoders[i];
        record[columns[i] as string] = stored === null || decode === undefined ? stored : decode(stored as never);
      }
      return record as Pick<MemoryRecord, C>;
    },
  };
}

const wholeRecord = columnsReader(MEMORY_COLUMNS);
/** Every column of the record as a select list, in `COLUMNS` order. */
export const RECORD_SELECT = wholeRecord.select;
/** The record of a raw row of `RECORD_SELECT` (values after the record's are ignored). */
export const recordFromValues = wholeRecord.fromValues as (values: readonly unknown[]) => MemoryRecord;

/** Column values in the order of `COLUMNS` (without rowid). */
export function recordToValues(record: MemoryRecord): unknown[] {
  return recordToColumns(record, SQLITE_COLUMNS);
}

export { MEMORY_COLUMNS as COLUMNS } from '../memory-columns.ts';
