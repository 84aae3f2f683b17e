/**
 * tsx scripts/bench/retrieve-focus.ts --seed-dir DIR [--memories 100000] [--requests 1000]
 *   [--concurrent 1600] [--mixed 8000] [--env NAME=VALUE ...] [--json path]
 *
 * `/retrieve` alone, through HTTP in the default topology (memory-api + the embedder service, as
 * `npm start` wires them), in a minute or two: the bench's 100,000 memories over 100 users are
 * written once into `--seed-dir`/<built-in model> (reused when it holds a store), copied for every run, and each run
 * measures one client, 16 clients and issue 18's mixed load (32 clients; `--mixed 0` skips it), each
 * phase with queries of its own, memory-api's RSS after the /retrieve phases and after the mixed
 * load, and the per-stage breakdown from memory-api's /metrics. `--env` sets a memory-api variable
 * for the run (SQLITE_READ_WORKERS=1 …).
 */
import { cp, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BuiltinEmbedder } from '@hindsight/embedding';
import { round } from '../eval/scoring.ts';
import { JsonClient, type LatencyFigures, measureLatency } from './http-client.ts';
import { measureMixedLoad } from './mixed-load.ts';
import { breakdown, mib, readCpuMs, readRss, scrape } from './service-figures.ts';
import { type BenchSuite, startSuite } from './suite.ts';
import { Workload } from './workload.ts';

const USERS = 100;
const TOP_K = 10;
const WARMUP = 100;
const CONCURRENCY = 16;
const MIXED_CONCURRENCY = 32;
const EMBEDDING_ENV = { EMBEDDINGS_PROVIDER: 'builtin', EMBEDDINGS_DIM: '512' };

const { values } = parseArgs({
  options: {
    'seed-dir': { type: 'string' },
    memories: { type: 'string' },
    requests: { type: 'string' },
    concurrent: { type: 'string' },
    mixed: { type: 'string' },
    env: { type: 'string', multiple: true },
    json: { type: 'string' },
  },
});
if (!values['seed-dir']) throw new Error('--seed-dir is required');
// A store keeps the model its vectors came from: one seed per built-in model, so a new default re-seeds.
const seedDir = join(resolve(values['seed-dir']), new BuiltinEmbedder({ dimension: 512 }).model);
const memories = Number(values.memories ?? 100_000);
const requests = Number(values.requests ?? 1000);
const concurrentRequests = Number(values.concurrent ?? 1600);
const mixedRequests = Number(values.mixed ?? 8000);
const runEnv: Record<string, string> = {};
for (const pair of values.env ?? []) {
  const at = pair.indexOf('=');
  if (at < 1) throw new Error(`--env takes NAME=VALUE, not "${pair}"`);
  runEnv[pair.slice(0, at)] = pair.slice(at + 1);
}
const log = (line: string) => process.stdout.write(`${line}\n`);
// The seed is written with this workload's first draws; every run's queries come after them.
const workload = new Workload(USERS);

const seeded = await stat(join(seedDir, 'memory.db')).then(
  () => true,
  () => false,
);
if (seeded) {
  for (let i = 0; i < memories; i++) {
    workload.memory(i);
    workload.randomUser();
  }
} else {
  await seed();
}

const runDir = await mkdtemp(join(tmpdir(), 'hindsight-retrieve-focus-'));
await cp(seedDir, runDir, { recursive: true });
const suite = await startSuite({
  placement: 'service',
  embeddingEnv: EMBEDDING_ENV,
  storeEnv: {},
  memoryApiEnv: runEnv,
  dataDir: runDir,
});
const client = new JsonClient(suite.memoryApi.url, {}, MIXED_CONCURRENCY);
try {
  log(`topology: ${suite.description}`);
  log(`${memories} memories over ${USERS} users (copy of ${seedDir}); env ${JSON.stringify(runEnv)}`);
  const result = await measure(suite, client);
  if (values.json) await writeFile(values.json, `${JSON.stringify(result, null, 2)}\n`);
} finally {
  client.close();
  await suite.stop();
  await rm(runDir, { recursive: true, force: true });
}

