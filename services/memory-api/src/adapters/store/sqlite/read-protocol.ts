import { AppError } from '@hindsight/errors';
import type { EmbeddingSpace, MemoryStore } from '../../../memory/store-port.ts';
import type { SearchStage, SqliteMemoryStore, SqliteStoreOptions } from './store.ts';

/**
 * The store calls a read worker answers: each reads only, and each is one statement or a few on
 * one connection, so a worker's answer is what the serving connection would have read at that
 * moment (WAL: a read starts from the last commit, and a commit is acknowledged only once done).
 * Point lookups by a unique key (`get`, `findActiveByHash`: ~10 µs) stay on the serving
 * connection: a round trip to a worker costs more than they do, and a batch write asks one per item.
 */
export const POOLED_READS = [
  'searchCandidates',
  'getMany',
  'list',
  'listIds',
  'count',
  'vectorSearch',
  'keywordSearch',
  'similarities',
  'countByLayer',
  'countByUser',
  'listErasures',
] as const;
export type PooledRead = (typeof POOLED_READS)[number];
/**
 * What the access worker writes (`role: 'access'`): access statistics, the one write memory-api
 * makes on every search, gathered by the AccessRecorder and written off the event loop on a
 * connection of its own (an update of a few hundred rows took 5–8 ms of the loop, up to 77 ms);
 * and the WAL's checkpoints, which the serving connection leaves to it (`checkpointsElsewhere`).
 */
export const ACCESS_WRITES = ['recordAccess', 'checkpoint'] as const;
export type WorkerCall = PooledRead | (typeof ACCESS_WRITES)[number];
export type StoreReads = Pick<MemoryStore, Exclude<WorkerCall, 'checkpoint'>> & Pick<SqliteMemoryStore, 'checkpoint'>;

/** What a read worker opens: the serving store's file, settings and space. */
export interface ReaderSetup {
  path: string;
  options: SqliteStoreOptions;
  space: EmbeddingSpace;
  /** `reads`: a read-only connection answering POOLED_READS; `access`: a writing one answering ACCESS_WRITES. */
  role: 'reads' | 'access';
}

/** Worker → pool. */
export type ReaderMessage =
  | { kind: 'ready' }
  | { kind: 'failed'; error: SerialisedError }
  | { kind: 'answer'; id: number; value: unknown; stages?: Array<[SearchStage, number]> }
  | { kind: 'error'; id: number; error: SerialisedError };

/**
 * Pool → worker: a call, or the query vector of a `searchCandidates` call already sent (its
 * `CandidateQuery` crosses without its `vector` promise, which this message settles).
 */
export type ReadRequest =
  | { kind: 'call'; id: number; method: WorkerCall; args: unknown[] }
  | { kind: 'vector'; id: number; vector: Float32Array | undefined };

/** An error across the thread boundary: a typed one keeps its code and status (a bad cursor stays a 400). */
export interface SerialisedError {
  name: string;
  message: string;
  app?: { code: string; status: number; details?: AppError['details'] };
}

export function serialiseError(error: unknown): SerialisedError {
  if (error instanceof AppError) {
    return {
      name: error.name,
      message: error.message,
      app: { code: error.code, status: error.status, ...(error.details ? { details: error.details } : {}) },
    };
  }
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

export function reviveError(error: SerialisedError): Error {
  const revived = error.app
    ? new AppError(error.app.code, error.app.status, error.message, error.app.details)
    : new Error(error.message);
  revived.name = error.name;
  return revived;
}
