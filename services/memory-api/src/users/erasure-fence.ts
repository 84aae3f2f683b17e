import { UserErasedError } from '@hindsight/errors';
import type { MemoryStore } from '../memory/store-port.ts';
import type { ConsolidationQueue } from '../working/port.ts';

export interface ErasureFenceDeps {
  store: Pick<MemoryStore, 'listErasures'>;
  queue: Pick<ConsolidationQueue, 'jobOrigin'>;
}

/**
 * The erasure fence (DESIGN §9): a write made on behalf of a job (the worker names it in
 * `X-Hindsight-Job`) is refused when its user was erased after the job was enqueued — or when
 * the job no longer exists and the user was erased (the erase removed it while it ran). So a
 * consolidation or profile refresh running during an erase cannot write the user back. Writes
 * for the user made afterwards by anything else (the user came back) are not affected.
 */
export async function assertJobMayWrite(
  deps: ErasureFenceDeps,
  tenant: string,
  jobId: string,
  users: ReadonlyArray<string | undefined>,
): Promise<void> {
  const origin = await deps.queue.jobOrigin(jobId);
  // A job that no longer exists predates every erase: any erase of its user fences it.
  const enqueuedAt = origin?.createdAt ?? Number.NEGATIVE_INFINITY;
  for (const userId of new Set([origin?.userId, ...users])) {
    if (userId === undefined) continue;
    const [latest] = (await deps.store.listErasures(tenant, { userId }, 1)).items;
    if (latest && Date.parse(latest.requested_at) >= enqueuedAt) throw new UserErasedError(userId);
  }
}