async function seed(): Promise<void> {
  await mkdir(seedDir, { recursive: true });
  const seeding = await startSuite({
    placement: 'service',
    embeddingEnv: EMBEDDING_ENV,
    storeEnv: {},
    dataDir: seedDir,
  });
  const writer = new JsonClient(seeding.memoryApi.url);
  const t0 = performance.now();
  try {
    for (let serial = 0; serial < memories; ) {
      const count = Math.min(1000, memories - serial);
      const items = Array.from({ length: count }, () => ({
        content: workload.memory(serial++),
        user_id: workload.randomUser(),
      }));
      await writer.post('/v1/memories', { items });
    }
  } finally {
    writer.close();
    await seeding.stop();
  }
  log(`seeded ${memories} memories into ${seedDir} in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

/** CPU used so far by memory-api and the embedder service (0 when it embeds in process). */
async function processCpu(suite: BenchSuite): Promise<{ memoryApi: number; embedder: number }> {
  const embedderPid = suite.embedder?.child.pid;
  return {
    memoryApi: await readCpuMs(suite.memoryApi.pid),
    embedder: embedderPid === undefined ? 0 : await readCpuMs(embedderPid),
  };
}

async function measure(suite: BenchSuite, client: JsonClient) {
  const answers = { total: 0, empty: 0 };
  const phase = (count: number) => {
    const queries = Array.from({ length: count }, () => ({ query: workload.query(), user_id: workload.randomUser() }));
    return async (i: number) => {
      const answer = await client.post<{ results: unknown[] }>('/retrieve', {
        ...(queries[(i + count) % count] as { query: string; user_id: string }),
        top_k: TOP_K,
      });
      answers.total += 1;
      if (answer.results.length === 0) answers.empty += 1;
    };
  };
  await measureLatency(phase(WARMUP), { requests: WARMUP, concurrency: 4 });
  const before = await scrape(suite.memoryApi.url);
  const oneClient = await measureLatency(phase(requests), { requests, concurrency: 1 });
  const after = await scrape(suite.memoryApi.url);
  const cpuBefore = await processCpu(suite);
  const concurrent = await measureLatency(phase(concurrentRequests), {
    requests: concurrentRequests,
    concurrency: CONCURRENCY,
  });
  const cpuAfter = await processCpu(suite);
  const cpuPerRequest = {
    memoryApi: round((cpuAfter.memoryApi - cpuBefore.memoryApi) / concurrentRequests),
    embedder: round((cpuAfter.embedder - cpuBefore.embedder) / concurrentRequests),
  };
  const rss = await readRss(suite.memoryApi.pid);
  const line = (label: string, f: LatencyFigures) =>
    `  ${label.padEnd(22)} p50 ${f.p50.toFixed(2).padStart(7)} ms  p95 ${f.p95.toFixed(2).padStart(7)} ms  p99 ${f.p99.toFixed(2).padStart(7)} ms  ${f.throughput.toFixed(0).padStart(6)}/s`;
  const stages = breakdown(before, after);
  log(line('/retrieve, 1 client', oneClient));
  log(line(`/retrieve, ${CONCURRENCY} clients`, concurrent));
  log(
    `  speed-up ${(concurrent.throughput / oneClient.throughput).toFixed(2)}×; answers with no result ${answers.empty} of ${answers.total}`,
  );
  log(
    `  inside memory-api, 1 client (mean ms): ${Object.entries(stages)
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ')}`,
  );
  log(
    `  CPU per /retrieve, ${CONCURRENCY} clients (ms, every thread): memory-api ${cpuPerRequest.memoryApi.toFixed(2)}, embedder service ${cpuPerRequest.embedder.toFixed(2)}`,
  );
  log(`  memory-api RSS ${mib(rss.rssBytes)} (peak ${mib(rss.peakBytes)})`);
  let mixed: Awaited<ReturnType<typeof measureMixedLoad>> | undefined;
  let mixedRss: typeof rss | undefined;
  if (mixedRequests > 0) {
    let serial = 10 * memories;
    mixed = await measureMixedLoad(client, workload, {
      requests: mixedRequests,
      concurrency: MIXED_CONCURRENCY,
      warmup: WARMUP,
      topK: TOP_K,
      sessions: USERS,
      nextSerial: () => serial++,
    });
    mixedRss = await readRss(suite.memoryApi.pid);
    log(
      `  mixed load, ${MIXED_CONCURRENCY} clients: ${mixed.throughput.toFixed(0)} req/s; /retrieve p50 ${mixed.retrieve.p50.toFixed(2)} ms p95 ${mixed.retrieve.p95.toFixed(2)} ms; /store p95 ${mixed.store.p95.toFixed(2)} ms; turns p95 ${mixed.turn.p95.toFixed(2)} ms`,
    );
    log(`  memory-api RSS after the mixed load ${mib(mixedRss.rssBytes)} (peak ${mib(mixedRss.peakBytes)})`);
  }
  return {
    env: runEnv,
    memories,
    oneClient,
    concurrent,
    speedup: round(concurrent.throughput / oneClient.throughput),
    cpuPerRequestMs: cpuPerRequest,
    stagesMs: stages,
    rss,
    ...(mixed ? { mixed, mixedRss } : {}),
    emptyAnswers: answers.empty,
    answers: answers.total,
  };
}
