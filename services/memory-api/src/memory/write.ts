import type { Embedder } from '@hindsight/embedding';
import type { Logger } from '@hindsight/logger';
import { type MemoryInput, resolveMemoryType, type WriteResult } from '@hindsight/memory-model';
import { commitLongTerm, PendingVectors } from './apply-writes.ts';
import type { ContradictionJudge } from './contradiction.ts';
import type { GuardPolicy } from './guard.ts';
import type { OwnerLock } from './owner-lock.ts';
import { type ItemProblem, type PreparedItem, prepareItems, refuse, sessionProblems } from './prepare.ts';
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

/**
 * Items of a batch prepared (validated, guarded) before their texts are sent to be embedded: the
 * embedder (the embedder service, or a model server) works on them while the next are prepared,
 * instead of the whole batch's embedding waiting for the last item's guard (~40 ms of 1,000).
 */
const PREPARE_CHUNK = 128;

/**
 * The write path of DESIGN §3 for long-term layers: validate and guard (prepare.ts) chunk by
 * chunk, each chunk's texts sent to be embedded as soon as it is ready, then exact
 * dedup, semantic merge/supersede and the atomic commit (apply-writes.ts, reconcile.ts, whose
 * changes to memories are the pure functions of revisions.ts). A batch is all-or-nothing: one
 * invalid item rejects the whole batch before anything is written.
 */
export async function writeMemories(
  deps: WriteDeps,
  ctx: WriteContext,
  inputs: readonly MemoryInput[],
): Promise<WriteResult[]> {
  const now = ctx.now ?? Date.now();
  const vectors = new PendingVectors(deps.embedder);
  const prepared: PreparedItem[] = [];
  const problems: ItemProblem[] = [];
  for (let from = 0; from < inputs.length; from += PREPARE_CHUNK) {
    // One turn of the event loop: the embed call of the chunk before leaves for the embedder meanwhile.
    if (from > 0) await new Promise((resolve) => setImmediate(resolve));
    const chunk = prepareItems(deps, ctx, inputs.slice(from, from + PREPARE_CHUNK), now, from);
    prepared.push(...chunk.prepared);
    problems.push(...chunk.problems);
    // A refused write embeds nothing more.
    if (problems.length === 0) vectors.request(chunk.prepared);
  }
  problems.push(...(await sessionProblems(deps, ctx, inputs)));
  if (problems.length > 0) refuse(problems, inputs.length);
  const longTerm = (prepared.length > 0 ? await commitLongTerm(deps, prepared, vectors, now) : []).map(
    (result, index) => ({
      ...result,
      ...(prepared[index] as PreparedItem).guarded,
    }),
  );
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
