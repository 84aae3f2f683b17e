import { join } from 'node:path';
import type { Embedder } from '@hindsight/embedding';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import {
  EXACT_RESCORE_MARGIN,
  type Neighbour,
  nearestMethod,
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
  /**
   * The floor it replaces: sqlite-vec's float32 cosine in C over every exact vector of the owner
   * (copied once into a temporary table of this connection), its 10 nearest.
   */
  exact: LatencyFigures;
  /** What the store's k-NN does for this owner (vectors.ts `nearestMethod`). */
  method: string;
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
    // As vectorSearch asks: int8 ranking, the first ones rescored exactly.
    const asked = 10 + EXACT_RESCORE_MARGIN;
    // The exact floor in C: the owner's exact vectors as float32 in a temporary table (the file stays read-only).
    db.exec('CREATE TEMP TABLE owner_exact (rowid INTEGER PRIMARY KEY, vector BLOB NOT NULL)');
    const insert = db.prepare('INSERT INTO temp.owner_exact (rowid, vector) VALUES (?, ?)');
    db.transaction(() => {
      for (const { rowid, vector } of vectors.exactVectors(owner)) {
        insert.run(rowid, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
      }
    })();
    const exactScan = db.prepare(
      'SELECT rowid, vec_distance_cosine(vector, ?) AS distance FROM temp.owner_exact ORDER BY distance, rowid LIMIT 10',
    );
    const quantised: number[] = [];
    const exact: number[] = [];
    let kept = 0;
    let wanted = 0;
    const started = performance.now();
    for (const query of options.queries) {
      const [vector] = (await options.embedder.embed([query])) as [Float32Array];
      const t0 = performance.now();
      const found = vectors.rescore(owner, vectors.nearest(owner, vector, asked), vector, asked).slice(0, 10);
      const t1 = performance.now();
      const truth = exactScan.all(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength)) as Neighbour[];
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
      method: nearestMethod(vectors.ownerSize(owner), asked),
    };
  } finally {
    db.close();
  }
}
