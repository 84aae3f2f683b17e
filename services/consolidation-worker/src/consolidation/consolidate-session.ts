import { createHash } from 'node:crypto';
import type { ConsolidatePayload, ConsolidationResult } from '@hindsight/jobs';
import type { Logger } from '@hindsight/logger';
import type { MemoryApiClient } from '@hindsight/memory-client';
import type { MemoryInput, Turn, WriteResult } from '@hindsight/memory-model';
import { guardExtraction } from '../extraction/guard.ts';
import type { ExtractedItem, Extractor } from '../extraction/port.ts';
import { adoptReversedSlots } from './reversals.ts';
import { sessionSummary } from './session-summary.ts';
import { isRefusal, transcriptMemories, writeTranscript } from './transcript.ts';

/** What a consolidation remembers between attempts (stored as the job's progress). */
export interface ExtractionCheckpoint {
  through_seq: number;
  extractor: string;
  items: ExtractedItem[];
  llm_calls: number;
  tokens: number;
  /**
   * What the attempt that wrote every memory did, saved before it cleared the session's turns: a
   * worker killed after clearing leaves nothing to consolidate, and the retry answers this instead
   * of a result of zeros.
   */
  result?: ConsolidationResult;
}

export interface ConsolidationDeps {
  /** memory-api, acting for the job's tenant. */
  api: MemoryApiClient;
  extractor: Extractor;
  log: Logger;
  /** The extraction an earlier attempt of this job already made, if any. */
  checkpoint?: ExtractionCheckpoint;
  /** Persists the extraction so a retry writes the very same items. */
  saveCheckpoint(checkpoint: ExtractionCheckpoint): Promise<void>;
  onItem?(status: WriteResult['status'] | 'rejected'): void;
}

/** The result counter each write status adds to. */
const COUNTED_AS = {
  created: 'created',
  merged: 'merged',
  superseded: 'superseded',
  duplicate: 'duplicates',
  quarantined: 'quarantined',
} as const satisfies Record<WriteResult['status'], keyof ConsolidationResult>;

/** A session that can never be consolidated as asked (another user's). */
export class SessionMismatchError extends Error {}

/**
 * The hindsight job (DESIGN §5): load the session's turns up to `through_seq`,
 * extract, guard, keep the transcript (one episodic memory per turn), write each item through memory-api (dedup, merge/supersede and the
 * poisoning guard apply there) with provenance and an Idempotency-Key, write an
 * episodic summary, and only after every write succeeded clear those turns.
 *
 * Safe to run again after a crash at any step: the extraction is checkpointed,
 * every write carries a key derived from the job and the item, and clearing is
 * bounded by `through_seq`.
 */
