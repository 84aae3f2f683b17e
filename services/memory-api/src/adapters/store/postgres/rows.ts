import type { MemoryRecord } from '@hindsight/memory-model';
import {
  MEMORY_COLUMNS as COLUMNS,
  type ColumnCodec,
  type ColumnKind,
  columnKind,
  rowToRecord as columnsToRecord,
  type MemoryColumn,
  recordToValues as recordToColumns,
} from '../memory-columns.ts';

export { COLUMNS };

/** The SQL type of each kind of column's parameter (JSON travels as text and is cast, so it is kept verbatim). */
const CASTS: Partial<Record<ColumnKind, string>> = { tags: 'text[]', json: 'json', time: 'timestamptz' };

/** `$n::type` for column `i` of a row whose first parameter is `$offset + 1`. */
export function placeholder(offset: number, i: number): string {
  const cast = CASTS[columnKind(COLUMNS[i] as MemoryColumn)];
  return cast ? `$${offset + i + 1}::${cast}` : `$${offset + i + 1}`;
}

/**
 * A `memories` row as node-postgres returns it (times as Date, JSON parsed, tags as an array),
 * decoded by `rowToRecord`; the fields read directly are typed.
 */
export type MemoryRow = Readonly<Record<MemoryColumn, unknown>> & {
  seq: string;
  tenant: string;
  user_id: string;
  query: string | null;
  content: string;
};

/** The record columns to select (never the vector or the keyword terms). */
export const RECORD_COLUMNS = ['seq', ...COLUMNS].map((c) => `m.${c}`).join(', ');

/** node-postgres hands back timestamptz as Date, json parsed, text[] as an array. */
const POSTGRES_COLUMNS: ColumnCodec = {
  time: { encode: (iso) => iso, decode: (at: Date) => at.toISOString() },
  json: { encode: (value) => JSON.stringify(value), decode: (value: unknown) => value },
  tags: { encode: (tags) => tags, decode: (tags: string[]) => tags },
};

export function rowToRecord(row: MemoryRow): MemoryRecord {
  return columnsToRecord(row, POSTGRES_COLUMNS);
}

/** Column values in the order of `COLUMNS`; JSON as text, times as ISO strings. */
export function recordToValues(record: MemoryRecord): unknown[] {
  return recordToColumns(record, POSTGRES_COLUMNS);
}
