import type { MemoryFilter } from '../../memory/store-port.ts';

/**
 * How one SQL store binds what a filter compares against. Each call returns the SQL to put in the
 * clause and records the parameter, so parameters come in the order the clauses are written.
 */
export interface FilterDialect {
  text(value: string): string;
  /** A time given in epoch ms. */
  time(ms: number): string;
  /** `m.<column>` is one of `values` (never empty). */
  oneOf(column: string, values: readonly string[]): string;
  /** The memory carries at least one of `tags` (never empty). */
  anyTag(tags: readonly string[]): string;
  /** A condition that holds for no row. */
  never: string;
}

/**
 * A `MemoryFilter` as a WHERE clause over `memories m`, shared by the SQLite and PostgreSQL stores.
 * The tenant is always the first condition; an empty list matches nothing (never "no filter").
 */
export function filterClauses(filter: MemoryFilter, dialect: FilterDialect): string {
  const clauses = [`m.tenant = ${dialect.text(filter.tenant)}`];
  const equal = (column: string, value: string | undefined) => {
    if (value !== undefined) clauses.push(`m.${column} = ${dialect.text(value)}`);
  };
  const within = (column: string, values: readonly string[] | undefined) => {
    if (values !== undefined) clauses.push(values.length === 0 ? dialect.never : dialect.oneOf(column, values));
  };
  equal('user_id', filter.userId);
  equal('agent_id', filter.agentId);
  equal('session_id', filter.sessionId);
  within('layer', filter.layers);
  within('category', filter.categories);
  within('status', filter.statuses);
  within('id', filter.ids);
  within('superseded_by', filter.supersededBy);
  if (filter.tags !== undefined && filter.tags.length > 0) clauses.push(dialect.anyTag(filter.tags));
  if (filter.occurredFrom !== undefined) clauses.push(`m.occurred_at >= ${dialect.time(filter.occurredFrom)}`);
  if (filter.occurredTo !== undefined) clauses.push(`m.occurred_at <= ${dialect.time(filter.occurredTo)}`);
  if (filter.createdBefore !== undefined) clauses.push(`m.created_at < ${dialect.time(filter.createdBefore)}`);
  if (filter.validAt !== undefined) {
    clauses.push(`(m.valid_until IS NULL OR m.valid_until > ${dialect.time(filter.validAt)})`);
  }
  return clauses.join(' AND ');
}
