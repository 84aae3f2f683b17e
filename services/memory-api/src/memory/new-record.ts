import { randomUUID } from 'node:crypto';
import { contentHash, type MemoryRecord } from '@hindsight/memory-model';

/** What a new memory must be given; everything else starts at the defaults of a fresh record. */
export type NewRecordFields = Pick<
  MemoryRecord,
  'tenant' | 'user_id' | 'layer' | 'category' | 'content' | 'confidence' | 'source' | 'embedding_model'
> &
  Partial<
    Pick<
      MemoryRecord,
      | 'agent_id'
      | 'session_id'
      | 'query'
      | 'tags'
      | 'metadata'
      | 'importance'
      | 'occurred_at'
      | 'valid_until'
      | 'status'
      | 'content_hash'
    >
  >;

/**
 * A UUID of version 7 (RFC 9562): the first 48 bits are the time in milliseconds, the rest random
 * as in version 4. Ids made one after another sort in that order, so a store's id index grows at
 * its end instead of at a random leaf per new memory (each batch had dirtied ~100 of its pages).
 */
export function timeOrderedId(now = Date.now()): string {
  const time = now.toString(16).padStart(12, '0');
  // randomUUID's "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx": its time fields replaced, version 4 → 7.
  return `${time.slice(0, 8)}-${time.slice(8)}-7${randomUUID().slice(15)}`;
}

/** A memory as it is first learned at `at`: never confirmed twice, accessed, decayed or superseded yet. */
export function newMemoryRecord(fields: NewRecordFields, at: string): MemoryRecord {
  const status = fields.status ?? 'active';
  return {
    id: timeOrderedId(),
    agent_id: null,
    session_id: null,
    query: null,
    tags: [],
    metadata: {},
    importance: null,
    occurred_at: at,
    valid_until: null,
    content_hash: contentHash(fields.content),
    ...fields,
    status,
    proof_count: 1,
    created_at: at,
    updated_at: at,
    superseded_by: null,
    history: [{ at, action: status === 'quarantined' ? 'quarantined' : 'created', content: fields.content }],
    access_count: 0,
    last_accessed_at: null,
    decay_weight: 1,
    version: 1,
  };
}
