import type { MemoryFilter } from '../../../memory/store-port.ts';
import { filterClauses } from '../sql-filter.ts';

/** A `MemoryFilter` as a WHERE clause over `memories m`, whose parameters start at `$1 + offset`. */
export function filterToSql(filter: MemoryFilter, offset = 0): { where: string; params: unknown[] } {
  const params: unknown[] = [];
  const bind = (value: unknown, cast: string) => {
    params.push(value);
    return `$${offset + params.length}::${cast}`;
  };
  const where = filterClauses(filter, {
    text: (value) => bind(value, 'text'),
    time: (ms) => bind(new Date(ms).toISOString(), 'timestamptz'),
    oneOf: (column, values) => `m.${column} = ANY(${bind(values, 'text[]')})`,
    anyTag: (tags) => `m.tags && ${bind(tags, 'text[]')}`,
    never: 'false',
  });
  return { where, params };
}
