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

  /** Resolves once the flush on its way to the disk now has ended (at once when none is); never rejects. */
  async settled(): Promise<void> {
    await this.inFlight?.catch(() => undefined);
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

/** One write waiting to be applied in the next shared transaction. */
interface WaitingWrite {
  apply: () => void;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit of whole transactions, on top of `GroupSync`. A write that arrives while a WAL flush
 * is on its way to the disk could not be acknowledged by that flush anyway; instead of each such
 * write committing a transaction of its own (and rewriting the same index pages, keyword segment
 * and vector block into the WAL once per write), they wait for that flush to end and are applied
 * together in one transaction; one write that fails (a duplicate, a stale version) is refused
 * alone while the others commit (`applyGroup`). Every
 * write is acknowledged only after a flush begun after that transaction committed, as with
 * `GroupSync` alone: no acknowledged write is lost on a crash, and a write arriving while no flush
 * runs is applied at the end of the event loop's turn, with those that arrived in the same turn.
 */
export class TransactionGroup {
  private waiting: WaitingWrite[] = [];
  private scheduled = false;

  constructor(
    private readonly sync: GroupSync,
    private readonly database: {
      /** Runs `work` as one transaction (BEGIN IMMEDIATE … COMMIT); a throw rolls all of it back. */
      transaction(work: () => void): void;
      /** Runs `work` in a savepoint of the open transaction; a throw rolls back only `work`. */
      savepoint(work: () => void): void;
      /** Whether the transaction is still open (some errors make SQLite roll all of it back). */
      inTransaction(): boolean;
    },
  ) {}

  /** Applies `apply` (synchronous statements) in the next shared transaction; resolves once it is durable. */
  commit(apply: () => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ apply, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      // One turn of the event loop more: the writes whose requests were read in the same turn join.
      void this.sync.settled().then(() => setImmediate(() => this.applyWaiting()));
    });
  }

  private applyWaiting(): void {
    const group = this.waiting;
    this.waiting = [];
    this.scheduled = false;
    const refused = new Map<WaitingWrite, unknown>();
    let committed: WaitingWrite[];
    try {
      committed = this.applyGroup(group, refused);
    } catch (error) {
      // The transaction itself failed (BEGIN or COMMIT): nothing of the group was written.
      for (const write of group) write.reject(refused.get(write) ?? error);
      return;
    }
    for (const [write, error] of refused) write.reject(error);
    if (committed.length === 0) return;
    this.sync.afterCommit().then(
      () => {
        for (const write of committed) write.resolve();
      },
      (error: unknown) => {
        for (const write of committed) write.reject(error);
      },
    );
  }

  /**
   * Applies a group in one transaction and answers the writes it committed (a refused one is in
   * `refused`); throws when the transaction itself failed. The writes run straight in the
   * transaction first, without savepoints: a savepoint copies every page its write changes into a
   * statement journal, and makes FTS5 flush its pending keyword entries into a segment of their own
   * (merged again later), which cost a grouped single write about as much as all of its own
   * statements. Only when a write throws is the transaction rolled back: that write is refused, and
   * the others are applied again, each in a savepoint of its own, so one more failure is refused alone.
   */
  private applyGroup(group: readonly WaitingWrite[], refused: Map<WaitingWrite, unknown>): WaitingWrite[] {
    let failed: { write: WaitingWrite; error: unknown } | undefined;
    try {
      this.database.transaction(() => {
        for (const write of group) {
          try {
            write.apply();
          } catch (error) {
            failed = { write, error };
            throw error;
          }
        }
      });
      return [...group];
    } catch (error) {
      if (!failed) throw error;
    }
    refused.set(failed.write, failed.error);
    const rest = group.filter((write) => write !== failed?.write);
    if (rest.length === 0) return [];
    this.database.transaction(() => {
      for (const write of rest) {
        try {
          this.database.savepoint(write.apply);
        } catch (error) {
          // An error SQLite answered by rolling the whole transaction back ends the group: the
          // next writes must not run outside a transaction.
          if (!this.database.inTransaction()) throw error;
          refused.set(write, error);
        }
      }
    });
    return rest.filter((write) => !refused.has(write));
  }
}
