/**
 * npm run bench [-- --quick] [--json path] [--skip-embedder] [--store sqlite|postgres]
 *
 * Against a real memory-api process on loopback with the built-in embedder (temp DATA_DIR, unique
 * REDIS_PREFIX, no rate limit): single and batched ingest throughput; `/retrieve` latency
 * p50/p95/p99 under 1 and 16 concurrent clients at 10k and 100k memories over 100 users;
 * memory-api RSS; and, in the same run on the same data, the raw store query and a bare Fastify
 * route (the HTTP floor), with the ratios between them. `--quick` is a CI-sized run (5k memories).
 * `--store postgres` runs memory-api on PostgreSQL: DATABASE_URL's server, or a PGlite server started
 * for the run (see scripts/eval/store-choice.ts).
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createProgress } from '@hindsight/cli/progress';
import { BuiltinEmbedder } from '@hindsight/embedding';
import { parsePrometheusText } from '@hindsight/metrics';
import { freePort, REPO_ROOT, spawnMemoryApi, spawnService } from '@hindsight/testing';
import { round } from '../eval/scoring.ts';
import { chooseStore, parseStoreName, type StoreChoice } from '../eval/store-choice.ts';
import { JsonClient, type LatencyFigures, measureLatency } from './http-client.ts';
import { measureRawStore, type RawStoreFigures } from './raw-store.ts';
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
};
const QUICK: Plan = {
  ...FULL,
  sizes: [5000],
  singleWrites: 200,
  requestsOneClient: 300,
  requestsConcurrent: 800,
  warmup: 30,
};

/** Targets of issue 7 for the largest size with one client. */
const TARGETS = { p50Ms: 10, p95Ms: 25, ratio: 3, ingestPerSecond: 2000, rssBytes: 1024 ** 3 };

interface SizeResult {
  memories: number;
  retrieve: { oneClient: LatencyFigures; concurrent: LatencyFigures };
  floor: { oneClient: LatencyFigures; concurrent: LatencyFigures };
  rawStore: RawStoreFigures;
  ratios: { p50: number; p95: number };
  /** Mean ms per request of each stage inside memory-api, from its /metrics during the one-client run. */
  breakdownMs: Record<string, number>;
  rss?: { rssBytes: number; peakBytes: number };
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean' },
      json: { type: 'string' },
      'skip-embedder': { type: 'boolean' },
      store: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(
      'usage: npm run bench [-- --quick] [--json path] [--skip-embedder] [--store sqlite|postgres]\n',
    );
    return 0;
  }
  const plan = values.quick ? QUICK : FULL;
  const started = performance.now();
  const workload = new Workload(plan.users);
  const embedder = new BuiltinEmbedder({ dimension: 384 });
  const store = await chooseStore(parseStoreName(values.store));
  const service = await spawnMemoryApi({
    env: { ...store.env, EMBEDDINGS_PROVIDER: 'builtin', EMBEDDINGS_DIM: String(embedder.dimension) },
  });
  const client = new JsonClient(service.url);
  const workDir = await mkdtemp(join(tmpdir(), 'hindsight-bench-'));
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(`memory-api pid ${service.pid} at ${service.url}; ${plan.users} users; plan ${values.quick ? 'quick' : 'full'}`);
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
      sizes.push(await measureSize(plan, workload, service, store, client, embedder, workDir, size));
    }

    const largest = sizes[sizes.length - 1] as SizeResult;
    const batchedPerSecond = batched.memories / Math.max(batched.seconds, 1e-9);
    const targets = {
      p50: {
        target: TARGETS.p50Ms,
        measured: largest.retrieve.oneClient.p50,
        met: largest.retrieve.oneClient.p50 <= TARGETS.p50Ms,
      },
      p95: {
        target: TARGETS.p95Ms,
        measured: largest.retrieve.oneClient.p95,
        met: largest.retrieve.oneClient.p95 <= TARGETS.p95Ms,
      },
      ratio: { target: TARGETS.ratio, measured: largest.ratios.p50, met: largest.ratios.p50 <= TARGETS.ratio },
      batchedIngest: {
        target: TARGETS.ingestPerSecond,
        measured: round(batchedPerSecond),
        met: batchedPerSecond >= TARGETS.ingestPerSecond,
      },
      rss: {
        target: TARGETS.rssBytes,
        measured: largest.rss?.rssBytes ?? 0,
        met: (largest.rss?.rssBytes ?? 0) <= TARGETS.rssBytes,
      },
    };
    log('');
    log(
      `targets at ${largest.memories} memories / ${plan.users} users, one client${values.quick ? ' (quick run: the targets are stated for 100k)' : ''}:`,
    );
    log(
      `  /retrieve p50 ${largest.retrieve.oneClient.p50.toFixed(2)} ms ≤ ${TARGETS.p50Ms} ms: ${yes(targets.p50.met)}`,
    );
    log(
      `  /retrieve p95 ${largest.retrieve.oneClient.p95.toFixed(2)} ms ≤ ${TARGETS.p95Ms} ms: ${yes(targets.p95.met)}`,
    );
    log(
      `  p50 ÷ (raw store p50 + HTTP floor p50) = ${largest.ratios.p50.toFixed(2)} ≤ ${TARGETS.ratio}: ${yes(targets.ratio.met)}`,
    );
    log(
      `  batched ingest ${batchedPerSecond.toFixed(0)}/s ≥ ${TARGETS.ingestPerSecond}/s: ${yes(targets.batchedIngest.met)}`,
    );
    log(`  RSS ${mib(largest.rss?.rssBytes ?? 0)} ≤ 1024 MiB: ${yes(targets.rss.met)}`);

    if (!values['skip-embedder']) {
      log('');
      log('embedder throughput (scripts/bench/embedder.ts):');
      await runEmbedderBench(values.quick ? ['--texts', '1000'] : []);
    }

    const result = {
      plan: { ...plan, mode: values.quick ? 'quick' : 'full' },
      store: store.description,
      machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
      ingest: { single, singleConcurrent, batchedPerSecond: round(batchedPerSecond) },
      sizes,
      targets,
      durationSeconds: round((performance.now() - started) / 1000),
      generatedAt: new Date().toISOString(),
    };
    const out =
      values.json ??
      join(
        REPO_ROOT,
        'bench-results',
        `bench-${values.quick ? 'quick-' : ''}${result.generatedAt.replace(/[:.]/g, '-')}.json`,
      );
    await mkdir(dirname(resolve(out)), { recursive: true });
    await writeFile(out, `${JSON.stringify(result, null, 2)}\n`);
    log(`\nwrote ${out} (${result.durationSeconds.toFixed(0)} s)`);
    return 0;
  } finally {
    client.close();
    await service.stop();
    await store.close();
    await rm(workDir, { recursive: true, force: true });
  }
}

