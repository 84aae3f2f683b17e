import type { Embedder } from '@hindsight/embedding';
import { ConflictError, NotFoundError, RejectedContentError } from '@hindsight/errors';
import {
  contentHash,
  type ForgetPreviewItem,
  type ForgetRequest,
  type ForgetResponse,
  type HistoryEntry,
  type ListQuery,
  type MemoryPatch,
  type MemoryRecord,
  resolveTimeRange,
  searchableText,
  splitMemoryTypes,
} from '@hindsight/memory-model';
import { decideAgain } from './decide-again.ts';
import { type GuardPolicy, guardContent } from './guard.ts';
import type { OwnerLock } from './owner-lock.ts';
import { committed, DuplicateContentError, type MemoryFilter, type MemoryStore, type Page } from './store-port.ts';

/** Reading, editing, restoring and forgetting individual memories (not the write/read paths). */
export interface ManageDeps {
  store: MemoryStore;
  embedder: Embedder;
  guard: GuardPolicy;
  /** Serialises read-decide-commit per (tenant, user) across replicas. */
  lock: OwnerLock;
}

const FORGET_CHUNK = 500;

export async function getMemory(deps: ManageDeps, tenant: string, id: string): Promise<MemoryRecord> {
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
      next.status = patch.status;
      next.history.push({ at, action: patch.status === 'active' ? 'restored' : patch.status, content: next.content });
    }
    next.updated_at = at;
    try {
      await deps.store.commit({ inserts: [], updates: [vector ? { record: next, vector } : { record: next }] });
    } catch (error) {
      if (error instanceof DuplicateContentError) {
        throw new ConflictError('another active memory of this user and layer already has exactly this content');
      }
      throw error;
    }
    return committed(next);
  });
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
      const at = new Date(now).toISOString();
      next.status = 'active';
      next.superseded_by = null;
      next.valid_until = null;
      next.decay_weight = Math.max(next.decay_weight, 1);
      // Restoring is a use of the memory: decay restarts from now instead of archiving it again tonight.
      next.last_accessed_at = at;
      next.updated_at = at;
      next.history.push({ at, action: 'restored', content: next.content, note: `was ${current.status}` });
      try {
        await deps.store.commit({ inserts: [], updates: [{ record: next }] });
      } catch (error) {
        if (error instanceof DuplicateContentError) {
          throw new ConflictError('another active memory of this user and layer already has exactly this content');
        }
        throw error;
      }
      return committed(next);
    }),
  );
}

export interface HistoryView {
  id: string;
  status: MemoryRecord['status'];
  superseded_by: string | null;
  /** This memory's versions and those of the memories it superseded, oldest first. */
  entries: Array<HistoryEntry & { memory_id: string }>;
}

export async function memoryHistory(deps: ManageDeps, tenant: string, id: string): Promise<HistoryView> {
  const record = await getMemory(deps, tenant, id);
  const entries: HistoryView['entries'] = record.history.map((h) => ({ ...h, memory_id: record.id }));
  const seen = new Set([record.id]);
  let frontier = [record.id];
  while (frontier.length > 0) {
    const predecessors = (
      await deps.store.list({ tenant, userId: record.user_id, statuses: ['superseded'] }, 1000)
    ).items.filter((r) => r.superseded_by !== null && frontier.includes(r.superseded_by) && !seen.has(r.id));
    frontier = [];
    for (const older of predecessors) {
      seen.add(older.id);
      frontier.push(older.id);
      entries.push(...older.history.map((h) => ({ ...h, memory_id: older.id })));
    }
  }
  entries.sort((a, b) => a.at.localeCompare(b.at));
  return { id: record.id, status: record.status, superseded_by: record.superseded_by, entries };
}

export function forgetFilter(tenant: string, request: ForgetRequest, now = Date.now()): MemoryFilter {
  const filter: MemoryFilter = { tenant };
  if (request.memory_id) filter.ids = [request.memory_id];
  if (request.user_id) filter.userId = request.user_id;
  if (request.agent_id) filter.agentId = request.agent_id;
  if (request.session_id) filter.sessionId = request.session_id;
  const { layers, categories } = splitMemoryTypes(request.memory_types);
  if (layers) filter.layers = layers;
  const allCategories = [...(categories ?? []), ...(request.categories ?? [])];
  if (allCategories.length > 0) filter.categories = allCategories;
  if (request.tags && request.tags.length > 0) filter.tags = request.tags;
  if (request.status) filter.statuses = request.status;
  const window = resolveTimeRange(request.time_range, now);
  if (window.from !== undefined) filter.occurredFrom = window.from;
  if (window.to !== undefined) filter.occurredTo = window.to;
  if (request.before) filter.createdBefore = Date.parse(request.before);
  return filter;
}

/** Deletes every long-term memory matching the filter (or only counts them on a dry run). */
export async function forgetMemories(
  deps: ManageDeps,
  tenant: string,
  request: ForgetRequest,
): Promise<ForgetResponse> {
  const filter = forgetFilter(tenant, request);
  if (request.dry_run) {
    const ids = await deps.store.listIds(filter, 1000);
    const preview = await deps.store.getMany(tenant, ids.slice(0, FORGET_PREVIEW));
    return { count: await deps.store.count(filter), ids, dry_run: true, preview: preview.map(forgetPreviewOf) };
  }
  const forgotten: string[] = [];
  for (;;) {
    const ids = await deps.store.listIds(filter, FORGET_CHUNK);
    if (ids.length === 0) break;
    await deps.store.deleteMany(tenant, ids);
    forgotten.push(...ids);
  }
  return { count: forgotten.length, ids: forgotten.slice(0, 1000), dry_run: false };
}

/** Memories a dry run shows in full (the rest only by id). */
const FORGET_PREVIEW = 100;

function forgetPreviewOf(record: MemoryRecord): ForgetPreviewItem {
  const { id, user_id, layer, category, status, content, occurred_at, session_id } = record;
  return { id, user_id, layer, category, status, content, occurred_at, session_id };
}
