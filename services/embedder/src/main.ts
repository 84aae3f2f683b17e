import { closeApp, exitOnStartupFailure, stopOnSignals } from '@hindsight/http';
import { createLogger } from '@hindsight/logger';
import { Redis } from 'ioredis';
import { createEmbedderFromConfig } from './adapters/embedder.ts';
import { buildApp } from './app.ts';
import { loadEmbedderConfig } from './config.ts';
import { createMetrics } from './metrics.ts';

/** Boots the embedder: config → logger → Redis cache? → embedder → app → listen → graceful shutdown. */
async function main(): Promise<void> {
  const config = loadEmbedderConfig();
  const log = createLogger({ service: 'embedder', level: config.LOG_LEVEL });
  const metrics = createMetrics({ processMetrics: true });

  // The Redis tier spares a model server's call. The built-in provider computes a query's vector in
  // ~0.1 ms of CPU, less than looking it up and storing it costs (two round trips to Redis and
  // ~0.15 ms more of this process's CPU per miss, scripts/bench/retrieve-focus.ts): it keeps the LRU only.
  const redisCache = Boolean(config.REDIS_URL) && config.EMBEDDINGS_PROVIDER !== 'builtin';
  // The cache is a producer-side client: fail fast rather than queue commands while Redis is away.
  const redis = redisCache
    ? new Redis(config.REDIS_URL as string, {
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        connectionName: 'embedder-cache',
      })
    : undefined;
  redis?.on('error', (error) => log.warn({ err: error }, 'Redis (embedding cache) error'));
  // Without an offline queue, commands sent before the connection is up fail: give it a moment so
  // the first requests are cached too. The cache is optional, so a Redis that is away only warns.
  if (redis && !(await connectedWithin(redis, 2_000))) {
    log.warn('Redis (embedding cache) not connected yet; embedding without the cache until it is');
  }

  const embedder = await createEmbedderFromConfig(config, { metrics, logger: log, redis });
  log.info(
    {
      model: embedder.model,
      dimension: embedder.dimension,
      provider: config.EMBEDDINGS_PROVIDER,
      redisCache: Boolean(redis),
    },
    'embedder ready',
  );
  const app = await buildApp({ config, embedder, logger: log, metrics });
  await app.listen({ host: config.HOST, port: config.PORT });

  stopOnSignals(log, { timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, async ({ drainMs }) => {
    await closeApp(app, drainMs);
    await embedder.close?.();
    await redis?.quit();
  });
}

function connectedWithin(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      resolve(false);
    }, ms);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once('ready', onReady);
  });
}

main().catch(exitOnStartupFailure('embedder'));