async function measureSize(
  plan: Plan,
  workload: Workload,
  service: Awaited<ReturnType<typeof spawnMemoryApi>>,
  store: StoreChoice,
  client: JsonClient,
  embedder: BuiltinEmbedder,
  workDir: string,
  size: number,
): Promise<SizeResult> {
  const queries = Array.from(
    { length: Math.max(plan.requestsOneClient, plan.requestsConcurrent) + plan.warmup },
    () => ({
      query: workload.query(),
      userId: workload.randomUser(),
    }),
  );
  const at = (i: number) => queries[(i + queries.length) % queries.length] as { query: string; userId: string };
  const retrieve = (i: number) =>
    client.post('/retrieve', { query: at(i).query, user_id: at(i).userId, top_k: plan.topK });

  const before = await scrape(service.url);
  const oneClient = await measureLatency(retrieve, {
    requests: plan.requestsOneClient,
    concurrency: 1,
    warmup: plan.warmup,
  });
  const after = await scrape(service.url);
  const concurrent = await measureLatency(retrieve, {
    requests: plan.requestsConcurrent,
    concurrency: plan.concurrency,
  });
  const rss = await readRss(service.pid);

  // The floor answers a real /retrieve answer from this run, so both send the same bytes back.
  const answerPath = join(workDir, `answer-${size}.json`);
  await writeFile(answerPath, JSON.stringify(await retrieve(0)));
  const floor = await measureFloor(answerPath, plan, at);

  const rawStore = await measureRawStore({
    store: store.open(service.dataDir),
    embedder,
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
    `  memory-api RSS ${mib(rss.rssBytes)} (peak ${mib(rss.peakBytes)})`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  return { memories: size, retrieve: { oneClient, concurrent }, floor, rawStore, ratios, breakdownMs, rss };
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

type Samples = ReturnType<typeof parsePrometheusText>;

async function scrape(url: string): Promise<Samples> {
  const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
  return parsePrometheusText(await response.text());
}

/** Mean milliseconds per /retrieve of each stage, from histogram sums between two scrapes. */
function breakdown(before: Samples, after: Samples): Record<string, number> {
  const total = (samples: Samples, name: string, match: (l: Record<string, string>) => boolean) =>
    samples.filter((s) => s.name === name && match(s.labels)).reduce((sum, s) => sum + s.value, 0);
  const delta = (name: string, match: (l: Record<string, string>) => boolean = () => true) =>
    total(after, name, match) - total(before, name, match);
  const requests = delta('hindsight_http_request_duration_seconds_count', (l) => l.route === '/retrieve');
  if (requests <= 0) return {};
  const perRequest = (seconds: number) => round((seconds / requests) * 1000);
  const result: Record<string, number> = {
    http: perRequest(delta('hindsight_http_request_duration_seconds_sum', (l) => l.route === '/retrieve')),
    search: perRequest(delta('hindsight_search_duration_seconds_sum')),
    embed: perRequest(delta('hindsight_embed_duration_seconds_sum')),
  };
  for (const op of ['vectorSearch', 'keywordSearch', 'getMany', 'similarities', 'recordAccess']) {
    result[op] = perRequest(delta('hindsight_store_query_duration_seconds_sum', (l) => l.operation === op));
  }
  return result;
}

async function readRss(pid: number): Promise<{ rssBytes: number; peakBytes: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rssBytes: kib('VmRSS'), peakBytes: kib('VmHWM') };
}

async function runEmbedderBench(args: string[]): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'scripts/bench/embedder.ts'), ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) process.stdout.write(`  (embedder bench exited with ${code})\n`);
}

const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
const yes = (met: boolean) => (met ? 'met' : 'NOT met');

process.exitCode = await main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 2;
});
