import { parentPort, workerData } from 'node:worker_threads';
import type { CandidateQuery } from '../../../memory/store-port.ts';
import {
  ACCESS_WRITES,
  POOLED_READS,
  type ReaderMessage,
  type ReaderSetup,
  type ReadRequest,
  serialiseError,
  type WorkerCall,
} from './read-protocol.ts';
import { type SearchStage, SqliteMemoryStore } from './store.ts';

/**
 * One read worker: the serving store's file opened read-only by the same adapter, answering the
 * pool's calls one at a time (better-sqlite3 is synchronous, so each runs to completion).
 */
const port = parentPort;
if (!port) throw new Error('read-worker.ts runs as a worker thread of the read pool');
const setup = workerData as ReaderSetup;
const store = new SqliteMemoryStore(setup.path, setup.options);
const reply = (message: ReaderMessage) => port.postMessage(message);
const allowed = new Set<string>(setup.role === 'access' ? ACCESS_WRITES : POOLED_READS);
/** Search steps timed since the last answer: they go to the pool with the next one (its /metrics). */
let stages: Array<[SearchStage, number]> = [];
store.onStage((stage, seconds) => stages.push([stage, seconds]));
/** An answer, with the steps timed since the last one. */
function answer(id: number, value: unknown): ReaderMessage {
  if (stages.length === 0) return { kind: 'answer', id, value };
  const timed = stages;
  stages = [];
  return { kind: 'answer', id, value, stages: timed };
}

/** The query vectors of `searchCandidates` calls still waiting for theirs, by call id. */
const vectors = new Map<number, (vector: Float32Array | undefined) => void>();

/** A call's arguments as the store takes them: a search's query gets its vector as a promise the pool settles. */
function argumentsOf(request: Extract<ReadRequest, { kind: 'call' }>): unknown[] {
  if (request.method !== 'searchCandidates') return request.args;
  const vector = new Promise<Float32Array | undefined>((resolve) => vectors.set(request.id, resolve));
  return [{ ...(request.args[0] as Omit<CandidateQuery, 'vector'>), vector }];
}

try {
  // The access worker opens the file as a writer after the serving store has migrated it (nothing is left to migrate).
  await (setup.role === 'access' ? store.open(setup.space) : store.openReader(setup.space));
  port.on('message', async (request: ReadRequest) => {
    if (request.kind === 'vector') {
      vectors.get(request.id)?.(request.vector);
      vectors.delete(request.id);
      return;
    }
    const { id, method } = request;
    try {
      if (!allowed.has(method)) throw new Error(`${method} is not a call of this worker`);
      const read = store[method as WorkerCall] as (...a: unknown[]) => Promise<unknown>;
      reply(answer(id, await read.apply(store, argumentsOf(request))));
    } catch (error) {
      reply({ kind: 'error', id, error: serialiseError(error) });
    } finally {
      vectors.delete(id);
    }
  });
  reply({ kind: 'ready' });
} catch (error) {
  reply({ kind: 'failed', error: serialiseError(error) });
}
