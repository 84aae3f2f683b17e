/**
 * npx tsx scripts/bench/knn.ts [--owners 100] [--per-owner 1000] [--heavy 100000] [--dim 512] [--queries 200] [--keep dir]
 *
 * The embedded store's k-NN alone, without memory-api: a SQLite file written through the store's
 * own commit (owners' memories interleaved as real use writes them, then one heavy owner's), the
 * bench's synthetic memories and queries embedded by the built-in embedder in process. Reports
 * for small owners and for the heavy one `vectorSearch` latency (as `/retrieve` asks it: 40
 * neighbours) on the serving connection and through a read worker, recall@10 of the float32
 * exact ranking (kept here in memory, not read back from the store), and bytes per memory.
 * The focused measurement behind vectors.ts; `npm run bench` measures the whole service.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BuiltinEmbedder } from '@hindsight/embedding';
import { PooledSqliteStore } from '../../services/memory-api/src/adapters/store/sqlite/pooled-store.ts';
import { SqliteMemoryStore } from '../../services/memory-api/src/adapters/store/sqlite/store.ts';
import { newMemoryRecord } from '../../services/memory-api/src/memory/new-record.ts';
import type { MemoryStore, SearchScope } from '../../services/memory-api/src/memory/store-port.ts';
import { type LatencyFigures, summariseLatency } from './http-client.ts';
import { Workload } from './workload.ts';

const TENANT = 'default';
const HEAVY_OWNER = 'bench-heavy-owner';
/** Neighbours one `/retrieve` asks of the store (top_k 10 × candidate factor 4). */
const ASKED = 40;
const BATCH = 1000;

