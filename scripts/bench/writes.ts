import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { JsonClient, measureLatency } from './http-client.ts';
import { startSuite } from './suite.ts';
import { Workload } from './workload.ts';

/**
 * The write path alone, through HTTP, in the default topology (memory-api + the embedder service,
 * as `npm start` wires them; `--in-process-embedder` for memory-api embedding itself): seed the
 * store once with batched ingest, then single `/store` writes from 1 and from `--writers`
 * concurrent writers, then batched ingest (`POST /v1/memories` with `--batch-size` items, 100 by
 * default; `npm run bench` sends 1,000) of `--batched` memories; the seed is batched the same way. `--profile DIR` writes memory-api's CPU profile there on shutdown (cpu-profile.cjs).
 *
 *   npx tsx scripts/bench/writes.ts [--seed 10000] [--single 4000] [--writers 16] [--batched 100000] [--batch-size 100]
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '10000' },
      single: { type: 'string', default: '4000' },
      writers: { type: 'string', default: '16' },
      batched: { type: 'string', default: '100000' },
      users: { type: 'string', default: '100' },
      'batch-size': { type: 'string', default: '100' },
      profile: { type: 'string' },
      'in-process-embedder': { type: 'boolean' },
    },
  });
  const count = (name: keyof typeof values) => {
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} takes a whole number, not "${values[name]}"`);
    return value;
  };
  const [seed, singles, writers, batchedTotal, users, batchSize] = [
    count('seed'),
    count('single'),
    count('writers'),
    count('batched'),
    count('users'),
    count('batch-size'),
  ];
  if (batchSize < 1 || batchSize > 1000)
    throw new Error(`--batch-size takes 1 to 1000 (a batch's limit), not ${batchSize}`);
  const suite = await startSuite({
    placement: values['in-process-embedder'] ? 'in-process' : 'service',
    embeddingEnv: { EMBEDDINGS_PROVIDER: 'builtin', EMBEDDINGS_DIM: '512' },
    storeEnv: { VECTOR_STORE: 'sqlite' },
    ...(values.profile
      ? {
          memoryApiEnv: {
            NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${join(import.meta.dirname, 'cpu-profile.cjs')}`,
            CPU_PROFILE_DIR: resolve(values.profile),
          },
        }
      : {}),
  });
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const workload = new Workload(users);
  const client = new JsonClient(suite.memoryApi.url, {}, Math.max(writers, 1));
  let serial = 0;
  const batch = (size: number) => ({
    items: Array.from({ length: size }, () => ({ content: workload.memory(serial++), user_id: workload.randomUser() })),
  });
  const batchedIngest = async (total: number) => {
    const t0 = performance.now();
    for (let done = 0; done < total; done += batchSize) {
      await client.post('/v1/memories', batch(Math.min(batchSize, total - done)));
    }
    return total / ((performance.now() - t0) / 1000);
  };
  const single = () => client.post('/store', { content: workload.memory(serial++), user_id: workload.randomUser() });
  try {
    log(`topology: ${suite.description}`);
    await batchedIngest(seed);
    log(`seeded ${seed} memories over ${users} users`);
    const one = await measureLatency(single, { requests: Math.ceil(singles / 4), concurrency: 1, warmup: 20 });
    log(`single /store, 1 writer: ${one.throughput.toFixed(0)}/s (p50 ${one.p50} ms, p95 ${one.p95} ms)`);
    const many = await measureLatency(single, { requests: singles, concurrency: writers, warmup: 20 });
    log(`single /store, ${writers} writers: ${many.throughput.toFixed(0)}/s (p50 ${many.p50} ms, p95 ${many.p95} ms)`);
    if (batchedTotal > 0) {
      const perSecond = await batchedIngest(batchedTotal);
      log(`batched ingest (${batchSize}/request), ${batchedTotal} memories: ${perSecond.toFixed(0)}/s`);
    }
  } finally {
    client.close();
    await suite.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
