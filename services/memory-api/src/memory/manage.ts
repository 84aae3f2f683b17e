import type { Embedder } from '@hindsight/embedding';
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  RejectedContentError,
  ValidationError,
} from '@hindsight/errors';
import {
  CONTENT_LIMITS,
  contentHash,
  type HistoryView,
  type ListQuery,
  type MemoryPatch,
  type MemoryRecord,
  searchableText,
  splitMemoryTypes,
} from '@hindsight/memory-model';
import { decideAgain } from './decide-again.ts';
import { type GuardPolicy, guardContent } from './guard.ts';
import type { OwnerLock } from './owner-lock.ts';
import {
  committed,
  DuplicateContentError,
  type MemoryFilter,
  type MemoryStore,
  type MemoryUpdate,
  type Page,
} from './store-port.ts';

/** Reading, editing and restoring individual memories (not the write/read paths; forgetting is forget.ts). */
export interface ManageDeps {
  store: MemoryStore;
  embedder: Embedder;
  guard: GuardPolicy;
  /** Serialises read-decide-commit per (tenant, user) across replicas. */
  lock: OwnerLock;
}

export async function getMemory(deps: Pick<ManageDeps, 'store'>, tenant: string, id: string): Promise<MemoryRecord> {
  const record = await deps.store.get(tenant, id);
  if (!record) throw new NotFoundError('memory', id);
  return record;
}

export function listFilter(tenant: string, query: ListQuery): MemoryFilter {
  const filter: MemoryFilter = { tenant };
  if (query.user_id) filter.userId = query.user_id;
  if (query.agent_id) filter.agentId = query.agent_id;
  if (query.session_id) filter.sessionId = query.session_id;
  if (query.memory_type) {
    const { layers, categories } = splitMemoryTypes([query.memory_type]);
    if (layers) filter.layers = layers;
    if (categories) filter.categories = categories;
  }
  if (query.category) filter.categories = [...(filter.categories ?? []), query.category];
  if (query.tag) filter.tags = [query.tag];
  if (query.status) filter.statuses = [query.status];
  return filter;
}

export function listMemories(deps: ManageDeps, tenant: string, query: ListQuery): Promise<Page<MemoryRecord>> {
  return deps.store.list(listFilter(tenant, query), query.limit, query.cursor);
}

/** Edits a memory in place; the previous text goes to history and the vector follows the text. */
export interface PatchOptions {
  now?: number;
  /** How the edited content is hashed for exact-duplicate detection (profiles use their own namespace). */
  hashContent?: (content: string) => string;
}

/** Edits a memory under its owner's lock; see `patchHeld`. */
export async function patchMemory(
  deps: ManageDeps,
  tenant: string,
  id: string,
  patch: MemoryPatch,
  options: PatchOptions = {},
): Promise<MemoryRecord> {
  const { user_id: owner } = await getMemory(deps, tenant, id);
  return deps.lock.hold(tenant, [owner], () => patchHeld(deps, tenant, id, patch, options));
}

/**
 * PATCH for a caller that already holds the owner's lock: applied to the memory as it is at commit
 * (a concurrent change makes it read and apply again), so no edit is lost and every replaced text
 * stays in the history.
 */
export async function patchHeld(
  deps: ManageDeps,
  tenant: string,
  id: string,
  patch: MemoryPatch,
  { now = Date.now(), hashContent = contentHash }: PatchOptions = {},
): Promise<MemoryRecord> {
  const vectors = new Map<string, Float32Array>();
  return decideAgain(async () => {
    const current = await getMemory(deps, tenant, id);
    const next = structuredClone(current);
    const at = new Date(now).toISOString();
    let vector: Float32Array | undefined;
    if (patch.content !== undefined && patch.content !== current.content) {
      const limit = CONTENT_LIMITS[current.layer];
      if (patch.content.length > limit) {
        throw new ValidationError(
          `${current.layer} content must be at most ${limit} characters (got ${patch.content.length})`,
        );
      }
      const verdict = guardContent(patch.content, current.layer, deps.guard);
      if (verdict.kind !== 'allow') throw new RejectedContentError(`content refused: ${verdict.reason}`);
      next.history.push({ at, action: 'updated', content: current.content });
      next.content = verdict.content;
      next.content_hash = hashContent(verdict.content);
      const text = searchableText(next);
      vector = vectors.get(text) ?? ((await deps.embedder.embed([text]))[0] as Float32Array);
      vectors.set(text, vector);
    }
    if (patch.category !== undefined) next.category = patch.category;
    if (patch.tags !== undefined) next.tags = [...new Set(patch.tags)];
    if (patch.metadata !== undefined) next.metadata = patch.metadata;
    if (patch.confidence !== undefined) next.confidence = patch.confidence;
    if (patch.importance !== undefined) next.importance = patch.importance;
    if (patch.status !== undefined && patch.status !== current.status) {
      if (patch.status === 'active') {
        // Back into search the one way there is: what made it inactive (superseded_by, valid_until) goes too.
        reactivate(next, at, `was ${current.status}`);
      } else {
        next.status = patch.status;
        next.history.push({ at, action: patch.status, content: next.content });
      }
    }
    next.updated_at = at;
    await commitChanges(deps.store, [vector ? { record: next, vector } : { record: next }]);
    return committed(next);
  });
}

