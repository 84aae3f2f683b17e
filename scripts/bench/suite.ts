import {
  deleteRedisKeys,
  freePort,
  type MemoryApiProcess,
  REPO_ROOT,
  type ServiceProcess,
  spawnMemoryApi,
  spawnService,
  uniquePrefix,
} from '@hindsight/testing';
import { launchSettings, planServices, type ServiceSpec } from '../launcher/topology.ts';

/**
 * Where the bench's memory-api gets its vectors: from the embedder service, a process of its own
 * (the default topology of `npm start` and compose), or from a provider in its own process.
 */
export type EmbedderPlacement = 'service' | 'in-process';

/** The processes a bench run measures. */
export interface BenchSuite {
  placement: EmbedderPlacement;
  memoryApi: MemoryApiProcess;
  /** The embedder service (absent when memory-api embeds in process). */
  embedder?: ServiceProcess;
  /** Which topology runs, in words, for the output. */
  description: string;
  /** Another memory-api with a store of its own on the same embedding (the embedder service when there is one). */
  spawnMemoryApi(): Promise<MemoryApiProcess>;
  stop(): Promise<void>;
}

export interface SuiteOptions {
  placement: EmbedderPlacement;
  /** EMBEDDINGS_* settings: the embedder service's when it runs, else memory-api's. */
  embeddingEnv: Record<string, string>;
  /** The long-term store memory-api is told about (VECTOR_STORE, DATABASE_URL …). */
  storeEnv: Record<string, string>;
  /** Anything else memory-api is told (NODE_OPTIONS for a profile, a setting under study). */
  memoryApiEnv?: Record<string, string>;
  /** memory-api's DATA_DIR, kept when it stops (a store seeded once and copied per run); a temp dir otherwise. */
  dataDir?: string;
}

/**
 * The services wired as the launcher wires them (scripts/launcher/topology.ts: the same variables,
 * the same entries), each on a free port with its own temp data, Redis prefix and embedding-cache
 * prefix, so a bench run measures what `npm start` runs. memory-api is spawned by
 * `spawnMemoryApi` (temp DATA_DIR, no rate limit, logs at warn), the embedder by `spawnService`.
 */
export async function startSuite(options: SuiteOptions): Promise<BenchSuite> {
  const embedderPort = await freePort();
  const redisUrl = process.env.REDIS_URL;
  const specs = planServices(
    launchSettings(REPO_ROOT, {
      EMBEDDER_PORT: String(embedderPort),
      ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
      ...options.storeEnv,
    }),
  );
  const spec = (name: string): ServiceSpec => {
    const found = specs.find((s) => s.name === name);
    if (!found) throw new Error(`the launcher's topology has no ${name}`);
    return found;
  };
  const memoryApiEnv = { ...spec('memory-api').env, ...options.storeEnv, ...options.memoryApiEnv };

  if (options.placement === 'in-process') {
    // The launcher's memory-api without EMBEDDER_URL: it embeds with the provider EMBEDDINGS_* name.
    const { EMBEDDER_URL: _remote, ...alone } = memoryApiEnv;
    const env = { ...alone, ...options.embeddingEnv };
    const memoryApi = await spawnMemoryApi({ env, ...(options.dataDir ? { dataDir: options.dataDir } : {}) });
    return {
      placement: options.placement,
      memoryApi,
      description: `memory-api alone, embedding in its own process (--in-process-embedder); memory-api pid ${memoryApi.pid}`,
      spawnMemoryApi: () => spawnMemoryApi({ env }),
      stop: () => memoryApi.stop(),
    };
  }

  const embedderSpec = spec('embedder');
  const cachePrefix = `${uniquePrefix('hindsight-bench-embedder')}:emb:`;
  const embedder = await spawnService({
    name: 'embedder',
    entry: embedderSpec.entry,
    cwd: embedderSpec.cwd,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      ...embedderSpec.env,
      ...options.embeddingEnv,
      EMBED_CACHE_REDIS_PREFIX: cachePrefix,
    },
    port: embedderSpec.port,
    readyPath: '/ready',
    readyTimeoutMs: 120_000,
    killAfterMs: 10_000,
    outputTailChars: 64 * 1024,
  });
  const stopEmbedder = async () => {
    await embedder.stop('SIGTERM');
    await deleteRedisKeys(cachePrefix, embedderSpec.env.REDIS_URL);
  };
  let memoryApi: MemoryApiProcess;
  try {
    memoryApi = await spawnMemoryApi({
      env: memoryApiEnv,
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    });
  } catch (error) {
    await stopEmbedder();
    throw error;
  }
  return {
    placement: options.placement,
    memoryApi,
    embedder,
    description: `memory-api (pid ${memoryApi.pid}) with EMBEDDER_URL=${embedder.url}, the embedder service (pid ${embedder.child.pid}), as npm start runs them`,
    spawnMemoryApi: () => spawnMemoryApi({ env: memoryApiEnv }),
    async stop() {
      try {
        await memoryApi.stop();
      } finally {
        await stopEmbedder();
      }
    },
  };
}
