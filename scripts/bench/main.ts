/**
 * npm run bench [-- --quick | --scale 1m] [--dim 512] [--embeddings builtin|openai] [--json path] [--html path]
 *                [--skip-embedder] [--store sqlite|postgres] [--in-process-embedder]
 *
 * Against the default topology on loopback, wired as the launcher wires it (scripts/bench/suite.ts):
 * a real memory-api process with EMBEDDER_URL pointing at a real embedder service process, the
 * built-in embedder inside it (temp DATA_DIR, unique REDIS_PREFIX, no rate limit);
 * `--in-process-embedder` runs memory-api alone, embedding in its own process. Single and batched
 * ingest throughput; `/retrieve` latency p50/p95/p99 under 1 and 16 concurrent clients at 10k and
 * 100k memories over 100 users; issue 18's mixed load (32 clients: 80 % `/retrieve`, 15 % single
 * `/store`, 5 % session turns); memory-api's and the embedder's RSS; and, in the same run on the
 * same data, the raw store query and a bare Fastify
 * route (the HTTP floor), with the ratios between them; bytes on disk per memory at each size; one
 * heavy owner (a single user holding many memories) with the recall@10 of the store's quantised
 * k-NN against an exact scan; bytes per memory when every memory has an owner of its own (2,000
 * and 10,000 owners); an HTML report plotting p50/p95 against the store size. `--quick` is a
 * CI-sized run (5k memories); `--scale 1m` seeds 1,000,000 memories over 10,000 users (10k, 100k,
 * 1M). `--dim` is the embedding dimension (512, the default deployment's); `--embeddings openai`
 * embeds through memory-api's OpenAI-compatible provider against a local server speaking that
 * protocol (scripts/bench/embeddings-server.ts), as a hosted 1,536-d model would be used.
 * `--store postgres` runs memory-api on PostgreSQL: DATABASE_URL's server, or a PGlite server started
 * for the run (see scripts/eval/store-choice.ts).
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createProgress } from '@hindsight/cli/progress';
import { BuiltinEmbedder } from '@hindsight/embedding';
import { freePort, type MemoryApiProcess, REPO_ROOT, spawnService } from '@hindsight/testing';
import { round } from '../eval/scoring.ts';
import { chooseStore, parseStoreName, type StoreChoice } from '../eval/store-choice.ts';
import { JsonClient, type LatencyFigures, measureLatency } from './http-client.ts';
import { type MixedLoadFigures, measureMixedLoad } from './mixed-load.ts';
import { measureRawStore, type RawStoreFigures } from './raw-store.ts';
import { renderBenchHtml } from './report.ts';
import { breakdown, mib, readRss, scrape } from './service-figures.ts';
import { type BenchSuite, startSuite } from './suite.ts';
import { measureVectorRecall } from './vector-recall.ts';
import { Workload } from './workload.ts';

interface Plan {
  users: number;
  sizes: number[];
  singleWrites: number;
  batchSize: number;
  requestsOneClient: number;
  requestsConcurrent: number;
  concurrency: number;
  warmup: number;
  topK: number;
  /** Memories of the one heavy owner, measured after the sizes, and the requests measured for it. */
  heavyOwner: number;
  heavyRequests: number;
  /** Issue 18's mixed load: requests measured (after a warm-up) from this many clients. */
  mixedRequests: number;
  mixedConcurrency: number;
}

const FULL: Plan = {
  users: 100,
  sizes: [10_000, 100_000],
  singleWrites: 1000,
  batchSize: 1000,
  requestsOneClient: 1000,
  requestsConcurrent: 1600,
  concurrency: 16,
  warmup: 100,
  topK: 10,
  heavyOwner: 100_000,
  heavyRequests: 300,
  mixedRequests: 8000,
  mixedConcurrency: 32,
};
const QUICK: Plan = {
  ...FULL,
  sizes: [5000],
  singleWrites: 200,
  requestsOneClient: 300,
  requestsConcurrent: 800,
  warmup: 30,
  heavyOwner: 5000,
  heavyRequests: 200,
  mixedRequests: 1600,
};
const MILLION: Plan = { ...FULL, users: 10_000, sizes: [10_000, 100_000, 1_000_000] };

