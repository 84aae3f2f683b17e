import {
  type ForgetPreviewItem,
  type ForgetRequest,
  ForgetResponse,
  type MemoryRecord,
  resolveTimeRange,
  type SessionTurns,
  searchableText,
  splitMemoryTypes,
} from '@hindsight/memory-model';
import { z } from 'zod';
import { decideAgain } from './decide-again.ts';
import { archive, commitChanges, getMemory, type ManageDeps, reactivate } from './manage.ts';
import { type MemoryFilter, type MemoryStore, type MemoryUpdate, StaleWriteError } from './store-port.ts';

/**
 * Forgetting, every way it happens: one memory (`DELETE /v1/memories/:id`), a filter
 * (`POST /v1/forget`, MCP `memory_forget`), a session's working memory along with it, everything
 * of one user (erasure) and memories archived past their retention (decay). Whatever goes, the
 * memories it had superseded are handed on — never left superseded by an id that no longer exists.
 */
export type ForgetDeps = Pick<ManageDeps, 'store' | 'lock'>;

/** Memories deleted per round of a forget by filter. */
const FORGET_CHUNK = 500;
/** Memories a dry run shows in full (the rest only by id). */
const FORGET_PREVIEW = 100;
/** Rounds of deleting a user's rows until none is left (a write accepted just before the erase may land late). */
const ERASE_ROUNDS = 20;
/** Reads of a chunk of expired memories that changed while it was being deleted, before the next pass. */
const EXPIRED_ATTEMPTS = 4;

/** What the memories superseded by a deleted current version become. */
export type Successor = 'active' | 'archived';

/**
 * Deletes a memory for good (under its owner's lock). The memories it had superseded take its
 * place: active again when it was the current version, superseded by its successor when it was
 * itself superseded.
 */
export async function deleteMemory(deps: ForgetDeps, tenant: string, id: string, now = Date.now()): Promise<void> {
  const { user_id: owner } = await getMemory(deps, tenant, id);
  await deps.lock.hold(tenant, [owner], () =>
    decideAgain(async () => {
      const current = await getMemory(deps, tenant, id);
      if ((await forgetRecords(deps.store, tenant, [current], now)) === 0) throw new StaleWriteError([id]);
    }),
  );
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
  deps: ForgetDeps,
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
    // null: a memory of the chunk changed while it was read, and the next round reads it again.
    const gone = await forgetAsRead(deps.store, tenant, await deps.store.getMany(tenant, ids), Date.now());
    forgotten.push(...(gone ?? []));
  }
  return { count: forgotten.length, ids: forgotten.slice(0, 1000), dry_run: false };
}

/**
 * Deletes memories archived past their retention (decay), each only if it is still the version
 * found archived. The memories one had superseded take its place as archived ones: a contradicted
 * fact does not come back into search because the memory that replaced it faded; it fades after it.
 */
export async function forgetExpired(
  store: MemoryStore,
  tenant: string,
  expired: ReadonlyMap<string, number>,
  now: number,
): Promise<number> {
  let deleted = 0;
  const ids = [...expired.keys()];
  for (let start = 0; start < ids.length; start += FORGET_CHUNK) {
    const chunk = ids.slice(start, start + FORGET_CHUNK);
    for (let attempt = 0; attempt < EXPIRED_ATTEMPTS; attempt++) {
      // Read again on each attempt: one restored or edited meanwhile drops out, the rest still go.
      const read = await store.getMany(tenant, chunk);
      const unchanged = read.filter((record) => record.version === expired.get(record.id));
      const gone = await forgetAsRead(store, tenant, unchanged, now, 'archived');
      if (gone === null) continue;
      deleted += gone.length;
      break;
    }
  }
  // A chunk that kept changing stays archived: the next pass finds it again.
  return deleted;
}

/** Erasure: every memory of the user in every layer and status, until none is left. */
export async function forgetUserMemories(store: MemoryStore, tenant: string, userId: string): Promise<ErasedMemories> {
  const erased: ErasedMemories = { ids: [], byLayer: {}, texts: [] };
  for (let round = 0; round < ERASE_ROUNDS; round++) {
    const page = await store.list({ tenant, userId }, FORGET_CHUNK);
    if (page.items.length === 0) return erased;
    // Supersede chains stay within one user, so nothing outside the erase points at what goes.
    await store.deleteMany(
      tenant,
      page.items.map((record) => record.id),
    );
    for (const record of page.items) {
      erased.ids.push(record.id);
      erased.byLayer[record.layer] = (erased.byLayer[record.layer] ?? 0) + 1;
      erased.texts.push(searchableText(record));
    }
  }
  throw new Error(`the memories of user ${userId} kept coming back after ${ERASE_ROUNDS} rounds of deletion`);
}

export interface ErasedMemories {
  ids: string[];
  byLayer: Record<string, number>;
  /** What was embedded for each: its cached vector is dropped next. */
  texts: string[];
}

/**
 * Deletes these memories if each is still the version read, handing on what they superseded;
 * returns the ids that went (one changed meanwhile stays), or `null` when the hand-over met a
 * memory changed since it was read and nothing went: the caller reads again.
 */
