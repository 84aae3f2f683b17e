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

  // The cache is a producer-side client: fail fast rather than queue commands while Redis is away.
  const redis = config.REDIS_URL
    ? new Redis(config.REDIS_URL, {
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        connectionName: 'embedder-cache',
      })
    : undefined;
  redis?.on('error', (error) => log.warn({ err: error }, 'Redis (embedding cache) error'));

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

  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    try {
      await app.close();
      await embedder.close?.();
      await redis?.quit();
    } catch (error) {
      log.error({ err: error }, 'error during shutdown');
    }
    log.flush();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  // The logger may not exist yet (bad config): report on stderr and fail.
  process.stderr.write(`embedder failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
