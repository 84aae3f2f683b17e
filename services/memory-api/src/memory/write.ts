import type { Embedder } from '@hindsight/embedding';
import { RejectedContentError, ValidationError } from '@hindsight/errors';
import type { Logger } from '@hindsight/logger';
import {
  CONTENT_LIMITS,
  type HistoryEntry,
  type MemoryInput,
  type MemoryRecord,
  resolveMemoryType,
  searchableText,
  type WriteResult,
} from '@hindsight/memory-model';
import type { ContradictionJudge } from './contradiction.ts';
import { type GuardPolicy, guardContent } from './guard.ts';
import { newMemoryRecord } from './new-record.ts';
import { DuplicateContentError, type MemoryStore, type MemoryUpdate, type NewMemory } from './store-port.ts';

export interface WriteSettings {
  /** Cosine at or above which a new semantic memory refines an existing one (merge). */
  mergeThreshold: number;
  /** Cosine at or above which two semantic memories are compared for contradiction. */
  contradictionThreshold: number;
  /** Confidence cap for facts a model extracted from a single source. */
  singleSourceModelConfidenceCap: number;
  defaultConfidence: number;
  guard: GuardPolicy;
}

export interface WriteDeps {
  store: MemoryStore;
  embedder: Embedder;
  judge: ContradictionJudge;
  settings: WriteSettings;
  log: Logger;
  /** Where `memory_type: "working"` items go (the session's working memory in Redis). */
  working?: WorkingNoteWriter;
}

/** Appends a scratch note to a session's working memory. */
export interface WorkingNoteWriter {
  appendNote(tenant: string, input: MemoryInput & { session_id: string }): Promise<WriteResult>;
}

/** Who writes: the tenant comes from the API key, `via` from the transport. */
export interface WriteContext {
  tenant: string;
  via: 'api' | 'mcp' | 'import' | 'consolidation';
  now?: number;
}

export const DEFAULT_USER = 'default';

/** A long-term item after validation and the poisoning guard, before dedup. */
interface PreparedItem {
  record: MemoryRecord;
  embedText: string;
}

/**
 * The write path of DESIGN §3 for long-term layers: validate, guard, exact dedup,
 * semantic merge/supersede, embed, commit atomically. A batch is all-or-nothing:
 * one invalid item rejects the whole batch before anything is written.
 */
export async function writeMemories(
  deps: WriteDeps,
  ctx: WriteContext,
  inputs: readonly MemoryInput[],
): Promise<WriteResult[]> {
  const now = ctx.now ?? Date.now();
  const prepared = prepareItems(deps, ctx, inputs, now);
  const longTerm = prepared.length > 0 ? await commitLongTerm(deps, prepared, now) : [];
  if (prepared.length === inputs.length) return longTerm;
  // The rest are working-memory notes, validated above; they go to their session in input order.
  const results: WriteResult[] = [];
  let next = 0;
  for (const input of inputs) {
    if (resolveMemoryType(input.memory_type, input.category).layer === 'working') {
      results.push(
        await (deps.working as WorkingNoteWriter).appendNote(ctx.tenant, input as MemoryInput & { session_id: string }),
      );
    } else {
      results.push(longTerm[next++] as WriteResult);
    }
  }
  return results;
}

async function commitLongTerm(deps: WriteDeps, prepared: PreparedItem[], now: number): Promise<WriteResult[]> {
  try {
    return await applyWrites(deps, prepared, now);
  } catch (error) {
    // Another writer inserted the same content between our dedup check and commit: decide again.
    if (error instanceof DuplicateContentError) return applyWrites(deps, prepared, now);
    throw error;
  }
}

