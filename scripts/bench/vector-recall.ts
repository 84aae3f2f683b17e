import { join } from 'node:path';
import type { Embedder } from '@hindsight/embedding';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import {
  EXACT_RESCORE_MARGIN,
  preparedOnce,
  SqliteVectors,
  vectorScope,
} from '../../services/memory-api/src/adapters/store/sqlite/vectors.ts';
import { type LatencyFigures, summariseLatency } from './http-client.ts';

export interface VectorRecallFigures {
  /** Share of the exact top 10 that the store's k-NN (int8, by code first for a large owner; rescored) returns in its top 10. */
  recallAt10: number;
  /** The store's k-NN of one owner's 10 nearest (int8 ranking, by code first for a large owner; exact rescoring). */
  quantised: LatencyFigures;
  /** The floor it replaces: cosine over every exact vector of the owner. */
  exact: LatencyFigures;
}

/**
 * The embedded store's k-NN against an exact brute-force scan of the same owner, on memory-api's
 * own file (opened read-only here, beside the running service): how much of the exact top 10 the
 * quantised search keeps, and what each costs.
 */
export async function measureVectorRecall(options: {
  dataDir: string;
  embedder: Embedder;
  tenant?: string;
  userId: string;
  queries: readonly string[];
}): Promise<VectorRecallFigures> {
  const db = new Database(join(options.dataDir, 'memory.db'), { readonly: true, fileMustExist: true });
  try {
    sqliteVec.load(db);
    db.pragma('mmap_size = 268435456');
    const table = db.prepare("SELECT value FROM store_meta WHERE key = 'vector_table'").pluck().get() as string;
    const vectors = new SqliteVectors(preparedOnce(db), table, options.embedder.dimension);
    const owner = vectorScope(options.tenant ?? 'default', options.userId);
    const quantised: number[] = [];
    const exact: number[] = [];
    let kept = 0;
    let wanted = 0;
    const started = performance.now();
    for (const query of options.queries) {
      const [vector] = (await options.embedder.embed([query])) as [Float32Array];
      const t0 = performance.now();
      // As vectorSearch asks: int8 ranking, the first ones rescored exactly.
      const asked = 10 + EXACT_RESCORE_MARGIN;
      const found = vectors.rescore(vectors.nearest(owner, vector, asked), vector, asked).slice(0, 10);
      const t1 = performance.now();
      const truth = vectors.nearestExact(owner, vector, 10);
      const t2 = performance.now();
      quantised.push(t1 - t0);
      exact.push(t2 - t1);
      const foundRowids = new Set(found.map((n) => n.rowid));
      kept += truth.filter((n) => foundRowids.has(n.rowid)).length;
      wanted += truth.length;
    }
    const seconds = (performance.now() - started) / 1000;
    return {
      recallAt10: wanted === 0 ? 0 : kept / wanted,
      quantised: summariseLatency(quantised, 1, seconds),
      exact: summariseLatency(exact, 1, seconds),
    };
  } finally {
    db.close();
  }
}
