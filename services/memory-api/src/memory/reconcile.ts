import type { MemoryRecord } from '@hindsight/memory-model';
import type { MemoryUpdate } from './store-port.ts';
import type { WriteDeps } from './write.ts';

export type Reconciliation = { kind: 'new' } | { kind: 'merged'; id: string } | { kind: 'superseded'; ids: string[] };

/**
 * Near-duplicates in the semantic layer: a contradicting neighbour is superseded
 * (kept, marked, linked); a very close compatible one absorbs the new text (merge,
 * old text kept in history). Nothing is deleted.
 */
export async function reconcileSemantic(
  deps: WriteDeps,
  record: MemoryRecord,
  vector: Float32Array,
  updates: Map<string, MemoryUpdate>,
  at: string,
): Promise<Reconciliation> {
  const { settings } = deps;
  const neighbours = (
    await deps.store.vectorSearch(
      { tenant: record.tenant, userId: record.user_id, layers: ['semantic'], statuses: ['active'] },
      vector,
      5,
    )
  ).filter((n) => n.score >= settings.contradictionThreshold && !updates.has(n.id));
  if (neighbours.length === 0) return { kind: 'new' };
  const existing = new Map(
    (
      await deps.store.getMany(
        record.tenant,
        neighbours.map((n) => n.id),
      )
    ).map((r) => [r.id, r]),
  );

  const superseded: string[] = [];
  for (const neighbour of neighbours) {
    const old = existing.get(neighbour.id);
    if (!old) continue;
    if (await deps.judge.contradicts(old.content, record.content)) {
      const next = structuredClone(old);
      next.status = 'superseded';
      next.superseded_by = record.id;
      next.valid_until = record.occurred_at;
      next.updated_at = at;
      next.history.push({ at, action: 'superseded', content: old.content, note: `superseded by ${record.id}` });
      updates.set(next.id, { record: next });
      superseded.push(next.id);
    }
  }
  if (superseded.length > 0) {
    record.history.push({
      at,
      action: 'created',
      content: record.content,
      note: `supersedes ${superseded.join(', ')}`,
    });
    record.history.shift();
    return { kind: 'superseded', ids: superseded };
  }

  const best = neighbours[0];
  const target = best && best.score >= settings.mergeThreshold ? existing.get(best.id) : undefined;
  if (!target) return { kind: 'new' };
  const next = structuredClone(target);
  next.history.push({ at, action: 'merged', content: target.content, note: 'refined by a near-duplicate' });
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