function prepareItems(deps: WriteDeps, ctx: WriteContext, inputs: readonly MemoryInput[], now: number): PreparedItem[] {
  const problems: Array<{ index: number; code: string; message: string }> = [];
  const prepared: PreparedItem[] = [];
  inputs.forEach((input, index) => {
    const { layer, category } = resolveMemoryType(input.memory_type, input.category);
    if (layer === 'working') {
      if (!input.session_id) {
        problems.push({
          index,
          code: 'validation_failed',
          message: 'working memory belongs to a session: send session_id with memory_type "working"',
        });
      } else if (!deps.working) {
        problems.push({
          index,
          code: 'validation_failed',
          message: 'working memory is not available on this deployment',
        });
      }
      return;
    }
    const limit = CONTENT_LIMITS[layer];
    if (input.content.length > limit) {
      problems.push({
        index,
        code: 'validation_failed',
        message: `${layer} content must be at most ${limit} characters (got ${input.content.length})`,
      });
      return;
    }
    const verdict = guardContent(input.content, layer, deps.settings.guard);
    if (verdict.kind === 'reject') {
      problems.push({ index, code: 'content_rejected', message: verdict.reason });
      return;
    }
    if (verdict.redactions.length > 0)
      deps.log.warn({ redactions: verdict.redactions }, 'secrets redacted from a memory');

    const extractor = input.source?.extractor;
    const fromModel = extractor?.startsWith('llm') ?? false;
    let confidence = input.confidence ?? deps.settings.defaultConfidence;
    if (fromModel) confidence = Math.min(confidence, deps.settings.singleSourceModelConfidenceCap);
    const at = new Date(now).toISOString();
    const record = newMemoryRecord(
      {
        tenant: ctx.tenant,
        user_id: input.user_id ?? DEFAULT_USER,
        agent_id: input.agent_id ?? null,
        session_id: input.session_id ?? input.source?.session_id ?? null,
        layer,
        category,
        content: verdict.content,
        query: input.query ?? null,
        tags: [...new Set(input.tags ?? [])],
        metadata: input.metadata ?? {},
        confidence,
        importance: input.importance ?? null,
        source: { ...input.source, kind: input.source?.kind ?? ctx.via },
        occurred_at: input.occurred_at ? new Date(input.occurred_at).toISOString() : at,
        valid_until: input.ttl_seconds ? new Date(now + input.ttl_seconds * 1000).toISOString() : null,
        status: verdict.kind === 'quarantine' ? 'quarantined' : 'active',
        embedding_model: deps.embedder.model,
      },
      at,
    );
    if (verdict.kind === 'quarantine') {
      record.history[0] = { ...(record.history[0] as HistoryEntry), note: verdict.reason };
    }
    prepared.push({ record, embedText: searchableText(record) });
  });
  if (problems.length > 0) {
    const first = problems[0] as (typeof problems)[number];
    const message =
      inputs.length === 1 ? first.message : `item ${first.index}: ${first.message} (nothing in the batch was written)`;
    if (problems.every((p) => p.code === 'content_rejected')) throw new RejectedContentError(message, problems);
    throw new ValidationError(message, problems);
  }
  return prepared;
}

async function applyWrites(deps: WriteDeps, items: PreparedItem[], now: number): Promise<WriteResult[]> {
  const at = new Date(now).toISOString();
  const results: WriteResult[] = new Array(items.length);
  const updates = new Map<string, MemoryUpdate>();
  const inserts: Array<{ index: number; item: PreparedItem }> = [];
  const insertedByHash = new Map<string, MemoryRecord>();

  const confirm = (existing: MemoryRecord, item: PreparedItem): MemoryRecord => {
    const update = updates.get(existing.id) ?? { record: structuredClone(existing) };
    const record = update.record;
    record.proof_count += 1;
    // A second independent source lifts the single-source cap.
    record.confidence = Math.min(1, Math.max(record.confidence, item.record.confidence));
    record.updated_at = at;
    updates.set(record.id, update);
    return record;
  };

  for (const [index, item] of items.entries()) {
    const { record } = item;
    const key = `${record.user_id}\u001f${record.layer}\u001f${record.content_hash}`;
    const earlier = insertedByHash.get(key);
    if (earlier) {
      earlier.proof_count += 1;
      results[index] = { id: earlier.id, status: 'duplicate', layer: earlier.layer };
      continue;
    }
    const existing =
      record.status === 'active'
        ? await deps.store.findActiveByHash(record.tenant, record.user_id, record.layer, record.content_hash)
        : undefined;
    if (existing) {
      const confirmed = confirm(existing, item);
      results[index] = { id: confirmed.id, status: 'duplicate', layer: confirmed.layer };
      continue;
    }
    insertedByHash.set(key, record);
    inserts.push({ index, item });
  }

  const vectors = inserts.length > 0 ? await deps.embedder.embed(inserts.map(({ item }) => item.embedText)) : [];
  const newRows: NewMemory[] = [];
  for (const [position, { index, item }] of inserts.entries()) {
    const vector = vectors[position] as Float32Array;
    const { record } = item;
    if (record.layer === 'semantic' && record.status === 'active') {
      const decision = await reconcileSemantic(deps, record, vector, updates, at);
      if (decision.kind === 'merged') {
        results[index] = { id: decision.id, status: 'merged', layer: record.layer };
        continue;
      }
      if (decision.kind === 'superseded') {
        results[index] = { id: record.id, status: 'superseded', layer: record.layer, superseded_ids: decision.ids };
        newRows.push({ record, vector });
        continue;
      }
    }
    results[index] = {
      id: record.id,
      status: record.status === 'quarantined' ? 'quarantined' : 'created',
      layer: record.layer,
    };
    newRows.push({ record, vector });
  }
  await deps.store.commit({ inserts: newRows, updates: [...updates.values()] });
  return results;
}

type Reconciliation = { kind: 'new' } | { kind: 'merged'; id: string } | { kind: 'superseded'; ids: string[] };

/**
 * Near-duplicates in the semantic layer: a contradicting neighbour is superseded
 * (kept, marked, linked); a very close compatible one absorbs the new text (merge,
 * old text kept in history). Nothing is deleted.
 */
async function reconcileSemantic(
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
