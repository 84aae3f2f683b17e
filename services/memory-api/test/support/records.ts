import type { MemoryRecord } from '@hindsight/memory-model';
import { newMemoryRecord } from '../../src/memory/new-record.ts';

/**
 * A complete memory record for store-level tests: a fresh record as the write path makes it
 * (`newMemoryRecord`), learned on 2025-01-01 by tenant t1's user u1, with an empty history unless
 * given, then the test's overrides.
 */
export function makeRecord(overrides: Partial<MemoryRecord> & { content: string }): MemoryRecord {
  const at = overrides.created_at ?? new Date('2025-01-01T00:00:00.000Z').toISOString();
  const fresh = newMemoryRecord(
    {
      tenant: 't1',
      user_id: 'u1',
      layer: 'semantic',
      category: 'fact',
      content: overrides.content,
      confidence: 0.9,
      source: { kind: 'api' },
      embedding_model: 'test-8',
    },
    at,
  );
  return { ...fresh, history: [], ...overrides };
}

/** A unit vector pointing mostly along `axis`, with a little of `next` to break ties. */
export function axisVector(axis: number, dimension = 8, lean = 0): Float32Array {
  const v = new Float32Array(dimension);
  v[axis % dimension] = 1;
  v[(axis + 1) % dimension] = lean;
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}
