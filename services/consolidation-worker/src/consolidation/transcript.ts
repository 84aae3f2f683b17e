import type { ConsolidatePayload } from '@hindsight/jobs';
import type { Logger } from '@hindsight/logger';
import { type MemoryApiClient, MemoryApiError } from '@hindsight/memory-client';
import { CONTENT_LIMITS, type MemoryInput, type Turn, type WriteResult } from '@hindsight/memory-model';
import { isPleasantry } from '../extraction/small-talk.ts';

/** Turns per write request: one embedding batch each, well under the API's 1000. */
const TRANSCRIPT_BATCH = 100;

/** Narrative, not a role marker ("assistant:" opening a memory is what the poisoning guard refuses). */
const SPEAKER: Partial<Record<Turn['role'], string>> = {
  user: 'The user said',
  assistant: 'The assistant said',
  tool: 'A tool returned',
};

export interface TranscriptOutcome {
  written: number;
  duplicates: number;
  rejected: number;
}

/**
 * A session's turns as ordinary episodic memories (category `turn`), one per turn, so what
 * the extractor missed can still be found: conversation time as `occurred_at`, the session,
 * the turn's id, order and speaker in metadata (the read path indexes a turn with its
 * neighbours by `session_id` + `metadata.turn_seq`). Pleasantries and system turns are left out.
 */
export function transcriptMemories(
  payload: ConsolidatePayload,
  turns: readonly Turn[],
  extractor: string,
): MemoryInput[] {
  const memories: MemoryInput[] = [];
  for (const turn of turns) {
    const speaker = SPEAKER[turn.role];
    if (!speaker || isPleasantry(turn.content)) continue;
    memories.push({
      content: clip(`${speaker}: ${turn.content.trim()}`, CONTENT_LIMITS.episodic),
      memory_type: 'episodic',
      category: 'turn',
      user_id: payload.user_id,
      session_id: payload.session_id,
      occurred_at: turn.timestamp,
      tags: ['hindsight', 'transcript'],
      metadata: { turn_id: turn.id, turn_seq: turn.seq, role: turn.role },
      source: { kind: 'consolidation', session_id: payload.session_id, turn_ids: [turn.id], extractor },
    });
  }
  return memories;
}

/**
 * Writes the transcript in batches, each under an Idempotency-Key derived from the job and the
 * batch's position, so a retried job gets the first answers back instead of writing twice. A
 * batch is all-or-nothing: when the write path refuses one turn (poisoning guard), that batch is
 * written turn by turn under per-turn keys and only the refused turns are left out.
 */
export async function writeTranscript(
  api: MemoryApiClient,
  log: Logger,
  jobId: string,
  memories: readonly MemoryInput[],
): Promise<TranscriptOutcome> {
  const outcome: TranscriptOutcome = { written: 0, duplicates: 0, rejected: 0 };
  const count = (result: WriteResult) => {
    if (result.status === 'duplicate') outcome.duplicates += 1;
    else outcome.written += 1;
  };
  for (let start = 0; start < memories.length; start += TRANSCRIPT_BATCH) {
    const batch = memories.slice(start, start + TRANSCRIPT_BATCH);
    try {
      const answer = await api.storeBatch(batch, `${jobId}.transcript.${start / TRANSCRIPT_BATCH}`);
      answer.items.forEach(count);
      continue;
    } catch (error) {
      if (!isRefusal(error)) throw error;
    }
    for (const memory of batch) {
      try {
        count(await api.store(memory, `${jobId}.turn.${memory.source?.turn_ids?.[0]}`));
      } catch (error) {
        if (!isRefusal(error)) throw error;
        outcome.rejected += 1;
        log.warn(
          { jobId, turn: memory.source?.turn_ids?.[0], reason: error.message },
          'memory-api refused a transcript turn',
        );
      }
    }
  }
  return outcome;
}

/** The write path refused the content (guard, limits): a verdict about that turn, not an outage. */
export function isRefusal(error: unknown): error is MemoryApiError {
  return error instanceof MemoryApiError && error.status === 422;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
