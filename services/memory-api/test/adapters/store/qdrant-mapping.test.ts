import { keywordTokens } from '@hindsight/text';
import { describe, expect, it } from 'vitest';
import { activeHashFilter, buildFilter, MATCHES_NOTHING } from '../../../src/adapters/store/qdrant/filter.ts';
import { decodeCursor, encodeCursor } from '../../../src/adapters/store/qdrant/paging.ts';
import {
  collectionNameFor,
  DENSE_VECTOR,
  KEYWORD_VECTOR,
  payloadToRecord,
  pointIdOf,
  recordToPayload,
  toPoint,
} from '../../../src/adapters/store/qdrant/points.ts';
import { denseQuery, hybridQuery, keywordQuery } from '../../../src/adapters/store/qdrant/queries.ts';
import { isTransient } from '../../../src/adapters/store/qdrant/retry.ts';
import { documentSparseVector, querySparseVector, termIndex } from '../../../src/adapters/store/qdrant/sparse.ts';
import { axisVector, makeRecord } from '../../support/records.ts';

/** The pure parts of the Qdrant adapter, checked without a server. */
describe('Qdrant filter building', () => {
  it('always confines to the tenant, even with no other field', () => {
    expect(buildFilter({ tenant: 't1' })).toEqual({ must: [{ key: 'tenant', match: { value: 't1' } }] });
  });

  it('maps every MemoryFilter field to the payload written by the adapter', () => {
    const filter = buildFilter({
      tenant: 't1',
      userId: 'u1',
      agentId: 'a1',
      sessionId: 's1',
      layers: ['semantic', 'episodic'],
      categories: ['preference'],
      tags: ['x', 'y'],
      statuses: ['active'],
      occurredFrom: 100,
      occurredTo: 200,
      createdBefore: 300,
      validAt: 400,
      ids: ['m1'],
    });
    expect(filter).toEqual({
      must: [
        { key: 'tenant', match: { value: 't1' } },
        { key: 'user_id', match: { value: 'u1' } },
        { key: 'agent_id', match: { value: 'a1' } },
        { key: 'session_id', match: { value: 's1' } },
        { key: 'layer', match: { any: ['semantic', 'episodic'] } },
        { key: 'category', match: { any: ['preference'] } },
        { key: 'status', match: { any: ['active'] } },
        { has_id: [pointIdOf('t1', 'm1')] },
        { key: 'tags', match: { any: ['x', 'y'] } },
        { key: 'occurred_at', range: { gte: 100, lte: 200 } },
        { key: 'created_at', range: { lt: 300 } },
        { should: [{ is_empty: { key: 'valid_until' } }, { key: 'valid_until', range: { gt: 400 } }] },
      ],
    });
  });

  it('gives an open-ended time window only the bound it has', () => {
    expect(buildFilter({ tenant: 't1', occurredTo: 5 })).toEqual({
      must: [
        { key: 'tenant', match: { value: 't1' } },
        { key: 'occurred_at', range: { lte: 5 } },
      ],
    });
  });

  it('answers "matches nothing" for an empty list of layers, categories, statuses or ids', () => {
    expect(buildFilter({ tenant: 't1', layers: [] })).toBe(MATCHES_NOTHING);
    expect(buildFilter({ tenant: 't1', categories: [] })).toBe(MATCHES_NOTHING);
    expect(buildFilter({ tenant: 't1', statuses: [] })).toBe(MATCHES_NOTHING);
    expect(buildFilter({ tenant: 't1', ids: [] })).toBe(MATCHES_NOTHING);
  });

  it('treats an empty tag list as no tag constraint, like the embedded store', () => {
    expect(buildFilter({ tenant: 't1', tags: [] })).toEqual(buildFilter({ tenant: 't1' }));
  });

  it('looks for active duplicates by tenant, users and content hashes', () => {
    expect(activeHashFilter('t1', ['u1'], ['h1', 'h2'])).toEqual({
      must: [
        { key: 'tenant', match: { value: 't1' } },
        { key: 'user_id', match: { any: ['u1'] } },
        { key: 'content_hash', match: { any: ['h1', 'h2'] } },
        { key: 'status', match: { value: 'active' } },
      ],
    });
  });
});

describe('Qdrant query building', () => {
  const filter = { must: [{ key: 'tenant', match: { value: 't1' } }] };

  it('queries the dense vector by cosine with the filter inside the search', () => {
    expect(denseQuery(new Float32Array([0.5, 0.25]), filter, 7)).toEqual({
      query: [0.5, 0.25],
      using: DENSE_VECTOR,
      filter,
      limit: 7,
      with_payload: ['id'],
    });
  });

  it('queries the sparse keyword vector with each query term once', () => {
    const terms = querySparseVector(['peanut', 'peanut', 'allergi']);
    expect(terms.values).toEqual([1, 1]);
    expect(keywordQuery(terms, filter, 3)).toEqual({
      query: { indices: terms.indices, values: [1, 1] },
      using: KEYWORD_VECTOR,
      filter,
      limit: 3,
      with_payload: ['id'],
    });
  });

  it('fuses both sources with RRF, each prefetch filtered and deeper than the final limit', () => {
    const terms = querySparseVector(keywordTokens('peanut allergy'));
    const request = hybridQuery([1, 0], terms, filter, 5, 60);
    expect(request.query).toEqual({ rrf: { k: 60 } });
    expect(request.limit).toBe(5);
    expect(request.prefetch).toEqual([
      { query: [1, 0], using: DENSE_VECTOR, filter, limit: 20 },
      { query: { indices: terms.indices, values: terms.values }, using: KEYWORD_VECTOR, filter, limit: 20 },
    ]);
  });

  it('leaves the keyword prefetch out when the query has no terms', () => {
    expect(hybridQuery([1, 0], querySparseVector([]), filter, 5, 60).prefetch).toHaveLength(1);
  });
});

