import type { MemoryFilter } from '../../../memory/store-port.ts';

/** Translates a `MemoryFilter` into a WHERE clause over `memories m`, with positional parameters. */
export function filterToSql(filter: MemoryFilter): { where: string; params: unknown[] } {
  const clauses = ['m.tenant = ?'];
  const params: unknown[] = [filter.tenant];
  const equal = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    clauses.push(`m.${column} = ?`);
    params.push(value);
  };
  const within = (column: string, values: readonly string[] | undefined) => {
    if (values === undefined) return;
    if (values.length === 0) {
      clauses.push('0');
      return;
    }
    clauses.push(`m.${column} IN (${values.map(() => '?').join(', ')})`);
    params.push(...values);
  };
  equal('user_id', filter.userId);
  equal('agent_id', filter.agentId);
  equal('session_id', filter.sessionId);
  within('layer', filter.layers);
  within('category', filter.categories);
  within('status', filter.statuses);
  within('id', filter.ids);
  if (filter.tags !== undefined && filter.tags.length > 0) {
    clauses.push(
      `EXISTS (SELECT 1 FROM memory_tags t WHERE t.memory_rowid = m.rowid AND t.tag IN (${filter.tags.map(() => '?').join(', ')}))`,
    );
    params.push(...filter.tags);
  }
  if (filter.occurredFrom !== undefined) {
    clauses.push('m.occurred_at >= ?');
    params.push(filter.occurredFrom);
  }
  if (filter.occurredTo !== undefined) {
    clauses.push('m.occurred_at <= ?');
    params.push(filter.occurredTo);
  }
  if (filter.createdBefore !== undefined) {
    clauses.push('m.created_at < ?');
    params.push(filter.createdBefore);
  }
  if (filter.validAt !== undefined) {
    clauses.push('(m.valid_until IS NULL OR m.valid_until > ?)');
    params.push(filter.validAt);
  }
  return { where: clauses.join(' AND '), params };
}
