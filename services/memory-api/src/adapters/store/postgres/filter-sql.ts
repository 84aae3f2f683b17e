import type { MemoryFilter } from '../../../memory/store-port.ts';

/** A WHERE clause over `memories m` and its parameters, which start at `$1 + offset`. */
export interface SqlCondition {
  where: string;
  params: unknown[];
}

/**
 * Translates a `MemoryFilter` into a WHERE clause over `memories m`. The tenant is always the first
 * condition; an empty list matches nothing (never "no filter").
 */
export function filterToSql(filter: MemoryFilter, offset = 0): SqlCondition {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown, cast = '') => {
    params.push(value);
    return `$${offset + params.length}${cast}`;
  };
  clauses.push(`m.tenant = ${param(filter.tenant)}`);
  const equal = (column: string, value: string | undefined) => {
    if (value !== undefined) clauses.push(`m.${column} = ${param(value)}`);
  };
  const within = (column: string, values: readonly string[] | undefined) => {
    if (values === undefined) return;
    clauses.push(values.length === 0 ? 'false' : `m.${column} = ANY(${param(values, '::text[]')})`);
  };
  equal('user_id', filter.userId);
  equal('agent_id', filter.agentId);
  equal('session_id', filter.sessionId);
  within('layer', filter.layers);
  within('category', filter.categories);
  within('status', filter.statuses);
  within('id', filter.ids);
  if (filter.tags !== undefined && filter.tags.length > 0) clauses.push(`m.tags && ${param(filter.tags, '::text[]')}`);
  const at = (ms: number) => param(new Date(ms).toISOString(), '::timestamptz');
  if (filter.occurredFrom !== undefined) clauses.push(`m.occurred_at >= ${at(filter.occurredFrom)}`);
  if (filter.occurredTo !== undefined) clauses.push(`m.occurred_at <= ${at(filter.occurredTo)}`);
  if (filter.createdBefore !== undefined) clauses.push(`m.created_at < ${at(filter.createdBefore)}`);
  if (filter.validAt !== undefined) clauses.push(`(m.valid_until IS NULL OR m.valid_until > ${at(filter.validAt)})`);
  return { where: clauses.join(' AND '), params };
}