export async function consolidateSession(
  deps: ConsolidationDeps,
  jobId: string,
  payload: ConsolidatePayload,
): Promise<ConsolidationResult> {
  const started = performance.now();
  const session = await deps.api.sessionTurns(payload.session_id, { through: payload.through_seq });
  if (session.user_id !== null && session.user_id !== payload.user_id) {
    throw new SessionMismatchError(`session ${payload.session_id} belongs to another user than ${payload.user_id}`);
  }
  const result: ConsolidationResult = {
    turns: session.turns.length,
    extracted: 0,
    created: 0,
    merged: 0,
    superseded: 0,
    duplicates: 0,
    quarantined: 0,
    rejected: 0,
    transcript: { written: 0, duplicates: 0, rejected: 0 },
    summary_id: null,
    memory_ids: [],
    extractor: deps.extractor.name,
    llm_calls: 0,
    tokens: 0,
    duration_ms: 0,
  };
  if (session.turns.length === 0) {
    // An earlier attempt of this job wrote everything and cleared the turns before it could finish.
    const done = deps.checkpoint?.through_seq === payload.through_seq ? deps.checkpoint.result : undefined;
    if (done) {
      deps.log.info(
        { jobId, session: payload.session_id },
        'session was consolidated by an earlier attempt of this job',
      );
      return done;
    }
    // Nothing left: another job consolidated these turns, or the session expired.
    return { ...result, duration_ms: elapsed(started) };
  }

  const turnIds = new Set(session.turns.map((t) => t.id));
  const userTurnIds = new Set(session.turns.filter((t) => t.role === 'user').map((t) => t.id));
  const checkpoint = await extractOnce(deps, session.turns, turnIds, payload);
  const items = guardExtraction(checkpoint.items, turnIds, userTurnIds);
  if (items.length < checkpoint.items.length) {
    deps.log.info(
      { jobId, extracted: checkpoint.items.length, kept: items.length },
      'left out items that repeat, cite no user turn, or speak in the first person',
    );
  }
  Object.assign(result, {
    extracted: items.length,
    extractor: checkpoint.extractor,
    llm_calls: checkpoint.llm_calls,
    tokens: checkpoint.tokens,
  });

  // What was said is kept first, whatever the extractor makes of it.
  result.transcript = await writeTranscript(
    deps.api,
    deps.log,
    jobId,
    transcriptMemories(payload, session.turns, checkpoint.extractor),
  );

  const byId = new Map(session.turns.map((t) => [t.id, t]));
  for (const item of items) {
    // Provenance names the extractor that made the items, which a retry on another worker may not be.
    const outcome = await writeItem(deps, jobId, payload, item, byId, checkpoint.extractor);
    deps.onItem?.(outcome === 'rejected' ? 'rejected' : outcome.status);
    if (outcome === 'rejected') {
      result.rejected += 1;
      continue;
    }
    result[COUNTED_AS[outcome.status]] += 1;
    result.memory_ids.push(outcome.id);
  }

  const summary = sessionSummary(payload.session_id, session.turns, items);
  const last = session.turns.at(-1) as Turn;
  const written = await deps.api.store(
    {
      content: summary,
      memory_type: 'episodic',
      category: 'summary',
      user_id: payload.user_id,
      session_id: payload.session_id,
      occurred_at: last.timestamp,
      tags: ['hindsight', 'session-summary'],
      metadata: { turns: session.turns.length, items: items.length, through_seq: payload.through_seq },
      source: {
        kind: 'consolidation',
        session_id: payload.session_id,
        turn_ids: session.turns.map((t) => t.id),
        extractor: checkpoint.extractor,
      },
    },
    `${jobId}.summary`,
  );
  result.summary_id = written.id;
  result.duration_ms = elapsed(started);

  // Every write succeeded: only now may the working memory of these turns go, once what was done is saved.
  await deps.saveCheckpoint({ ...checkpoint, result });
  await deps.api.clearSession(payload.session_id, payload.through_seq);
  result.duration_ms = elapsed(started);
  deps.log.info({ jobId, session: payload.session_id, ...result, memory_ids: undefined }, 'session consolidated');
  return result;
}

async function extractOnce(
  deps: ConsolidationDeps,
  turns: Turn[],
  turnIds: ReadonlySet<string>,
  payload: ConsolidatePayload,
): Promise<ExtractionCheckpoint> {
  if (deps.checkpoint && deps.checkpoint.through_seq === payload.through_seq) return deps.checkpoint;
  const extraction = await deps.extractor.extract(turns, { sessionId: payload.session_id, userId: payload.user_id });
  // Guard before checkpointing, so a bad extraction is never reused by a retry.
  guardExtraction(extraction.items, turnIds);
  const items = await adoptReversedSlots(deps.api, payload.user_id, extraction.items);
  const checkpoint: ExtractionCheckpoint = {
    through_seq: payload.through_seq,
    extractor: deps.extractor.name,
    items,
    llm_calls: extraction.llmCalls,
    tokens: extraction.tokens,
  };
  await deps.saveCheckpoint(checkpoint);
  return checkpoint;
}

async function writeItem(
  deps: ConsolidationDeps,
  jobId: string,
  payload: ConsolidatePayload,
  item: ExtractedItem,
  turns: Map<string, Turn>,
  extractor: string,
): Promise<WriteResult | 'rejected'> {
  const occurred = item.turn_ids
    .map((id) => turns.get(id)?.timestamp)
    .filter((t): t is string => t !== undefined)
    .sort()
    .at(-1);
  const input: MemoryInput = {
    content: item.value,
    query: item.query,
    memory_type: 'semantic',
    category: item.category,
    user_id: payload.user_id,
    session_id: payload.session_id,
    confidence: item.confidence,
    tags: ['hindsight'],
    metadata: {
      key: item.key,
      ...(item.answer ? { answer: item.answer } : {}),
      ...(item.replaces ? { replaces: item.replaces } : {}),
    },
    source: {
      kind: 'consolidation',
      session_id: payload.session_id,
      turn_ids: item.turn_ids,
      extractor,
    },
    ...(occurred ? { occurred_at: occurred } : {}),
  };
  // The same job writing the same item gets the first answer back on a retry: no duplicate, no double merge.
  const key = `${jobId}.${createHash('sha256').update(`${item.category}\u001f${item.value}`).digest('hex').slice(0, 24)}`;
  try {
    return await deps.api.store(input, key);
  } catch (error) {
    // The write path refused the item (poisoning guard, limits): a verdict, not an outage.
    if (isRefusal(error)) {
      deps.log.warn({ jobId, key: item.key, reason: error.message }, 'memory-api refused an extracted item');
      return 'rejected';
    }
    throw error;
  }
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
