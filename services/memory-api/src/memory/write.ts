import type { Embedder } from '@hindsight/embedding';
import { ConflictError, ForbiddenError, RejectedContentError, ValidationError } from '@hindsight/errors';
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
import { commitLongTerm } from './apply-writes.ts';
import type { ContradictionJudge } from './contradiction.ts';
import { type GuardPolicy, guardContent } from './guard.ts';
import { newMemoryRecord } from './new-record.ts';
import type { OwnerLock } from './owner-lock.ts';
import type { MemoryStore } from './store-port.ts';

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
  /** Serialises decide-and-commit per (tenant, user) across replicas. */
  lock: OwnerLock;
  /** Where `memory_type: "working"` items go (the session's working memory in Redis). */
  working?: WorkingNoteWriter;
}

/** Appends a scratch note to a session's working memory. */
export interface WorkingNoteWriter {
  appendNote(tenant: string, input: MemoryInput & { session_id: string }): Promise<WriteResult>;
  /** The user a session belongs to; null while it holds nothing. */
  sessionOwner(tenant: string, sessionId: string): Promise<string | null>;
}

/** Who writes: the tenant comes from the API key, `via` from the transport. */
export interface WriteContext {
  tenant: string;
  via: 'api' | 'mcp' | 'import' | 'consolidation';
  /** The caller holds the admin key (the worker): consolidation provenance and its confidence are taken as given. */
  trusted?: boolean;
  now?: number;
}

export const DEFAULT_USER = 'default';

/** A long-term item after validation and the poisoning guard, before dedup. */
export interface PreparedItem {
  record: MemoryRecord;
  embedText: string;
  /** What the guard did to the text, told to the writer in its answer. */
  guarded: Pick<WriteResult, 'redacted' | 'reason'>;
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
  const { prepared, problems } = prepareItems(deps, ctx, inputs, now);
  problems.push(...(await sessionProblems(deps, ctx, inputs)));
  if (problems.length > 0) refuse(problems, inputs.length);
  const longTerm = (prepared.length > 0 ? await commitLongTerm(deps, prepared, now) : []).map((result, index) => ({
    ...result,
    ...(prepared[index] as PreparedItem).guarded,
  }));
  if (prepared.length === inputs.length) return longTerm;
  // The rest are working-memory notes, validated above (their sessions were free for their users a
  // moment ago; a session claimed by another user since would still refuse its note here).
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

/** Why one item of a write cannot be written; the whole write is refused. */
interface ItemProblem {
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

function prepareItems(
  deps: WriteDeps,
  ctx: WriteContext,
  inputs: readonly MemoryInput[],
  now: number,
): { prepared: PreparedItem[]; problems: ItemProblem[] } {
  const problems: ItemProblem[] = [];
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
async function sessionProblems(
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
function refuse(problems: ItemProblem[], items: number): never {
  const sorted = [...problems].sort((a, b) => a.index - b.index);
  const first = sorted[0] as ItemProblem;
  const message =
    items === 1 ? first.message : `item ${first.index}: ${first.message} (nothing in the batch was written)`;
  if (first.code === 'conflict') throw new ConflictError(message, sorted);
  if (first.code === 'forbidden') throw new ForbiddenError(message);
  if (sorted.every((p) => p.code === 'content_rejected')) throw new RejectedContentError(message, sorted);
  throw new ValidationError(message, sorted);
}
