import type { Logger } from '@hindsight/logger';
import type { MemoryStore } from './store-port.ts';

/** How long returned ids are gathered before one write records them. */
export const ACCESS_FLUSH_MS = 250;

/**
 * Records `access_count` / `last_accessed_at` for returned memories in batches. One durable write
 * per search (an fsync each with the embedded store) cost more than the search itself and, being
 * synchronous, delayed the next request; gathering the ids of every search in a short window makes
 * it one write per window. Access statistics are best effort: a crash loses at most one window.
 */
export class AccessRecorder {
  /** tenant → memory id → times returned in this window. */
  private pending = new Map<string, Map<string, number>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Pick<MemoryStore, 'recordAccess'>,
    private readonly log: Logger,
    private readonly windowMs = ACCESS_FLUSH_MS,
  ) {}

  record(tenant: string, ids: readonly string[]): void {
    const counts = this.pending.get(tenant) ?? new Map<string, number>();
    for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    this.pending.set(tenant, counts);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => void this.flush(), this.windowMs);
      // Statistics must not keep a stopping process alive.
      this.timer.unref();
    }
  }

  /** Writes what was gathered; `recordAccess` adds 1 per call, so an id returned n times takes n rounds. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = new Map();
    const at = Date.now();
    for (const [tenant, counts] of batch) {
      try {
        for (let round = 1; ; round++) {
          const ids = [...counts].filter(([, n]) => n >= round).map(([id]) => id);
          if (ids.length === 0) break;
          await this.store.recordAccess(tenant, ids, at);
        }
      } catch (error) {
        this.log.error({ err: error, tenant, memories: counts.size }, 'recording memory access failed');
      }
    }
  }
}
