import { open } from 'node:fs/promises';

/**
 * Group commit for the serving connection. Commits run with `synchronous = NORMAL` (written to the
 * WAL, not yet flushed: a killed process loses nothing, a lost machine could lose the newest), and
 * each write is acknowledged only after a flush of the WAL that began after its commit. Flushes run
 * on libuv's thread pool, off the event loop, so while one is on its way to the disk the next
 * writes commit and all wait for one shared next flush: N writers that arrive together cost one
 * fsync, not N (one fsync each held single writes to ~500/s). A reader may see a commit during the
 * few milliseconds before its flush ends; only a machine crash in that window loses it, and then it
 * was never acknowledged.
 */
export class GroupSync {
  private inFlight: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private flushes = 0;

  constructor(private readonly flush: () => Promise<void>) {}

  /** Resolves once a flush that started after this call has finished (rejects if that flush failed). */
  afterCommit(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.inFlight) return this.start();
    const running = this.inFlight;
    const queued = running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.start();
      });
    this.queued = queued;
    return queued;
  }

  /** Flushes started so far (for tests and metrics). */
  get flushCount(): number {
    return this.flushes;
  }

  private start(): Promise<void> {
    this.flushes++;
    const run: Promise<void> = this.flush().finally(() => {
      if (this.inFlight === run) this.inFlight = undefined;
    });
    this.inFlight = run;
    return run;
  }
}

/** Flushes a database's WAL file to the disk (nothing to flush when it has none, as an in-memory store). */
export function walFlusher(databasePath: string): () => Promise<void> {
  const walPath = `${databasePath}-wal`;
  return async () => {
    if (databasePath === ':memory:') return;
    let file: Awaited<ReturnType<typeof open>>;
    try {
      file = await open(walPath, 'r');
    } catch (error) {
      // No WAL yet (nothing was written since the last checkpoint truncated and removed it).
      if ((error as { code?: string }).code === 'ENOENT') return;
      throw error;
    }
    try {
      await file.datasync();
    } finally {
      await file.close();
    }
  };
}
