/**
 * Serialises the decide-and-commit step for one owner — a (tenant, user) pair — across every
 * replica: dedup, merge, supersede, the profile summary, PATCH and restore read an owner's
 * memories, decide, and commit; under this lock no other writer for that owner decides in
 * between. The store's version check at commit stays the last line of defence (a holder that
 * stalled past its lease), so the lock keeps conflicts rare rather than being the only guard.
 *
 * Implementations must be shared by every replica (Redis), never in-process.
 */
export interface OwnerLock {
  /**
   * Runs `work` while holding the lock of each given user of `tenant` (all at once, so two
   * batches over overlapping owners cannot deadlock). Waits a bounded time for a held lock and
   * then throws `BusyError`; an unreachable lock service is `DependencyUnavailableError`.
   */
  hold<T>(tenant: string, userIds: readonly string[], work: () => Promise<T>): Promise<T>;
}
