import { randomUUID } from 'node:crypto';
import { contentHash, type MemoryRecord } from '@hindsight/memory-model';

/** A complete memory record with sensible defaults, for store-level tests. */
export function makeRecord(overrides: Partial<MemoryRecord> & { content: string }): MemoryRecord {
  const at = overrides.created_at ?? new Date('2025-01-01T00:00:00.000Z').toISOString();
  return {
    id: randomUUID(),
    tenant: 't1',
    user_id: 'u1',
    agent_id: null,
    session_id: null,
    layer: 'semantic',
    category: 'fact',
    query: null,
    tags: [],
    metadata: {},
    confidence: 0.9,
    importance: null,
    proof_count: 1,
    source: { kind: 'api' },
    occurred_at: at,
    created_at: at,
    updated_at: at,
    valid_until: null,
    status: 'active',
    superseded_by: null,
    history: [],
    access_count: 0,
    last_accessed_at: null,
    decay_weight: 1,
    content_hash: contentHash(overrides.content),
    embedding_model: 'test-8',
    version: 1,
    ...overrides,
  };
}

/** A unit vector pointing mostly along `axis`, with a little of `next` to break ties. */
export function axisVector(axis: number, dimension = 8, lean = 0): Float32Array {
  const v = new Float32Array(dimension);
  v[axis % dimension] = 1;
  v[(axis + 1) % dimension] = lean;
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}
