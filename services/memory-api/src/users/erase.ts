import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Embedder } from '@hindsight/embedding';
import type { Logger } from '@hindsight/logger';
import { beginErasure, type ErasureReceipt } from '@hindsight/memory-model';
import { forgetUserMemories } from '../memory/forget.ts';
import type { MemoryStore } from '../memory/store-port.ts';
import type { ConsolidationQueue, ErasedSession, WorkingMemoryStore } from '../working/port.ts';

/** Replies kept for `Idempotency-Key` retries. */
export interface ReplyForgetting {
  forgetRepliesNaming(tenant: string, names: ReadonlySet<string>): Promise<number>;
}

export interface EraseSettings {
  /** How long an erase waits for the user's running jobs to end (they fail at their next write). */
  jobWaitMs: number;
  /** How often it looks again meanwhile. */
  pollMs?: number;
}

export interface EraseDeps {
  store: MemoryStore;
  working: WorkingMemoryStore;
  queue: ConsolidationQueue;
  replies: ReplyForgetting;
  embedder: Pick<Embedder, 'forget'>;
  settings: EraseSettings;
  log: Logger;
}

/** Texts per forget call: within the embedder service's EMBED_MAX_TEXTS default. */
const FORGET_CHUNK = 128;

/**
 * Erases everything one user left in a tenant (DESIGN §8, §9) and answers with the receipt,
 * which is also kept as the tombstone:
 *
 * 1. The tombstone first (`erasing`): from then on every write made on behalf of a job enqueued
 *    before it is refused (the erasure fence), so nothing running can write the user back.
 * 2. Queued and finished jobs of the user go; running ones are waited for (bounded), then
 *    removed with whatever they enqueued meanwhile (a profile refresh).
 * 3. Working memory, then every long-term memory of the user in every layer and status.
 * 4. The traces: the jobs' entries in the queue's event stream, the kept idempotent replies
 *    naming the user, the cached vectors of every erased text, and the store's own files
 *    (`purgeDeleted`: SQLite zeroes and truncates its WAL).
 * 5. The tombstone again, `completed` — or `incomplete`, saying what could not be done.
 */
export async function eraseUser(deps: EraseDeps, tenant: string, userId: string): Promise<ErasureReceipt> {
  const receipt = beginErasure(randomUUID(), userId, deps.store.backend, new Date());
  await deps.store.saveErasure(tenant, receipt);

  const jobIds = new Set(await deps.queue.removeJobsOf(tenant, { userId }));
  const running = await waitForJobs(deps, tenant, userId);
  for (const id of [...running, ...(await deps.queue.removeJobsOf(tenant, { userId }))]) jobIds.add(id);
  receipt.jobs_running = (await deps.queue.runningJobsOf(tenant, { userId })).length;
  if (receipt.jobs_running > 0) {
    receipt.incomplete.push(
      `${receipt.jobs_running} job(s) of the user still running after ${deps.settings.jobWaitMs} ms: their writes are refused; erase again once they ended`,
    );
  }

  const sessions = await deps.working.deleteUser(tenant, userId);
  receipt.sessions = sessions.length;
  receipt.turns = sessions.reduce((sum, s) => sum + s.turns.length, 0);
  const erased = await forgetUserMemories(deps.store, tenant, userId);
  receipt.memories = erased.ids.length;
  receipt.memories_by_layer = erased.byLayer;
  receipt.jobs = jobIds.size;

  receipt.job_events = await deps.queue.scrubJobEvents([...jobIds]);
  receipt.idempotency_replies = await deps.replies.forgetRepliesNaming(
    tenant,
    new Set([userId, ...erased.ids, ...sessions.map((s) => s.sessionId)]),
  );
  receipt.embedding_cache_entries = await forgetVectors(deps, receipt, erased.texts, sessions);
  // A store that cannot purge its files says so in `store`: a property of that backend, not an unfinished erase.
  receipt.store = { backend: deps.store.backend, ...(await deps.store.purgeDeleted()) };
  receipt.status = receipt.incomplete.length > 0 ? 'incomplete' : 'completed';
  receipt.completed_at = new Date().toISOString();
  await deps.store.saveErasure(tenant, receipt);
  deps.log.info(
    {
      erasure: receipt.erasure_id,
      memories: receipt.memories,
      sessions: receipt.sessions,
      jobs: receipt.jobs,
      status: receipt.status,
    },
    'user erased',
  );
  return receipt;
}

/** Waits until no job of the user runs, or the wait is over; returns the ids seen running. */
async function waitForJobs(deps: EraseDeps, tenant: string, userId: string): Promise<string[]> {
  const seen = new Set<string>();
  const deadline = Date.now() + deps.settings.jobWaitMs;
  for (;;) {
    const running = await deps.queue.runningJobsOf(tenant, { userId });
    for (const id of running) seen.add(id);
    if (running.length === 0 || Date.now() >= deadline) return [...seen];
    await sleep(Math.min(deps.settings.pollMs ?? 100, Math.max(0, deadline - Date.now())));
  }
}

/** Drops the cached vectors of every erased text; an unreachable cache leaves the erase incomplete, not failed. */
async function forgetVectors(
  deps: EraseDeps,
  receipt: ErasureReceipt,
  texts: readonly string[],
  sessions: readonly ErasedSession[],
): Promise<number> {
  const all = [...new Set([...texts, ...sessions.flatMap((s) => s.turns)])];
  if (all.length === 0 || !deps.embedder.forget) return 0;
  try {
    let forgotten = 0;
    for (let start = 0; start < all.length; start += FORGET_CHUNK) {
      forgotten += await deps.embedder.forget(all.slice(start, start + FORGET_CHUNK));
    }
    return forgotten;
  } catch (error) {
    deps.log.error(
      { err: error, erasure: receipt.erasure_id },
      'could not drop the erased texts from the embedding cache',
    );
    receipt.incomplete.push(
      'embedding cache: the embedder could not be reached; the cached vectors of the erased texts (no text) expire with the cache',
    );
    return 0;
  }
}