interface OwnerTruth {
  ids: string[];
  vectors: Float32Array[];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      owners: { type: 'string', default: '100' },
      'per-owner': { type: 'string', default: '1000' },
      heavy: { type: 'string', default: '100000' },
      dim: { type: 'string', default: '512' },
      queries: { type: 'string', default: '200' },
      /** Keep the store here (a new directory) instead of a temporary one removed at the end. */
      keep: { type: 'string' },
    },
  });
  const owners = Number(values.owners);
  const perOwner = Number(values['per-owner']);
  const heavy = Number(values.heavy);
  const dimension = Number(values.dim);
  const queryCount = Number(values.queries);
  const embedder = new BuiltinEmbedder({ dimension });
  const space = { model: embedder.model, dimension };
  const workload = new Workload(owners);
  const dir = values.keep ?? (await mkdtemp(join(tmpdir(), 'hindsight-knn-')));
  const path = join(dir, 'memory.db');
  const log = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const truth = new Map<string, OwnerTruth>();
    const store = new SqliteMemoryStore(path);
    await store.open(space);
    const t0 = performance.now();
    let serial = 0;
    const fill = async (count: number, owner: () => string) => {
      for (let done = 0; done < count; ) {
        const size = Math.min(BATCH, count - done);
        const items = Array.from({ length: size }, () => ({ content: workload.memory(serial++), userId: owner() }));
        const vectors = (await embedder.embed(items.map((i) => i.content))) as Float32Array[];
        const inserts = items.map((item, i) => {
          const record = newMemoryRecord(
            {
              tenant: TENANT,
              user_id: item.userId,
              layer: 'semantic',
              category: 'fact',
              content: item.content,
              confidence: 0.9,
              source: { kind: 'api' },
              embedding_model: space.model,
            },
            new Date().toISOString(),
          );
          const known = truth.get(item.userId) ?? { ids: [], vectors: [] };
          known.ids.push(record.id);
          known.vectors.push(vectors[i] as Float32Array);
          truth.set(item.userId, known);
          return { record, vector: vectors[i] as Float32Array };
        });
        await store.commit({ inserts, updates: [] });
        done += size;
      }
    };
    await fill(owners * perOwner, () => workload.randomUser());
    if (heavy > 0) await fill(heavy, () => HEAVY_OWNER);
    const memories = serial;
    await store.close();
    log(
      `filled ${memories} memories (${owners} owners × ~${perOwner}, heavy owner ${heavy}) in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
    const bytes =
      (await stat(path)).size +
      (await stat(`${path}-wal`).then(
        (s) => s.size,
        () => 0,
      ));
    log(
      `disk: ${(bytes / memories).toFixed(0)} bytes per memory (${(bytes / 2 ** 20).toFixed(1)} MiB, ${dimension}-d)`,
    );

    const smallQueries = await queriesFor(embedder, workload, queryCount, () => workload.randomUser());
    const heavyQueries =
      heavy > 0 ? await queriesFor(embedder, workload, Math.min(queryCount, 100), () => HEAVY_OWNER) : [];
    const single = new SqliteMemoryStore(path, { searchesInPool: false });
    await single.open(space);
    try {
      report(log, 'small owners, serving connection', await measure(single, smallQueries, truth));
      if (heavy > 0)
        report(log, `heavy owner (${heavy}), serving connection`, await measure(single, heavyQueries, truth));
    } finally {
      await single.close();
    }
    const pooled = new PooledSqliteStore(path, {}, 1);
    await pooled.open(space);
    try {
      report(log, 'small owners, read worker', await measure(pooled, smallQueries, truth));
      if (heavy > 0) report(log, `heavy owner (${heavy}), read worker`, await measure(pooled, heavyQueries, truth));
    } finally {
      await pooled.close();
    }
  } finally {
    if (values.keep === undefined) await rm(dir, { recursive: true, force: true });
  }
}

interface Query {
  userId: string;
  vector: Float32Array;
}

async function queriesFor(
  embedder: BuiltinEmbedder,
  workload: Workload,
  count: number,
  owner: () => string,
): Promise<Query[]> {
  const texts = Array.from({ length: count }, () => workload.query());
  const vectors = (await embedder.embed(texts)) as Float32Array[];
  return vectors.map((vector) => ({ userId: owner(), vector }));
}

async function measure(
  store: MemoryStore,
  queries: readonly Query[],
  truth: ReadonlyMap<string, OwnerTruth>,
): Promise<{ latency: LatencyFigures; recallAt10: number; topExact: number }> {
  const scope = (userId: string): SearchScope => ({ tenant: TENANT, userId, statuses: ['active'] });
  for (const q of queries.slice(0, 20)) await store.vectorSearch(scope(q.userId), q.vector, ASKED);
  const samples: number[] = [];
  let kept = 0;
  let wanted = 0;
  let topExact = 0;
  const started = performance.now();
  for (const q of queries) {
    const t0 = performance.now();
    const hits = await store.vectorSearch(scope(q.userId), q.vector, ASKED);
    samples.push(performance.now() - t0);
    const exact = exactTop(truth.get(q.userId) as OwnerTruth, q.vector, 10);
    const found = new Set(hits.slice(0, 10).map((h) => h.id));
    kept += exact.filter((id) => found.has(id)).length;
    wanted += exact.length;
    if (hits[0]?.id === exact[0]) topExact++;
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    latency: summariseLatency(samples, 1, seconds),
    recallAt10: kept / wanted,
    topExact: topExact / queries.length,
  };
}

/** The ids of the owner's `k` nearest memories by float32 cosine (the vectors as embedded). */
function exactTop(owner: OwnerTruth, query: Float32Array, k: number): string[] {
  const scored = owner.vectors.map((v, i) => {
    let dot = 0;
    let norm = 0;
    for (let j = 0; j < v.length; j++) {
      dot += (v[j] as number) * (query[j] as number);
      norm += (v[j] as number) * (v[j] as number);
    }
    return { i, similarity: dot / Math.sqrt(norm) };
  });
  scored.sort((a, b) => b.similarity - a.similarity);
  return scored.slice(0, k).map((s) => owner.ids[s.i] as string);
}

function report(
  log: (line: string) => void,
  label: string,
  { latency, recallAt10, topExact }: { latency: LatencyFigures; recallAt10: number; topExact: number },
): void {
  log(
    `${label}: vectorSearch(${ASKED}) p50 ${latency.p50.toFixed(2)} ms, p95 ${latency.p95.toFixed(2)} ms, mean ${latency.mean.toFixed(2)} ms; recall@10 of float32 exact ${recallAt10.toFixed(3)}, exact top result ${(topExact * 100).toFixed(1)} %`,
  );
}

await main();
