import type { MemoryFilter } from '../../../memory/store-port.ts';
import { filterClauses } from '../sql-filter.ts';

/** Translates a `MemoryFilter` into a WHERE clause over `memories m`, with positional parameters. */
export function filterToSql(filter: MemoryFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return '?';
  };
  const where = filterClauses(filter, {
    text: bind,
    time: bind,
    oneOf: (column, values) => `m.${column} IN (${values.map(bind).join(', ')})`,
    anyTag: (tags) =>
      `EXISTS (SELECT 1 FROM memory_tags t WHERE t.memory_rowid = m.rowid AND t.tag IN (${tags.map(bind).join(', ')}))`,
    never: '0',
  });
  return { where, params };
}
