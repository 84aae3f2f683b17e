import type { EraseUserResponse } from '@hindsight/memory-model';
import { forgetMemories, type ManageDeps } from '../memory/manage.ts';
import type { ConsolidationQueue, WorkingMemoryStore } from '../working/port.ts';

export interface EraseDeps {
  manage: ManageDeps;
  working: WorkingMemoryStore;
  queue: ConsolidationQueue;
}

/**
 * Erases everything one user left in a tenant (DESIGN §8): queued jobs first, so no
 * pending consolidation writes the user back, then working memory, then the
 * long-term store (profile summary included). A consolidation already running
 * cannot be stopped; erase again after it finishes.
 */
export async function eraseUser(deps: EraseDeps, tenant: string, userId: string): Promise<EraseUserResponse> {
  const jobs = await deps.queue.removeJobsOf(tenant, { userId });
  const sessions = await deps.working.deleteUser(tenant, userId);
  const { count } = await forgetMemories(deps.manage, tenant, { user_id: userId, dry_run: false });
  return { user_id: userId, memories: count, sessions: sessions.length, jobs };
}
