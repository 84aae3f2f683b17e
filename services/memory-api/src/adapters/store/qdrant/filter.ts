import type { Schemas } from '@qdrant/js-client-rest';
import type { MemoryFilter } from '../../../memory/store-port.ts';
import { pointIdOf } from './points.ts';

export type QdrantFilter = Schemas['Filter'];
export type QdrantCondition = Schemas['Condition'];

/**
 * A filter no point can match (an empty `IN` list in the port's terms). Callers
 * answer empty without asking Qdrant, whose `match.any: []` semantics are not
 * something to rely on.
 */
export const MATCHES_NOTHING = Symbol('matches nothing');

const keyword = (key: string, value: string): QdrantCondition => ({ key, match: { value } });
const anyOf = (key: string, values: readonly string[]): QdrantCondition => ({ key, match: { any: [...values] } });

/**
 * Translates a `MemoryFilter` into a Qdrant filter over the payload written by
 * points.ts. The tenant condition is always present: it is the hard isolation
 * boundary and the key of the tenant payload index.
 */
export function buildFilter(filter: MemoryFilter): QdrantFilter | typeof MATCHES_NOTHING {
  const must: QdrantCondition[] = [keyword('tenant', filter.tenant)];
  const lists: Array<[string, readonly string[] | undefined]> = [
    ['layer', filter.layers],
    ['category', filter.categories],
    ['status', filter.statuses],
    ['superseded_by', filter.supersededBy],
  ];
  if (filter.userId !== undefined) must.push(keyword('user_id', filter.userId));
  if (filter.agentId !== undefined) must.push(keyword('agent_id', filter.agentId));
  if (filter.sessionId !== undefined) must.push(keyword('session_id', filter.sessionId));
  for (const [key, values] of lists) {
    if (values === undefined) continue;
    if (values.length === 0) return MATCHES_NOTHING;
    must.push(anyOf(key, values));
  }
  if (filter.ids !== undefined) {
    if (filter.ids.length === 0) return MATCHES_NOTHING;
    must.push({ has_id: filter.ids.map((id) => pointIdOf(filter.tenant, id)) });
  }
  // An empty tag list means "no tag constraint", as in the embedded store.
  if (filter.tags !== undefined && filter.tags.length > 0) must.push(anyOf('tags', filter.tags));
  if (filter.occurredFrom !== undefined || filter.occurredTo !== undefined) {
    must.push({
      key: 'occurred_at',
      range: {
        ...(filter.occurredFrom !== undefined ? { gte: filter.occurredFrom } : {}),
        ...(filter.occurredTo !== undefined ? { lte: filter.occurredTo } : {}),
      },
    });
  }
  if (filter.createdBefore !== undefined) must.push({ key: 'created_at', range: { lt: filter.createdBefore } });
  if (filter.validAt !== undefined) {
    must.push({
      should: [{ is_empty: { key: 'valid_until' } }, { key: 'valid_until', range: { gt: filter.validAt } }],
    });
  }
  return { must };
}

/** The active memories that would clash with an insert: same tenant, user, layer and content hash. */
export function activeHashFilter(tenant: string, userIds: readonly string[], hashes: readonly string[]): QdrantFilter {
  return {
    must: [
      keyword('tenant', tenant),
      anyOf('user_id', userIds),
      anyOf('content_hash', hashes),
      keyword('status', 'active'),
    ],
  };
}