/** Targets of issue 18, at 100k memories over 100 users (the largest size of a quick run stands in). */
const TARGETS = {
  p50Ms: 2,
  p95Ms: 5,
  concurrentSpeedup: 1.85,
  concurrentP95Ms: 25,
  heavyOwnerP95Ms: 15,
  rssBytes: 512 * 1024 ** 2,
  batchedPerSecond: 7000,
  singleConcurrentPerSecond: 2000,
  diskBytesPerMemory: 4096,
  heavyOwnerRecallAt10: 0.98,
  mixedPerSecond: 1100,
  mixedRetrieveP95Ms: 40,
};
/** Issue 18's targets where they differ at the dimension hosted models return (1,536). */
const TARGETS_1536 = { p50Ms: 3, diskBytesPerMemory: 8192 };
/** Owners of one memory each, for bytes per memory when owners are as many as memories. */
const OWNER_COUNTS = [2000, 10_000];
/** How the disk figures wait for the WAL's checkpoint after the last write (storeBytes). */
const WAL_SETTLE_POLL_MS = 100;
const WAL_SETTLE_POLLS = 5;
const WAL_SETTLE_MAX_MS = 10_000;

interface SizeResult {
  memories: number;
  retrieve: { oneClient: LatencyFigures; concurrent: LatencyFigures };
  floor: { oneClient: LatencyFigures; concurrent: LatencyFigures };
  rawStore: RawStoreFigures;
  ratios: { p50: number; p95: number };
  /** Mean ms per request of each stage inside memory-api, from its /metrics during the one-client run. */
  breakdownMs: Record<string, number>;
  rss?: { rssBytes: number; peakBytes: number };
  /** The embedder service's RSS at the same moment (absent when memory-api embeds in process). */
  embedderRss?: { rssBytes: number; peakBytes: number };
  /** Issue 18's mixed load, run at the size the targets are read at. */
  mixed?: MixedLoadFigures;
  /** The store's files (database, WAL) divided by the memories in it. */
  diskBytesPerMemory: number;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean' },
      json: { type: 'string' },
      'skip-embedder': { type: 'boolean' },
      store: { type: 'string' },
      scale: { type: 'string' },
      dim: { type: 'string' },
      embeddings: { type: 'string' },
      'in-process-embedder': { type: 'boolean' },
      html: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(
      'usage: npm run bench [-- --quick | --scale 1m] [--dim 512] [--embeddings builtin|openai] [--json path] [--html path] [--skip-embedder] [--store sqlite|postgres] [--in-process-embedder]\n',
    );
    return 0;
  }
  if (values.scale !== undefined && values.scale !== '1m' && values.scale !== '100k') {
    process.stderr.write(`--scale takes 100k or 1m, not "${values.scale}"\n`);
    return 1;
  }
  const dimension = Number(values.dim ?? 512);
  if (!Number.isInteger(dimension) || dimension < 8 || dimension > 8192) {
    process.stderr.write(`--dim takes an integer in 8..8192, not "${values.dim}"\n`);
    return 1;
  }
  const provider = values.embeddings ?? 'builtin';
  if (provider !== 'builtin' && provider !== 'openai') {
    process.stderr.write(`--embeddings takes builtin or openai, not "${provider}"\n`);
    return 1;
  }
  const plan = values.quick ? QUICK : values.scale === '1m' ? MILLION : FULL;
  const mode = `${values.quick ? 'quick' : values.scale === '1m' ? 'scale-1m' : 'full'}${provider === 'openai' ? `-openai-${dimension}` : dimension === 512 ? '' : `-${dimension}`}`;
  const goals = dimension >= 1536 ? { ...TARGETS, ...TARGETS_1536 } : TARGETS;
  const started = performance.now();
  const workload = new Workload(plan.users);
  // The bench embeds its raw-store queries in process; the stand-in server answers the same vectors.
  const embedder = new BuiltinEmbedder({ dimension });
  const embeddings = provider === 'openai' ? await startEmbeddingsServer(dimension) : undefined;
  const embedderEnv: Record<string, string> = embeddings
    ? {
        EMBEDDINGS_PROVIDER: 'openai',
        EMBEDDINGS_BASE_URL: embeddings.url,
        EMBEDDINGS_MODEL: 'bench-embeddings',
        EMBEDDINGS_API_KEY: 'bench',
        EMBEDDINGS_DIM: String(dimension),
      }
    : { EMBEDDINGS_PROVIDER: 'builtin', EMBEDDINGS_DIM: String(dimension) };
  const space = { model: embeddings ? `openai:bench-embeddings:${dimension}` : embedder.model, dimension };
  const store = await chooseStore(parseStoreName(values.store));
  const suite = await startSuite({
    placement: values['in-process-embedder'] ? 'in-process' : 'service',
    embeddingEnv: embedderEnv,
    storeEnv: store.env,
  });
  const service = suite.memoryApi;
  const client = new JsonClient(service.url, {}, Math.max(plan.concurrency, plan.mixedConcurrency));
  const workDir = await mkdtemp(join(tmpdir(), 'hindsight-bench-'));
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(`memory-api at ${service.url}; ${plan.users} users; plan ${mode}; ${dimension}-d ${provider}`);
  log(`topology: ${suite.description}`);
  log(`long-term store: ${store.description}`);

  try {
    // Every memory gets its own serial so none is a duplicate of another.
    let serial = 0;
    // Single writes: one memory per request, one client, as an agent storing as it goes.
    const single = await measureLatency(
      () => client.post('/v1/memories', { content: workload.memory(serial++), user_id: workload.randomUser() }),
      { requests: plan.singleWrites, concurrency: 1, warmup: 20 },
    );
    log(
      `single ingest, 1 writer: ${single.throughput.toFixed(0)} memories/s (p50 ${single.p50.toFixed(2)} ms, p95 ${single.p95.toFixed(2)} ms)`,
    );
    // The same single writes from many writers at once: group commit shares one WAL flush among them.
    const singleConcurrent = await measureLatency(
      () => client.post('/v1/memories', { content: workload.memory(serial++), user_id: workload.randomUser() }),
      { requests: plan.singleWrites * 2, concurrency: plan.concurrency, warmup: 20 },
    );
    let stored = serial;
    log(
      `single ingest, ${plan.concurrency} writers: ${singleConcurrent.throughput.toFixed(0)} memories/s (p50 ${singleConcurrent.p50.toFixed(2)} ms, p95 ${singleConcurrent.p95.toFixed(2)} ms)`,
    );

    const batched = { memories: 0, seconds: 0 };
    const sizes: SizeResult[] = [];
    const targetSize = plan.sizes.includes(100_000) ? 100_000 : (plan.sizes[plan.sizes.length - 1] as number);
    for (const size of plan.sizes) {
      const bar = createProgress({ label: `fill to ${size}`, total: size - stored, unit: 'memories' });
      const t0 = performance.now();
      let filled = 0;
      while (stored < size) {
        const count = Math.min(plan.batchSize, size - stored);
        const items = Array.from({ length: count }, () => ({
          content: workload.memory(serial++),
          user_id: workload.randomUser(),
        }));
        await client.post('/v1/memories', { items });
        stored += count;
        filled += count;
        bar.tick(count);
      }
      const seconds = (performance.now() - t0) / 1000;
      bar.done();
      batched.memories += filled;
      batched.seconds += seconds;
      log(`batched ingest (${plan.batchSize}/request) to ${size}: ${(filled / seconds).toFixed(0)} memories/s`);
      const result = await measureSize(plan, workload, suite, store, client, embedder, space, workDir, size);
      sizes.push(result);
      if (size === targetSize) {
        result.mixed = await measureMixedLoad(client, workload, {
          requests: plan.mixedRequests,
          concurrency: plan.mixedConcurrency,
          warmup: plan.warmup,
          topK: plan.topK,
          sessions: plan.users,
          nextSerial: () => serial++,
        });
        printMixedLoad(result, plan);
      }
    }

    const heavy = await measureHeavyOwner(plan, workload, client, serial);
    serial += plan.heavyOwner;
    log('');
    log(
      `one heavy owner (${heavy.memories} memories of one user): /retrieve p50 ${heavy.latency.p50.toFixed(2)} ms, p95 ${heavy.latency.p95.toFixed(2)} ms (fill ${heavy.ingestPerSecond.toFixed(0)}/s)`,
    );
    const recall =
      store.name === 'sqlite'
        ? await measureVectorRecall({
            dataDir: service.dataDir,
            embedder,
            userId: HEAVY_OWNER,
            queries: Array.from({ length: 100 }, () => workload.query()),
          })
        : undefined;
    if (recall) {
      log(
        `  its k-NN (${recall.method}): recall@10 ${recall.recallAt10.toFixed(3)} of the exact ranking; p50 ${recall.quantised.p50.toFixed(2)} ms, p95 ${recall.quantised.p95.toFixed(2)} ms against an exact float32 scan in C (sqlite-vec) p50 ${recall.exact.p50.toFixed(2)} ms, p95 ${recall.exact.p95.toFixed(2)} ms`,
      );
    }
    const owners = store.name === 'sqlite' ? await measureOwnerBytes(suite, workload) : [];
    for (const o of owners) {
      log(
        `  ${o.owners} owners of one memory each: ${o.bytesPerMemory.toFixed(0)} bytes per memory on disk (database + WAL, once checkpointed)`,
      );
    }

    const measured = sizes.find((r) => r.memories === targetSize) as SizeResult;
    const mixed = measured.mixed as MixedLoadFigures;
    const batchedPerSecond = batched.memories / Math.max(batched.seconds, 1e-9);
    const speedup = measured.retrieve.concurrent.throughput / measured.retrieve.oneClient.throughput;
    const rssBytes = measured.rss?.rssBytes ?? 0;
    const check = (name: string, value: number, target: number, atMost: boolean, show: (v: number) => string) => ({
      name,
      measured: round(value),
      target,
      met: atMost ? value <= target : value >= target,
      line: `  ${name} ${show(value)} ${atMost ? '≤' : '≥'} ${show(target)}`,
    });
    const ms = (v: number) => `${v.toFixed(2)} ms`;
    const perSecond = (v: number) => `${v.toFixed(0)}/s`;
    const targets = [
      check('/retrieve p50, 1 client', measured.retrieve.oneClient.p50, goals.p50Ms, true, ms),
      check('/retrieve p95, 1 client', measured.retrieve.oneClient.p95, goals.p95Ms, true, ms),
      check(
        `${plan.concurrency} clients ÷ 1 client throughput`,
        speedup,
        goals.concurrentSpeedup,
        false,
        (v) => `${v.toFixed(2)}×`,
      ),
      check(
        `/retrieve p95, ${plan.concurrency} clients`,
        measured.retrieve.concurrent.p95,
        goals.concurrentP95Ms,
        true,
        ms,
      ),
      check('heavy owner /retrieve p95', heavy.latency.p95, goals.heavyOwnerP95Ms, true, ms),
      ...(recall
        ? [
            check('heavy owner k-NN recall@10 of exact', recall.recallAt10, goals.heavyOwnerRecallAt10, false, (v) =>
              v.toFixed(3),
            ),
          ]
        : []),
      check('memory-api RSS', rssBytes, goals.rssBytes, true, mib),
      check('batched ingest', batchedPerSecond, goals.batchedPerSecond, false, perSecond),
      check(
        `single writes, ${plan.concurrency} writers`,
        singleConcurrent.throughput,
        goals.singleConcurrentPerSecond,
        false,
        perSecond,
      ),
      check(
        `mixed load, ${plan.mixedConcurrency} clients (80/15/5)`,
        mixed.throughput,
        goals.mixedPerSecond,
        false,
        perSecond,
      ),
      check('mixed load /retrieve p95', mixed.retrieve.p95, goals.mixedRetrieveP95Ms, true, ms),
      check('disk per memory', measured.diskBytesPerMemory, goals.diskBytesPerMemory, true, (v) => `${v.toFixed(0)} B`),
      ...owners.map((o) =>
        check(
          `disk per memory, ${o.owners} owners of one memory`,
          o.bytesPerMemory,
          goals.diskBytesPerMemory,
          true,
          (v) => `${v.toFixed(0)} B`,
        ),
      ),
    ];
    log('');
    log(
      `targets (issue 18) at ${measured.memories} memories / ${plan.users} users${values.quick ? ' (quick run: the targets are stated for 100k)' : ''}, ${suite.placement === 'service' ? 'embedder service' : 'embedder in process (--in-process-embedder)'}:`,
    );
    for (const t of targets) log(`${t.line}: ${yes(t.met)}`);
    log(
      `  (ratio p50 ÷ (raw store p50 + HTTP floor p50) = ${measured.ratios.p50.toFixed(2)}, p95 ${measured.ratios.p95.toFixed(2)})`,
    );

    if (!values['skip-embedder'] && provider === 'builtin') {
      log('');
      log('embedder throughput (scripts/bench/embedder.ts):');
      await runEmbedderBench(values.quick ? ['--texts', '1000'] : []);
    }

    const result = {
      plan: { ...plan, mode },
      embeddings: { provider, dimension, model: space.model, placement: suite.placement },
      topology: suite.description,
      store: store.description,
      machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
      ingest: { single, singleConcurrent, batchedPerSecond: round(batchedPerSecond) },
      sizes,
      heavyOwner: { ...heavy, ...(recall ? { knn: recall } : {}) },
      owners,
      targets: targets.map(({ line: _line, ...t }) => t),
      durationSeconds: round((performance.now() - started) / 1000),
      generatedAt: new Date().toISOString(),
    };
    const out =
      values.json ??
      join(
        REPO_ROOT,
        'bench-results',
        `bench-${mode === 'full' ? '' : `${mode}-`}${result.generatedAt.replace(/[:.]/g, '-')}.json`,
      );
    await mkdir(dirname(resolve(out)), { recursive: true });
    await writeFile(out, `${JSON.stringify(result, null, 2)}\n`);
    const html = values.html ?? `${out.replace(/\.json$/, '')}.html`;
    await writeFile(
      html,
      renderBenchHtml({
        title: `hindsight bench (${mode})`,
        summary: `${store.description}; ${dimension}-d ${provider} embeddings, ${suite.placement === 'service' ? 'through the embedder service' : 'in memory-api’s process'}; ${plan.users} users; ${result.generatedAt}; one client, top_k ${plan.topK}`,
        points: sizes.map((r) => ({
          memories: r.memories,
          p50: r.retrieve.oneClient.p50,
          p95: r.retrieve.oneClient.p95,
          floorP50: r.floor.oneClient.p50,
          bytesPerMemory: r.diskBytesPerMemory,
          rssBytes: r.rss?.rssBytes ?? 0,
          ...(r.embedderRss ? { embedderRssBytes: r.embedderRss.rssBytes } : {}),
        })),
        mixed: sizes.flatMap((r) => (r.mixed ? [{ memories: r.memories, ...r.mixed }] : [])),
        targets: targets.map(({ name, measured: value, target, met }) => ({ name, measured: value, target, met })),
      }),
    );
    log(`\nwrote ${out} and ${html} (${result.durationSeconds.toFixed(0)} s)`);
    return 0;
  } finally {
    client.close();
    await suite.stop();
    await store.close();
    await embeddings?.stop();
    await rm(workDir, { recursive: true, force: true });
  }
}

