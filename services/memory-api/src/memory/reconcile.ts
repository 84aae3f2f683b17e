import { type MemoryRecord, searchableText } from '@hindsight/memory-model';
import { keywordTokens } from '@hindsight/text';
import { PROFILE_CATEGORY } from '../users/profile.ts';
import type { Relation, StatementInput } from './contradiction.ts';
import { hasContentWords } from './statements.ts';
import type { MemoryUpdate } from './store-port.ts';
import type { WriteDeps } from './write.ts';

export type Reconciliation = { kind: 'new' } | { kind: 'merged'; id: string } | { kind: 'superseded'; ids: string[] };

/** Neighbours looked at per source (by meaning and by words). */
const NEIGHBOURS = 6;

/** A memory as the contradiction judge reads it: text, the question it answers, the extractor's slot and answers. */
export function statementOf(record: Pick<MemoryRecord, 'content' | 'query' | 'metadata'>): StatementInput {
  const text = (field: string) => {
    const value = record.metadata[field];
    return typeof value === 'string' ? value : null;
  };
  return {
    content: record.content,
    query: record.query,
    key: text('key'),
    answer: text('answer'),
    replaces: text('replaces'),
  };
}

/**
 * A new semantic memory against what the user already has. Candidates are the nearest active
 * memories by meaning (cosine ≥ CONTRADICTION_THRESHOLD) and by words (BM25); the judge relates
 * each to the new one. A neighbour it contradicts is superseded (kept, marked, linked); else the
 * closest one it refines, if a near-duplicate (cosine ≥ MERGE_THRESHOLD), absorbs the new text
 * (merge, old text kept in history). Text without content words is never reconciled: it becomes
 * its own memory. Every merge and supersede records the judge's reason. Nothing is deleted.
 */
export async function reconcileSemantic(
  deps: WriteDeps,
  record: MemoryRecord,
  vector: Float32Array,
  updates: Map<string, MemoryUpdate>,
  at: string,
): Promise<Reconciliation> {
  if (!hasContentWords(record.content)) return { kind: 'new' };
  const { settings } = deps;
  const scope = {
    tenant: record.tenant,
    userId: record.user_id,
    layers: ['semantic'] as const,
    statuses: ['active'] as const,
  };
  const [dense, keyword] = await Promise.all([
    deps.store.vectorSearch(scope, vector, NEIGHBOURS),
    deps.store.keywordSearch(scope, keywordTokens(searchableText(record)), NEIGHBOURS),
  ]);
  const similarity = new Map(
    dense.filter((n) => n.score >= settings.contradictionThreshold).map((n) => [n.id, n.score]),
  );
  const wordsOnly = keyword.map((n) => n.id).filter((id) => !similarity.has(id));
  if (wordsOnly.length > 0) {
    for (const [id, score] of await deps.store.similarities(record.tenant, wordsOnly, vector))
      similarity.set(id, score);
  }
  const ids = [...new Set([...similarity.keys(), ...wordsOnly])].filter((id) => !updates.has(id));
  if (ids.length === 0) return { kind: 'new' };
  const neighbours = (await deps.store.getMany(record.tenant, ids))
    .filter((old) => old.category !== PROFILE_CATEGORY && old.status === 'active')
    .sort((a, b) => (similarity.get(b.id) ?? 0) - (similarity.get(a.id) ?? 0));
  const newer = statementOf(record);
  const relations = await Promise.all(neighbours.map((old) => deps.judge.relate(statementOf(old), newer)));

  const superseded: string[] = [];
  const reasons: string[] = [];
  neighbours.forEach((old, i) => {
    const relation = relations[i] as Relation;
    if (relation.kind !== 'contradicts') return;
    const next = structuredClone(old);
    next.status = 'superseded';
    next.superseded_by = record.id;
    next.valid_until = record.occurred_at;
    next.updated_at = at;
    next.history.push({
      at,
      action: 'superseded',
      content: old.content,
      note: `superseded by ${record.id}`,
      reason: relation.reason,
    });
    updates.set(next.id, { record: next });
    superseded.push(next.id);
    reasons.push(relation.reason);
  });
  if (superseded.length > 0) {
    record.history = [
      {
        at,
        action: 'created',
        content: record.content,
        note: `supersedes ${superseded.join(', ')}`,
        reason: [...new Set(reasons)].join(', '),
      },
    ];
    return { kind: 'superseded', ids: superseded };
  }

  const mergeable = neighbours.findIndex(
    (old, i) => relations[i]?.kind === 'refines' && (similarity.get(old.id) ?? 0) >= settings.mergeThreshold,
  );
  const target = neighbours[mergeable];
  if (!target) return { kind: 'new' };
  const next = structuredClone(target);
  next.history.push({
    at,
    action: 'merged',
    content: target.content,
    note: 'refined by a near-duplicate',
    reason: (relations[mergeable] as Relation).reason,
  });
  next.content = record.content;
  next.content_hash = record.content_hash;
  next.query = record.query ?? target.query;
  next.tags = [...new Set([...target.tags, ...record.tags])].slice(0, 20);
  next.metadata = { ...target.metadata, ...record.metadata };
  next.proof_count += 1;
  next.confidence = Math.min(1, Math.max(target.confidence, record.confidence));
  next.updated_at = at;
  updates.set(next.id, { record: next, vector });
  return { kind: 'merged', id: next.id };
}
