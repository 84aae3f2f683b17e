import { z } from 'zod';
import { Identifier } from './identifier.ts';

/** `GET /v1/whoami`: the tenant a key acts for, and whether it is the admin key. */
export const CallerIdentity = z.object({
  tenant: z.string(),
  admin: z.boolean(),
});
export type CallerIdentity = z.infer<typeof CallerIdentity>;

const Count = z.number().int().min(0);

/**
 * What one user erasure removed where — the answer to `DELETE /v1/users/:id` and, unchanged, the
 * tombstone kept for audits (`GET /v1/erasures`). Ids, times and counts only: never content.
 */
export const ErasureReceipt = z.object({
  erasure_id: z.string(),
  user_id: z.string(),
  requested_at: z.string(),
  completed_at: z.string().nullable(),
  /**
   * `completed`: every store was scrubbed. `incomplete`: a job of the user was still running when
   * the erase had to answer (`jobs_running`); its writes are refused, erase again once it ended.
   */
  status: z.enum(['erasing', 'completed', 'incomplete']),
  /** Long-term memories deleted (every layer and status), and per layer. */
  memories: Count,
  memories_by_layer: z.record(z.string(), Count),
  /** Working-memory sessions and their turns deleted. */
  sessions: Count,
  turns: Count,
  /** Consolidation and summary jobs removed (queued, finished, and the ones waited for). */
  jobs: Count,
  /** Entries of those jobs removed from the queue's event stream (progress held extracted facts). */
  job_events: Count,
  /** Replies kept for `Idempotency-Key` retries that named the user or their memories. */
  idempotency_replies: Count,
  /** Cached vectors of the user's texts. */
  embedding_cache_entries: Count,
  jobs_running: Count,
  /** What could not be done (a job still running, the embedder's cache unreachable); empty when completed. */
  incomplete: z.array(z.string()),
  /** Whether the long-term store's files no longer hold the deleted bytes, and how. */
  store: z.object({ backend: z.string(), purged: z.boolean(), detail: z.string() }),
});
export type ErasureReceipt = z.infer<typeof ErasureReceipt>;

/** The receipt of an erasure that has just begun: nothing removed yet. */
export function beginErasure(erasureId: string, userId: string, backend: string, at: Date): ErasureReceipt {
  return {
    erasure_id: erasureId,
    user_id: userId,
    requested_at: at.toISOString(),
    completed_at: null,
    status: 'erasing',
    memories: 0,
    memories_by_layer: {},
    sessions: 0,
    turns: 0,
    jobs: 0,
    job_events: 0,
    idempotency_replies: 0,
    embedding_cache_entries: 0,
    jobs_running: 0,
    incomplete: [],
    store: { backend, purged: false, detail: 'not purged yet' },
  };
}

/** `DELETE /v1/users/:id` answers the erasure's receipt. */
export const EraseUserResponse = ErasureReceipt;
export type EraseUserResponse = ErasureReceipt;

export const ErasureListQuery = z.object({
  user_id: Identifier.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(512).optional(),
});
export type ErasureListQuery = z.infer<typeof ErasureListQuery>;

export const ErasureList = z.object({ items: z.array(ErasureReceipt), next_cursor: z.string().nullable() });
export type ErasureList = z.infer<typeof ErasureList>;