/** The stand-in hosted embedding model (scripts/bench/embeddings-server.ts) as its own process. */
async function startEmbeddingsServer(dimension: number): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const server = await spawnService({
    name: 'embeddings server',
    entry: join(REPO_ROOT, 'scripts/bench/embeddings-server.ts'),
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), EMBEDDINGS_DIM: String(dimension) },
    port,
    readyPath: '/health',
    readyTimeoutMs: 60_000,
  });
  return { url: `${server.url}/v1`, stop: async () => void (await server.stop()) };
}

/**
 * Bytes on disk per memory when every memory has an owner of its own, on a fresh memory-api: the
 * layout must cost per memory, not per owner.
 */
async function measureOwnerBytes(
  suite: BenchSuite,
  workload: Workload,
): Promise<Array<{ owners: number; bytesPerMemory: number }>> {
  const service = await suite.spawnMemoryApi();
  const client = new JsonClient(service.url);
  const figures: Array<{ owners: number; bytesPerMemory: number }> = [];
  try {
    let written = 0;
    for (const owners of OWNER_COUNTS) {
      while (written < owners) {
        const count = Math.min(1000, owners - written);
        const items = Array.from({ length: count }, (_, i) => ({
          content: workload.memory(written + i),
          user_id: `bench-owner-${written + i}`,
        }));
        await client.post('/v1/memories', { items });
        written += count;
      }
      figures.push({ owners, bytesPerMemory: round((await storeBytes(service.dataDir)) / owners) });
    }
    return figures;
  } finally {
    client.close();
    await service.stop();
  }
}