async function forgetAsRead(
  store: MemoryStore,
  tenant: string,
  records: readonly MemoryRecord[],
  now: number,
  successor: Successor = 'active',
): Promise<string[] | null> {
  if (records.length === 0) return [];
  let deleted: number;
  try {
    deleted = await forgetRecords(store, tenant, records, now, successor);
  } catch (error) {
    if (error instanceof StaleWriteError) return null;
    throw error;
  }
  const ids = records.map((r) => r.id);
  if (deleted === ids.length) return ids;
  const left = new Set((await store.getMany(tenant, ids)).map((r) => r.id));
  return ids.filter((id) => !left.has(id));
}

/**
 * Deletes these memories (as read, at their versions) and hands what each had superseded to its
 * successor; returns how many were deleted (one changed since it was read stays).
 */
async function forgetRecords(
  store: MemoryStore,
  tenant: string,
  records: readonly MemoryRecord[],
  now: number,
  successor: Successor = 'active',
): Promise<number> {
  const gone = new Map(records.map((r) => [r.id, r]));
  const versions = new Map(records.map((r) => [r.id, r.version]));
  const predecessors: MemoryRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ tenant, supersededBy: [...gone.keys()] }, FORGET_CHUNK, cursor);
    predecessors.push(...page.items.filter((r) => !gone.has(r.id)));
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  if (predecessors.length > 0) {
    const at = new Date(now).toISOString();
    const updates: MemoryUpdate[] = predecessors.map((older) => ({
      record: successorGone(older, gone, at, successor),
    }));
    // The deleted ones are committed unchanged too: the hand-over applies only to them as they were read.
    for (const record of records) {
      updates.push({ record });
      versions.set(record.id, record.version + 1);
    }
    await commitChanges(
      store,
      updates,
      'a memory it superseded would become active again, but another active memory of that user and layer has exactly its content: forget or edit that one first',
    );
  }
  return store.deleteMany(tenant, [...versions.keys()], versions);
}

/**
 * `older`, superseded by a memory being deleted: superseded by what superseded that one, else
 * `successor` (active again, or archived in the place of a deleted archived memory).
 */
function successorGone(
  older: MemoryRecord,
  gone: ReadonlyMap<string, MemoryRecord>,
  at: string,
  successor: Successor,
): MemoryRecord {
  const next = structuredClone(older);
  const deleted = older.superseded_by as string;
  let newer = gone.get(deleted)?.superseded_by ?? null;
  for (let hops = 0; newer !== null && gone.has(newer) && hops < gone.size; hops++) {
    newer = gone.get(newer)?.superseded_by ?? null;
  }
  if (newer !== null && !gone.has(newer)) {
    next.superseded_by = newer;
    next.updated_at = at;
    next.history.push({
      at,
      action: 'superseded',
      content: next.content,
      note: `superseded by ${newer}: the memory between them (${deleted}) was deleted`,
    });
  } else if (successor === 'active') {
    reactivate(next, at, `the memory that superseded it (${deleted}) was deleted`);
  } else {
    archive(next, at, `the memory that superseded it (${deleted}) was deleted after its retention`);
  }
  return next;
}

function forgetPreviewOf(record: MemoryRecord): ForgetPreviewItem {
  const { id, user_id, layer, category, status, content, occurred_at, session_id } = record;
  return { id, user_id, layer, category, status, content, occurred_at, session_id };
}

/** What `memory_forget` answers: the long-term memories forgotten, and a forgotten session's working memory. */
export const ForgetOutcome = ForgetResponse.omit({ preview: true }).extend({
  working_turns: z
    .number()
    .int()
    .describe(
      "Turns removed from the session's working memory (counted only, on a dry run); 0 unless forgetting by session_id alone",
    ),
});
export type ForgetOutcome = z.infer<typeof ForgetOutcome>;

/** The steps of a forget that may reach working memory, over whichever backend runs them. */
export interface ForgetSteps {
  longTerm(): Promise<ForgetResponse>;
  turns?(sessionId: string): Promise<SessionTurns>;
  deleteSession?(sessionId: string): Promise<void>;
}

/**
 * Forgetting by `session_id` alone also forgets that session's working memory: otherwise the
 * turns would be consolidated at session end and the forgotten facts would come back. Narrower
 * filters (tags, before, an id) leave working memory alone, and so does a session of another user.
 */
export async function forgetWithSession(request: ForgetRequest, steps: ForgetSteps): Promise<ForgetOutcome> {
  // The answer is counts and ids; the REST dry run's preview (memory contents) is for people.
  const { preview: _preview, ...longTerm } = await steps.longTerm();
  const sessionId = request.session_id;
  const sessionOnly =
    sessionId !== undefined && request.memory_id === undefined && !request.tags?.length && request.before === undefined;
  if (!sessionOnly || !steps.turns || !steps.deleteSession) return { ...longTerm, working_turns: 0 };
  const session = await steps.turns(sessionId);
  if (session.user_id !== request.user_id || session.turns.length === 0) return { ...longTerm, working_turns: 0 };
  if (!request.dry_run) await steps.deleteSession(sessionId);
  return { ...longTerm, working_turns: session.turns.length };
}