const DUPLICATE_ACTIVE = 'another active memory of this user and layer already has exactly this content';

/** Commits updates; a change that would leave two active memories with one text is the caller's 409. */
export async function commitChanges(
  store: MemoryStore,
  updates: MemoryUpdate[],
  duplicate = DUPLICATE_ACTIVE,
): Promise<void> {
  try {
    await store.commit({ inserts: [], updates });
  } catch (error) {
    if (error instanceof DuplicateContentError) throw new ConflictError(duplicate);
    throw error;
  }
}

/** Makes a memory active again: out of whatever superseded, archived, expired or quarantined it. */
export function reactivate(next: MemoryRecord, at: string, note: string): void {
  next.status = 'active';
  next.superseded_by = null;
  next.valid_until = null;
  next.decay_weight = Math.max(next.decay_weight, 1);
  // Restoring is a use of the memory: decay restarts from now instead of archiving it again tonight.
  next.last_accessed_at = at;
  next.updated_at = at;
  next.history.push({ at, action: 'restored', content: next.content, note });
}

/** Takes a memory out of search, restorable (decay, or the hand-over of a memory deleted after its retention). */
export function archive(next: MemoryRecord, at: string, note: string): void {
  next.status = 'archived';
  next.superseded_by = null;
  next.updated_at = at;
  next.history.push({ at, action: 'archived', content: next.content, note });
}

/** Brings an archived, superseded or quarantined memory back into search (under its owner's lock). */
export async function restoreMemory(
  deps: ManageDeps,
  tenant: string,
  id: string,
  now = Date.now(),
): Promise<MemoryRecord> {
  const { user_id: owner } = await getMemory(deps, tenant, id);
  return deps.lock.hold(tenant, [owner], () =>
    decideAgain(async () => {
      const current = await getMemory(deps, tenant, id);
      if (current.status === 'active') return current;
      const next = structuredClone(current);
      reactivate(next, new Date(now).toISOString(), `was ${current.status}`);
      await commitChanges(deps.store, [{ record: next }]);
      return committed(next);
    }),
  );
}

export interface HistoryPage {
  /** Memories per page. */
  limit: number;
  cursor?: string | undefined;
}

/** Where a history walk stands: memories whose predecessors come next (the last one first), and the store's cursor inside the last one's. */
interface HistoryCursor {
  pending: string[];
  after?: string;
}

/**
 * A memory's versions and those of the memories it superseded, walked back through the chain by
 * the store's `supersededBy` index one memory at a time, `limit` memories per page: the work of a
 * page is bounded whatever the length of the chain, and following `next_cursor` reaches every
 * memory of it exactly once.
 */
export async function memoryHistory(
  deps: ManageDeps,
  tenant: string,
  id: string,
  page: HistoryPage,
): Promise<HistoryView> {
  const record = await getMemory(deps, tenant, id);
  const walk: HistoryCursor = page.cursor === undefined ? { pending: [record.id] } : decodeHistoryCursor(page.cursor);
  const found: MemoryRecord[] = page.cursor === undefined ? [record] : [];
  while (walk.pending.length > 0 && found.length < page.limit) {
    const newer = walk.pending[walk.pending.length - 1] as string;
    const older = await deps.store.list(
      { tenant, userId: record.user_id, supersededBy: [newer] },
      page.limit - found.length,
      walk.after,
    );
    if (older.nextCursor === null) {
      walk.pending.pop();
      delete walk.after;
    } else {
      walk.after = older.nextCursor;
    }
    // A chain that loops back (only a hand-edited import can make one) ends where it meets its start.
    const next = older.items.filter((r) => r.id !== record.id);
    found.push(...next);
    walk.pending.push(...next.map((r) => r.id));
  }
  const entries = found
    .flatMap((memory) => memory.history.map((h) => ({ ...h, memory_id: memory.id })))
    .sort((a, b) => a.at.localeCompare(b.at));
  return {
    id: record.id,
    status: record.status,
    superseded_by: record.superseded_by,
    entries,
    next_cursor: walk.pending.length > 0 ? Buffer.from(JSON.stringify(walk)).toString('base64url') : null,
  };
}

function decodeHistoryCursor(cursor: string): HistoryCursor {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as HistoryCursor;
    const ids = Array.isArray(parsed.pending) && parsed.pending.every((id) => typeof id === 'string');
    if (ids && (parsed.after === undefined || typeof parsed.after === 'string')) return parsed;
  } catch {
    // Falls through to the refusal below: the cursor was not one this endpoint gave.
  }
  throw new BadRequestError('cursor is not one GET /v1/memories/:id/history gave; start again without it');
}