async function measureSize(
  plan: Plan,
  workload: Workload,
  suite: BenchSuite,
  store: StoreChoice,
  client: JsonClient,
  embedder: BuiltinEmbedder,
  space: { model: string; dimension: number },
  workDir: string,
  size: number,
): Promise<SizeResult> {
  const service: MemoryApiProcess = suite.memoryApi;
  // Each phase draws queries of its own: the concurrent phase repeating the one-client phase's
  // queries would be answered from caches the first phase filled (the query-embedding cache).
  const draw = (count: number) =>
    Array.from({ length: count }, () => ({ query: workload.query(), userId: workload.randomUser() }));
  const queries = draw(plan.requestsOneClient + plan.warmup);
  const concurrentQueries = draw(plan.requestsConcurrent);
  const at = (i: number) => queries[(i + queries.length) % queries.length] as { query: string; userId: string };
  const atConcurrent = (i: number) =>
    concurrentQueries[i % concurrentQueries.length] as { query: string; userId: string };
  // Latency only counts answers that found something: every answer with no result is counted and printed.
  const answers = { total: 0, empty: 0 };
  const retrieveOf = (pick: (i: number) => { query: string; userId: string }) => async (i: number) => {
    const answer = await client.post<{ results: unknown[] }>('/retrieve', {
      query: pick(i).query,
      user_id: pick(i).userId,
      top_k: plan.topK,
    });
    answers.total += 1;
    if (answer.results.length === 0) answers.empty += 1;
    return answer;
  };
  const retrieve = retrieveOf(at);

  const before = await scrape(service.url);
  const oneClient = await measureLatency(retrieve, {
    requests: plan.requestsOneClient,
    concurrency: 1,
    warmup: plan.warmup,
  });
  const after = await scrape(service.url);
  const concurrent = await measureLatency(retrieveOf(atConcurrent), {
    requests: plan.requestsConcurrent,
    concurrency: plan.concurrency,
  });
  const rss = await readRss(service.pid);
  const embedderPid = suite.embedder?.child.pid;
  const embedderRss = embedderPid === undefined ? undefined : await readRss(embedderPid);
  const diskBytesPerMemory = round((await storeBytes(service.dataDir)) / size);

  // The floor answers a real /retrieve answer from this run, so both send the same bytes back.
  const answerPath = join(workDir, `answer-${size}.json`);
  await writeFile(answerPath, JSON.stringify(await retrieve(0)));
  const floor = await measureFloor(answerPath, plan, at);

  const rawStore = await measureRawStore({
    store: store.open(service.dataDir),
    embedder,
    space,
    queries: queries.slice(0, plan.requestsOneClient),
    candidates: Math.max(plan.topK * 4, 20),
  });
  const ratios = {
    p50: round(oneClient.p50 / (rawStore.storeQuery.p50 + floor.oneClient.p50)),
    p95: round(oneClient.p95 / (rawStore.storeQuery.p95 + floor.oneClient.p95)),
  };
  const breakdownMs = breakdown(before, after);

  const line = (label: string, f: LatencyFigures) =>
    `  ${label.padEnd(34)} p50 ${f.p50.toFixed(2).padStart(7)} ms  p95 ${f.p95.toFixed(2).padStart(7)} ms  p99 ${f.p99.toFixed(2).padStart(7)} ms  ${f.throughput.toFixed(0).padStart(6)}/s`;
  const out = [
    '',
    `at ${size} memories (${plan.users} users, top_k ${plan.topK}):`,
    line('/retrieve, 1 client', oneClient),
    line(`/retrieve, ${plan.concurrency} clients`, concurrent),
    `  /retrieve answers with no result: ${answers.empty} of ${answers.total}`,
    line('HTTP floor (bare Fastify), 1 client', floor.oneClient),
    line(`HTTP floor, ${plan.concurrency} clients`, floor.concurrent),
    line('raw store query (kNN+keyword+rows)', rawStore.storeQuery),
    line('  of which k-NN', rawStore.knn),
    line('  of which keyword (BM25)', rawStore.fts),
    line('  of which rows + similarities', rawStore.rows),
    line('query embedding (builtin)', rawStore.embed),
    `  ratio /retrieve ÷ (raw store + HTTP floor): p50 ${ratios.p50.toFixed(2)}, p95 ${ratios.p95.toFixed(2)}`,
    `  inside memory-api (mean ms per /retrieve): ${Object.entries(breakdownMs)
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ')}`,
    `  memory-api RSS ${mib(rss.rssBytes)} (peak ${mib(rss.peakBytes)})${embedderRss ? `, embedder service RSS ${mib(embedderRss.rssBytes)} (peak ${mib(embedderRss.peakBytes)})` : ' (embedding in process)'}; on disk ${diskBytesPerMemory.toFixed(0)} bytes per memory (database + WAL, once checkpointed)`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  return {
    memories: size,
    retrieve: { oneClient, concurrent },
    floor,
    rawStore,
    ratios,
    breakdownMs,
    rss,
    ...(embedderRss ? { embedderRss } : {}),
    diskBytesPerMemory,
  };
}

/** The mixed load beside the floors measured at the same size: the HTTP floor and the raw store query. */
function printMixedLoad(result: SizeResult, plan: Plan): void {
  const mixed = result.mixed as MixedLoadFigures;
  const line = (label: string, f: LatencyFigures) =>
    `  ${label.padEnd(34)} p50 ${f.p50.toFixed(2).padStart(7)} ms  p95 ${f.p95.toFixed(2).padStart(7)} ms  p99 ${f.p99.toFixed(2).padStart(7)} ms  ${f.requests.toString().padStart(6)} requests`;
  const floor = result.floor.concurrent;
  const out = [
    '',
    `mixed load at ${result.memories} memories: ${mixed.concurrency} clients, ${mixed.requests} requests (80 % /retrieve, 15 % single /store, 5 % session turns):`,
    `  ${mixed.throughput.toFixed(0)} req/s over ${mixed.seconds.toFixed(1)} s (target ≥ ${TARGETS.mixedPerSecond}/s)`,
    line('/retrieve', mixed.retrieve),
    line('/store (one memory)', mixed.store),
    line('session turn', mixed.turn),
    `  /retrieve p95 ${mixed.retrieve.p95.toFixed(2)} ms (target ≤ ${TARGETS.mixedRetrieveP95Ms} ms); answers with no result: ${mixed.emptyAnswers} of ${mixed.retrieve.requests}`,
    `  floors at this size: HTTP floor ${plan.concurrency} clients ${floor.throughput.toFixed(0)} req/s, p95 ${floor.p95.toFixed(2)} ms; raw store query p50 ${result.rawStore.storeQuery.p50.toFixed(2)} ms, p95 ${result.rawStore.storeQuery.p95.toFixed(2)} ms; /retrieve alone ${plan.concurrency} clients ${result.retrieve.concurrent.throughput.toFixed(0)} req/s, p95 ${result.retrieve.concurrent.p95.toFixed(2)} ms`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

const HEAVY_OWNER = 'bench-heavy-owner';

/** One user holding `plan.heavyOwner` memories (a long-lived agent, a heavy user): batched in, then searched. */
async function measureHeavyOwner(
  plan: Plan,
  workload: Workload,
  client: JsonClient,
  firstSerial: number,
): Promise<{ memories: number; ingestPerSecond: number; latency: LatencyFigures }> {
  const owner = HEAVY_OWNER;
  let serial = firstSerial;
  const bar = createProgress({ label: 'fill one owner', total: plan.heavyOwner, unit: 'memories' });
  const t0 = performance.now();
  for (let stored = 0; stored < plan.heavyOwner; ) {
    const count = Math.min(plan.batchSize, plan.heavyOwner - stored);
    const items = Array.from({ length: count }, () => ({ content: workload.memory(serial++), user_id: owner }));
    await client.post('/v1/memories', { items });
    stored += count;
    bar.tick(count);
  }
  bar.done();
  const ingestPerSecond = plan.heavyOwner / ((performance.now() - t0) / 1000);
  const queries = Array.from({ length: plan.heavyRequests + plan.warmup }, () => workload.query());
  const latency = await measureLatency(
    (i) =>
      client.post('/retrieve', {
        query: queries[(i + queries.length) % queries.length],
        user_id: owner,
        top_k: plan.topK,
      }),
    { requests: plan.heavyRequests, concurrency: 1, warmup: Math.min(plan.warmup, 20) },
  );
  return { memories: plan.heavyOwner, ingestPerSecond: round(ingestPerSecond), latency };
}

/** Bytes of the embedded store's files (0 for a server store, whose files are not ours to read). */
/**
 * Bytes of memory.db and its WAL once the WAL has settled: memory-api answers a bulk write before
 * the access worker's checkpoint copies it into the file and truncates the WAL (pooled-store.ts),
 * so the size is read when the WAL is empty or has kept one size for WAL_SETTLE_POLLS polls.
 */
async function storeBytes(dataDir: string): Promise<number> {
  const size = (name: string) =>
    stat(join(dataDir, name)).then(
      (s) => s.size,
      () => 0,
    );
  let wal = await size('memory.db-wal');
  for (let same = 0, waited = 0; wal > 0 && same < WAL_SETTLE_POLLS && waited < WAL_SETTLE_MAX_MS; ) {
    await delay(WAL_SETTLE_POLL_MS);
    waited += WAL_SETTLE_POLL_MS;
    const now = await size('memory.db-wal');
    same = now === wal ? same + 1 : 0;
    wal = now;
  }
  return (await size('memory.db')) + wal;
}

async function measureFloor(
  answerPath: string,
  plan: Plan,
  at: (i: number) => { query: string; userId: string },
): Promise<{ oneClient: LatencyFigures; concurrent: LatencyFigures }> {
  const port = await freePort();
  const server = await spawnService({
    name: 'HTTP floor',
    entry: join(REPO_ROOT, 'scripts/bench/http-floor.ts'),
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), ANSWER_PATH: answerPath },
    port,
    readyPath: '/health',
    readyTimeoutMs: 30_000,
  });
  try {
    const floor = new JsonClient(server.url);
    const send = (i: number) =>
      floor.post('/retrieve', { query: at(i).query, user_id: at(i).userId, top_k: plan.topK });
    const oneClient = await measureLatency(send, {
      requests: plan.requestsOneClient,
      concurrency: 1,
      warmup: plan.warmup,
    });
    const concurrent = await measureLatency(send, { requests: plan.requestsConcurrent, concurrency: plan.concurrency });
    floor.close();
    return { oneClient, concurrent };
  } finally {
    await server.stop();
  }
}

async function runEmbedderBench(args: string[]): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'scripts/bench/embedder.ts'), ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) process.stdout.write(`  (embedder bench exited with ${code})\n`);
}

const yes = (met: boolean) => (met ? 'met' : 'NOT met');

process.exitCode = await main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 2;
});
