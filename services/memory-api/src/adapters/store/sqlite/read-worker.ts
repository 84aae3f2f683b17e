import { parentPort, workerData } from 'node:worker_threads';
import {
  POOLED_READS,
  type PooledRead,
  type ReaderMessage,
  type ReaderSetup,
  type ReadRequest,
  serialiseError,
} from './read-pool.ts';
import { SqliteMemoryStore } from './store.ts';

/**
 * One read worker: the serving store's file opened read-only by the same adapter, answering the
 * pool's calls one at a time (better-sqlite3 is synchronous, so each runs to completion).
 */
const port = parentPort;
if (!port) throw new Error('read-worker.ts runs as a worker thread of the read pool');
const setup = workerData as ReaderSetup;
const store = new SqliteMemoryStore(setup.path, setup.options);
const reply = (message: ReaderMessage) => port.postMessage(message);
const allowed = new Set<string>(POOLED_READS);

try {
  await store.openReader(setup.space);
  port.on('message', async ({ id, method, args }: ReadRequest) => {
    try {
      if (!allowed.has(method)) throw new Error(`${method} is not a read`);
      const read = store[method as PooledRead] as (...a: unknown[]) => Promise<unknown>;
      reply({ kind: 'answer', id, value: await read.apply(store, args) });
    } catch (error) {
      reply({ kind: 'error', id, error: serialiseError(error) });
    }
  });
  reply({ kind: 'ready' });
} catch (error) {
  reply({ kind: 'failed', error: serialiseError(error) });
}
