import { Worker } from 'node:worker_threads';
import type { CandidateQuery, CandidateSet } from '../../../memory/store-port.ts';
import {
  type ReaderMessage,
  type ReaderSetup,
  type ReadRequest,
  reviveError,
  type StoreReads,
  type WorkerCall,
} from './read-protocol.ts';
import type { StageListener } from './store.ts';
import { readWorkerModule } from './worker-module.ts';

/**
 * Each worker's young generation (V8's new space). A search's objects live only while it runs, so
 * a small one is collected as cheaply; left to V8 it grew to 32 MiB per worker under 16 clients
 * (heap 50 MiB against 25 MiB with this limit, the same CPU per search).
 */
const WORKER_YOUNG_GENERATION_MB = 4;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** One worker thread with its own read-only connection, and the calls it has not answered yet. */
class ReadWorker {
  readonly pending = new Map<number, Pending>();
  readonly ready: Promise<void>;
  private readonly worker: Worker;
  private stopped = false;

  constructor(
    module: URL,
    setup: ReaderSetup,
    onLost: (worker: ReadWorker) => void,
    private readonly onStage: StageListener,
  ) {
    // No inherited flags: the module is plain JavaScript (worker-module.ts), whatever started this process.
    this.worker = new Worker(module, {
      workerData: setup,
      execArgv: [],
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    });
    // The serving store decides the process's lifetime (it closes the pool), never an idle worker.
    this.worker.unref();
    let serving = false;
    const lost = (error: Error) => {
      this.fail(error);
      // Only a worker that served is replaced: one that could not open the file would fail again.
      if (serving && !this.stopped) onLost(this);
      serving = false;
    };
    this.ready = new Promise<void>((resolve, reject) => {
      this.worker.on('message', (message: ReaderMessage) => {
        if (message.kind === 'ready') {
          serving = true;
          resolve();
        } else if (message.kind === 'failed') reject(reviveError(message.error));
        else this.settle(message);
      });
      this.worker.once('error', (error) => {
        reject(error);
        lost(error);
      });
      this.worker.once('exit', (code) => {
        const error = new Error(`a store read worker stopped (exit code ${code})`);
        reject(error);
        lost(error);
      });
    });
    // A worker that never became ready is reported by the pool's start or by the call waiting on it.
    this.ready.catch(() => undefined);
  }

  /**
   * Counts among this worker's calls at once (the pool picks the least busy worker by them, so
   * calls made in the same tick spread over the workers), sent once the worker is ready.
   */
  send(request: Extract<ReadRequest, { kind: 'call' }>, vector?: Promise<Float32Array | undefined>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.pending.set(request.id, { resolve, reject });
      this.ready.then(
        () => {
          // A worker lost before it was ready has failed the call already.
          if (!this.pending.has(request.id)) return;
          this.worker.postMessage(request);
          // The worker holds the call until its vector comes.
          void vector?.then(
            (value) => this.post({ kind: 'vector', id: request.id, vector: value }),
            () => this.post({ kind: 'vector', id: request.id, vector: undefined }),
          );
        },
        (error: Error) => {
          this.pending.delete(request.id);
          reject(error);
        },
      );
    });
  }

  private post(message: ReadRequest): void {
    if (this.pending.has(message.id)) this.worker.postMessage(message);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.fail(new Error('the store is closing'));
    await this.worker.terminate();
  }

  private settle(message: Extract<ReaderMessage, { id: number }>): void {
    if (message.kind === 'answer' && message.stages) {
      for (const [stage, seconds] of message.stages) this.onStage(stage, seconds);
    }
    const call = this.pending.get(message.id);
    if (!call) return;
    this.pending.delete(message.id);
    if (message.kind === 'answer') call.resolve(message.value);
    else call.reject(reviveError(message.error));
  }

  private fail(error: Error): void {
    for (const call of this.pending.values()) call.reject(error);
    this.pending.clear();
  }
}

/**
 * Worker threads, each with its own read-only connection to the store's file, answering the store's
 * reads off the event loop: better-sqlite3 is synchronous, so a search run on the serving
 * connection blocks every other request for its whole duration, and only one core works. A call
 * goes to the worker with the fewest calls waiting. A worker that dies fails its waiting calls and
 * is replaced.
 */
export class SqliteReadPool {
  private readonly workers: ReadWorker[] = [];
  private nextId = 0;
  private lastChosen = -1;
  private closing = false;
  private stageListener: StageListener | undefined;

  private constructor(
    private readonly module: URL,
    private readonly setup: ReaderSetup,
    size: number,
  ) {
    for (let i = 0; i < size; i++) this.workers.push(this.spawn());
  }

  /** Starts `size` workers and waits until each has its connection open (or one failed to open it). */
  static async start(setup: ReaderSetup, size: number): Promise<SqliteReadPool> {
    if (size < 1) throw new Error('a read pool needs at least one worker');
    const pool = new SqliteReadPool(await readWorkerModule(), setup, size);
    try {
      await Promise.all(pool.workers.map((w) => w.ready));
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  get size(): number {
    return this.workers.length;
  }

  /** Hears the search steps the workers timed (`SqliteMemoryStore.onStage` in each). */
  onStage(listener: StageListener): void {
    this.stageListener = listener;
  }

  call<M extends Exclude<WorkerCall, 'searchCandidates'>>(
    method: M,
    args: Parameters<StoreReads[M]>,
  ): ReturnType<StoreReads[M]> {
    if (this.closing) return Promise.reject(new Error('store is not open')) as ReturnType<StoreReads[M]>;
    return this.leastBusy().send({ kind: 'call', id: this.nextId++, method, args }) as ReturnType<StoreReads[M]>;
  }

  /**
   * One search's store part on one worker, in one round trip: the worker looks for keyword
   * candidates at once and finishes when the query vector, sent after the call, comes.
   */
  searchCandidates(query: CandidateQuery): Promise<CandidateSet> {
    if (this.closing) return Promise.reject(new Error('store is not open'));
    const { vector, ...rest } = query;
    const call = { kind: 'call' as const, id: this.nextId++, method: 'searchCandidates' as const, args: [rest] };
    return this.leastBusy().send(call, vector) as Promise<CandidateSet>;
  }

  /**
   * The worker with the fewest calls waiting; among equals, the next one after the last chosen, so
   * calls that come one at a time (a single client) take turns instead of all going to the first
   * worker while the others' connections stay cold.
   */
  private leastBusy(): ReadWorker {
    const count = this.workers.length;
    let chosenAt = (this.lastChosen + 1) % count;
    for (let step = 1; step < count; step++) {
      const at = (this.lastChosen + 1 + step) % count;
      if ((this.workers[at] as ReadWorker).pending.size < (this.workers[chosenAt] as ReadWorker).pending.size) {
        chosenAt = at;
      }
    }
    this.lastChosen = chosenAt;
    return this.workers[chosenAt] as ReadWorker;
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((w) => w.stop()));
  }

  private spawn(): ReadWorker {
    return new ReadWorker(
      this.module,
      this.setup,
      (dead) => {
        if (this.closing) return;
        const at = this.workers.indexOf(dead);
        if (at >= 0) this.workers[at] = this.spawn();
      },
      (stage, seconds) => this.stageListener?.(stage, seconds),
    );
  }
}
