import { ConflictError, ForbiddenError, RejectedContentError, ValidationError } from '@hindsight/errors';
import {
  CONTENT_LIMITS,
  type HistoryEntry,
  type MemoryInput,
  type MemoryRecord,
  resolveMemoryType,
  searchableText,
  type WriteResult,
} from '@hindsight/memory-model';
import { guardContent } from './guard.ts';
import { newMemoryRecord } from './new-record.ts';
import { DEFAULT_USER, type WriteContext, type WriteDeps, type WriteSettings } from './write.ts';

/**
 * The preparation half of the write path: what a write asks for, checked and made into records —
 * limits, the poisoning guard, provenance and its confidence, working notes' sessions — before any
 * stored memory is read. Problems are collected for every item, so one refusal names them all.
 */

/** A long-term item after validation and the poisoning guard, before dedup. */
export interface PreparedItem {
  record: MemoryRecord;
  embedText: string;
  /** What the guard did to the text, told to the writer in its answer. */
  guarded: Pick<WriteResult, 'redacted' | 'reason'>;
}

/** Why one item of a write cannot be written; the whole write is refused. */
export interface ItemProblem {
  index: number;
  code: 'validation_failed' | 'content_rejected' | 'conflict' | 'forbidden';
  message: string;
}

/**
 * The confidence a write may claim (DESIGN §3): a client's is at most what an API write gets by
 * default (its own word, not yet confirmed by another source), and a fact a model extracted from
 * a single source at most the single-source cap, whoever writes it. A second source lifts these
 * caps when it confirms the memory (proof_count).
 */
export function cappedConfidence(
  claimed: number | undefined,
  extractor: string | undefined,
  trusted: boolean,
  settings: Pick<WriteSettings, 'defaultConfidence' | 'singleSourceModelConfidenceCap'>,
): number {
  let confidence = claimed ?? settings.defaultConfidence;
  if (!trusted) confidence = Math.min(confidence, settings.defaultConfidence);
  if (extractor?.startsWith('llm')) confidence = Math.min(confidence, settings.singleSourceModelConfidenceCap);
  return confidence;
}

export function prepareItems(
  deps: WriteDeps,
  ctx: WriteContext,
  inputs: readonly MemoryInput[],
  now: number,
  /** The index in its write of `inputs[0]` (problems name items by it). */
  firstIndex = 0,
): { prepared: PreparedItem[]; problems: ItemProblem[] } {
  const problems: ItemProblem[] = [];
  const prepared: PreparedItem[] = [];
  inputs.forEach((input, position) => {
    const index = firstIndex + position;
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

    if (input.source?.kind === 'consolidation' && !ctx.trusted) {
      problems.push({
        index,
        code: 'forbidden',
        message:
          'source.kind "consolidation" is written by the consolidation worker only (the admin key); send "api" or leave source.kind out',
      });
      return;
    }
    const confidence = cappedConfidence(input.confidence, input.source?.extractor, ctx.trusted ?? false, deps.settings);
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
    const guarded: PreparedItem['guarded'] = {};
    if (verdict.redactions.length > 0) guarded.redacted = verdict.redactions;
    if (verdict.kind === 'quarantine') guarded.reason = verdict.reason;
    prepared.push({ record, embedText: searchableText(record), guarded });
  });
  return { prepared, problems };
}

/**
 * Working notes whose session belongs to another user (already, or to an earlier item of the same
 * write): found before anything is written, so such a batch leaves no item behind.
 */
export async function sessionProblems(
  deps: WriteDeps,
  ctx: WriteContext,
  inputs: readonly MemoryInput[],
): Promise<ItemProblem[]> {
  const working = deps.working;
  if (!working) return [];
  const owners = new Map<string, string | null>();
  const problems: ItemProblem[] = [];
  for (const [index, input] of inputs.entries()) {
    const sessionId = input.session_id;
    if (sessionId === undefined || resolveMemoryType(input.memory_type, input.category).layer !== 'working') continue;
    if (!owners.has(sessionId)) owners.set(sessionId, await working.sessionOwner(ctx.tenant, sessionId));
    const owner = owners.get(sessionId) ?? null;
    const user = input.user_id ?? owner ?? DEFAULT_USER;
    if (owner !== null && owner !== user) {
      problems.push({
        index,
        code: 'conflict',
        message: `session ${sessionId} belongs to another user; use a new session id`,
      });
    } else {
      owners.set(sessionId, user);
    }
  }
  return problems;
}

/** Refuses a write for the first item that cannot be written, with every problem in the details. */
export function refuse(problems: ItemProblem[], items: number): never {
  const sorted = [...problems].sort((a, b) => a.index - b.index);
  const first = sorted[0] as ItemProblem;
  const message =
    items === 1 ? first.message : `item ${first.index}: ${first.message} (nothing in the batch was written)`;
  if (first.code === 'conflict') throw new ConflictError(message, sorted);
  if (first.code === 'forbidden') throw new ForbiddenError(message);
  if (sorted.every((p) => p.code === 'content_rejected')) throw new RejectedContentError(message, sorted);
  throw new ValidationError(message, sorted);
}
