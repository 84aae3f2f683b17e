import type { MemoryRecord } from '@hindsight/memory-model';

/**
 * What a merge or a supersede does to the memories involved, as pure functions: each takes the
 * records as they are and returns changed copies, its reason in the history entry. Deciding which
 * of them applies is `reconcileSemantic`'s job; committing them is the store's.
 */

/** The memory that says the newer thing about the same subject and attribute, with why. */
export interface Successor {
  id: string;
  occurred_at: string;
  reason: string;
}

/** Which of two statements came later in conversation time (ties go to the one learned later). */
export function saidLater(a: Pick<MemoryRecord, 'occurred_at'>, b: Pick<MemoryRecord, 'occurred_at'>): boolean {
  return Date.parse(a.occurred_at) > Date.parse(b.occurred_at);
}

/** `old` replaced by a newer statement: no longer active, valid until the newer one was said, linked to it. */
export function supersede(old: MemoryRecord, by: Successor, at: string): MemoryRecord {
  const next = structuredClone(old);
  next.status = 'superseded';
  next.superseded_by = by.id;
  next.valid_until = by.occurred_at;
  next.updated_at = at;
  next.history.push({
    at,
    action: 'superseded',
    content: old.content,
    note: `superseded by ${by.id}`,
    reason: by.reason,
  });
  return next;
}

/** A new memory that replaces `ids`: its creation says which and why. */
export function superseding(record: MemoryRecord, ids: readonly string[], reasons: readonly string[], at: string) {
  const next = structuredClone(record);
  next.history = [
    {
      at,
      action: 'created',
      content: record.content,
      note: `supersedes ${ids.join(', ')}`,
      reason: [...new Set(reasons)].join(', '),
    },
  ];
  return next;
}

/**
 * A new memory that says what was true before something the user already has: a note taken from
 * an earlier turn, written after the correction that followed it. It is kept as history — stored
 * superseded by the newer memory, valid until that was said — and never replaces it.
 */
export function supersededOnArrival(record: MemoryRecord, by: Successor, at: string): MemoryRecord {
  const next = structuredClone(record);
  next.status = 'superseded';
  next.superseded_by = by.id;
  next.valid_until = by.occurred_at;
  next.history = [
    {
      at,
      action: 'created',
      content: record.content,
      note: `superseded on arrival by ${by.id}: said at ${record.occurred_at}, before it (${by.occurred_at})`,
      reason: `${by.reason}:older`,
    },
  ];
  return next;
}

/**
 * `target` absorbs a near-duplicate that restates or refines it: one more proof, tags and metadata
 * joined, the higher confidence. The text said later in conversation time is the content; the other
 * one is kept in the history entry.
 */
export function mergeInto(target: MemoryRecord, refinement: MemoryRecord, reason: string, at: string): MemoryRecord {
  const next = structuredClone(target);
  const refinementIsLater = !saidLater(target, refinement);
  next.history.push(
    refinementIsLater
      ? { at, action: 'merged', content: target.content, note: 'refined by a near-duplicate', reason }
      : {
          at,
          action: 'merged',
          content: refinement.content,
          note: `an earlier statement (${refinement.occurred_at}) of what it says; content kept`,
          reason,
        },
  );
  if (refinementIsLater) {
    next.content = refinement.content;
    next.content_hash = refinement.content_hash;
    next.query = refinement.query ?? target.query;
    next.metadata = { ...target.metadata, ...refinement.metadata };
  } else {
    next.metadata = { ...refinement.metadata, ...target.metadata };
  }
  next.tags = [...new Set([...target.tags, ...refinement.tags])].slice(0, 20);
  next.proof_count += 1;
  next.confidence = Math.min(1, Math.max(target.confidence, refinement.confidence));
  next.updated_at = at;
  return next;
}
