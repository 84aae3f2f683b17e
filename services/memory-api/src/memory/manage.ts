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
  type ForgetPreviewItem,
  type ForgetRequest,
  type ForgetResponse,
  type HistoryView,
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
import {
  committed,
  DuplicateContentError,
  type MemoryFilter,
  type MemoryStore,
  type MemoryUpdate,
  type Page,
  StaleWriteError,
} from './store-port.ts';

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
async function commitChanges(store: MemoryStore, updates: MemoryUpdate[], duplicate = DUPLICATE_ACTIVE): Promise<void> {
  try {
    await store.commit({ inserts: [], updates });
  } catch (error) {
    if (error instanceof DuplicateContentError) throw new ConflictError(duplicate);
    throw error;
  }
}

/** Makes a memory active again: out of whatever superseded, archived, expired or quarantined it. */
function reactivate(next: MemoryRecord, at: string, note: string): void {
  next.status = 'active';
  next.superseded_by = null;
  next.valid_until = null;
  next.decay_weight = Math.max(next.decay_weight, 1);
  // Restoring is a use of the memory: decay restarts from now instead of archiving it again tonight.
  next.last_accessed_at = at;
  next.updated_at = at;
  next.history.push({ at, action: 'restored', content: next.content, note });
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

/**
 * Deletes a memory for good (under its owner's lock). The memories it had superseded do not stay
 * pointing at an id that no longer exists: they take its place — active again when it was the
 * current version, superseded by its successor when it was itself superseded.
 */
export async function deleteMemory(deps: ManageDeps, tenant: string, id: string, now = Date.now()): Promise<void> {
  const { user_id: owner } = await getMemory(deps, tenant, id);
  await deps.lock.hold(tenant, [owner], () =>
    decideAgain(async () => {
      const current = await getMemory(deps, tenant, id);
      if ((await forgetRecords(deps, tenant, [current], now)) === 0) throw new StaleWriteError([id]);
    }),
  );
}

/**
 * Deletes these memories (as read, at their versions) and hands what each had superseded to its
 * successor; returns how many were deleted (one changed since it was read stays).
 */
async function forgetRecords(
  deps: ManageDeps,
  tenant: string,
  records: readonly MemoryRecord[],
  now: number,
): Promise<number> {
  const gone = new Map(records.map((r) => [r.id, r]));
  const versions = new Map(records.map((r) => [r.id, r.version]));
  const predecessors: MemoryRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await deps.store.list({ tenant, supersededBy: [...gone.keys()] }, 500, cursor);
    predecessors.push(...page.items.filter((r) => !gone.has(r.id)));
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  if (predecessors.length > 0) {
    const at = new Date(now).toISOString();
    const updates: MemoryUpdate[] = predecessors.map((older) => ({ record: successorGone(older, gone, at) }));
    // The deleted ones are committed unchanged too: the hand-over applies only to them as they were read.
    for (const record of records) {
      updates.push({ record });
      versions.set(record.id, record.version + 1);
    }
    await commitChanges(
      deps.store,
      updates,
      'a memory it superseded would become active again, but another active memory of that user and layer has exactly its content: forget or edit that one first',
    );
  }
  return deps.store.deleteMany(tenant, [...versions.keys()], versions);
}

/** `older`, superseded by a memory being deleted: superseded by what superseded that one, else active again. */
function successorGone(older: MemoryRecord, gone: ReadonlyMap<string, MemoryRecord>, at: string): MemoryRecord {
  const next = structuredClone(older);
  const deleted = older.superseded_by as string;
  let successor = gone.get(deleted)?.superseded_by ?? null;
  for (let hops = 0; successor !== null && gone.has(successor) && hops < gone.size; hops++) {
    successor = gone.get(successor)?.superseded_by ?? null;
  }
  if (successor === null || gone.has(successor)) {
    reactivate(next, at, `the memory that superseded it (${deleted}) was deleted`);
  } else {
    next.superseded_by = successor;
    next.updated_at = at;
    next.history.push({
      at,
      action: 'superseded',
      content: next.content,
      note: `superseded by ${successor}: the memory between them (${deleted}) was deleted`,
    });
  }
  return next;
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
    const records = await deps.store.getMany(tenant, ids);
    let deleted: number;
    try {
      deleted = await forgetRecords(deps, tenant, records, Date.now());
    } catch (error) {
      // A memory of the chunk changed while it was read: the next round reads it again.
      if (!(error instanceof StaleWriteError)) throw error;
      continue;
    }
    if (deleted === ids.length) {
      forgotten.push(...ids);
    } else {
      // Some changed since they were read and stay for the next round; count only what went.
      const left = new Set((await deps.store.getMany(tenant, ids)).map((r) => r.id));
      forgotten.push(...ids.filter((id) => !left.has(id)));
    }
  }
  return { count: forgotten.length, ids: forgotten.slice(0, 1000), dry_run: false };
}

/** Memories a dry run shows in full (the rest only by id). */
const FORGET_PREVIEW = 100;

function forgetPreviewOf(record: MemoryRecord): ForgetPreviewItem {
  const { id, user_id, layer, category, status, content, occurred_at, session_id } = record;
  return { id, user_id, layer, category, status, content, occurred_at, session_id };
}