describe('Qdrant sparse keyword vectors', () => {
  it('hashes a term to the same 32-bit index every time', () => {
    expect(termIndex('peanut')).toBe(termIndex('peanut'));
    expect(termIndex('peanut')).not.toBe(termIndex('butter'));
    expect(termIndex('用户')).toBeGreaterThanOrEqual(0);
    expect(termIndex('用户')).toBeLessThan(2 ** 32);
  });

  it('weighs repeated terms higher with BM25 saturation, indices unique and ascending', () => {
    const vector = documentSparseVector('peanut allergy: avoid peanut butter');
    expect(new Set(vector.indices).size).toBe(vector.indices.length);
    expect([...vector.indices].sort((a, b) => a - b)).toEqual(vector.indices);
    const weight = (term: string) => vector.values[vector.indices.indexOf(termIndex(term))] ?? 0;
    expect(weight('peanut')).toBeGreaterThan(weight('butter'));
    // Saturation: twice the occurrences is less than twice the weight.
    expect(weight('peanut')).toBeLessThan(2 * weight('butter'));
  });

  it('indexes the same terms as the embedded store (keywordTokens), stop words left out', () => {
    const vector = documentSparseVector('the user likes green tea');
    expect(vector.indices).toEqual(querySparseVector(keywordTokens('the user likes green tea')).indices);
    expect(vector.indices).not.toContain(termIndex('the'));
  });
});

describe('Qdrant point mapping', () => {
  it('round-trips a record through the payload verbatim', () => {
    const record = makeRecord({
      content: 'likes green tea',
      query: 'what does the user drink?',
      tags: ['drinks'],
      metadata: { nested: { a: [1, 'two', null] }, unicode: '你好', float: 0.1 },
      history: [{ at: '2025-01-01T00:00:00.000Z', action: 'created', content: 'likes green tea' }],
      valid_until: '2026-01-01T00:00:00.000Z',
      last_accessed_at: '2025-02-01T00:00:00.000Z',
    });
    expect(payloadToRecord(JSON.parse(JSON.stringify(recordToPayload(record))))).toEqual(record);
  });

  it('stores filterable times as epoch ms integers and a missing valid_until as null', () => {
    const payload = recordToPayload(makeRecord({ content: 'x', occurred_at: '2024-03-15T10:00:00.000Z' }));
    expect(payload.occurred_at).toBe(Date.parse('2024-03-15T10:00:00.000Z'));
    expect(Number.isInteger(payload.created_at)).toBe(true);
    expect(payload.valid_until).toBeNull();
  });

  it('builds a point with the dense vector, the keyword vector of query + content, and the payload', () => {
    const record = makeRecord({ content: 'peanut allergy', query: 'what is the user allergic to?' });
    const point = toPoint(record, axisVector(0));
    expect(point.id).toBe(pointIdOf('t1', record.id));
    expect(point.vector[DENSE_VECTOR]).toHaveLength(8);
    expect(point.vector[KEYWORD_VECTOR]?.indices).toContain(termIndex('peanut'));
    expect(point.vector[KEYWORD_VECTOR]?.indices).toContain(termIndex(keywordTokens('allergic')[0] ?? ''));
    expect(point.payload.id).toBe(record.id);
  });

  it('leaves the keyword vector out of a point whose text has no terms', () => {
    expect(toPoint(makeRecord({ content: 'the and of' }), axisVector(0)).vector[KEYWORD_VECTOR]).toBeUndefined();
  });

  it('derives a UUID point id per (tenant, memory id), so tenants never share a point', () => {
    const id = pointIdOf('t1', 'm1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(pointIdOf('t1', 'm1')).toBe(id);
    expect(pointIdOf('t2', 'm1')).not.toBe(id);
  });

  it('names one collection per embedding model and dimension', () => {
    expect(collectionNameFor('hindsight', { model: 'builtin-v3', dimension: 384 })).toBe('hindsight_builtin-v3_384');
    expect(collectionNameFor('hs', { model: 'BAAI/bge-small-en-v1.5', dimension: 384 })).toBe(
      'hs_baai-bge-small-en-v1-5_384',
    );
    expect(collectionNameFor('hs', { model: 'm', dimension: 768 })).not.toBe(
      collectionNameFor('hs', { model: 'm', dimension: 384 }),
    );
  });
});

describe('Qdrant adapter helpers', () => {
  it('accepts only cursors it issued', () => {
    const id = pointIdOf('t1', 'm1');
    expect(decodeCursor(encodeCursor(id))).toBe(id);
    expect(() => decodeCursor('bm90LWEtY3Vyc29y')).toThrow(/cursor/);
  });

  it('retries only failures that may pass: unreachable, 429, 5xx', () => {
    const withStatus = (status: number) => Object.assign(new Error('x'), { status });
    expect(isTransient(new TypeError('fetch failed'))).toBe(true);
    expect(isTransient(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isTransient(withStatus(503))).toBe(true);
    expect(isTransient(withStatus(429))).toBe(true);
    expect(isTransient(withStatus(400))).toBe(false);
    expect(isTransient(withStatus(404))).toBe(false);
    expect(isTransient(new Error('bad filter'))).toBe(false);
  });
});
