import type { Embedder } from '@hindsight/embedding';
import { createServiceApp } from '@hindsight/http';
import type { Logger } from '@hindsight/logger';
import { httpMetrics } from '@hindsight/metrics';
import type { FastifyInstance } from 'fastify';
import type { EmbedderConfig } from './config.ts';
import { createMetrics, type EmbedderMetrics } from './metrics.ts';
import { embedRoutes } from './routes/embed.ts';
import { operationsRoutes } from './routes/health.ts';
import { modelRoutes } from './routes/models.ts';

export interface AppDeps {
  config: EmbedderConfig;
  embedder: Embedder;
  /** A pino logger to share; when absent Fastify makes one at LOG_LEVEL. */
  logger?: Logger;
  /** Metrics the embedder's cache/batcher already report to; a fresh set when absent. */
  metrics?: EmbedderMetrics;
  /** How long a /ready result is reused (a remote provider is not probed on every poll). */
  readinessCacheMs?: number;
}

/** Builds the embedder service from its dependencies. Never listens: main.ts does, tests `inject`. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, embedder } = deps;
  const metrics = deps.metrics ?? createMetrics();
  const limits = { maxTexts: config.EMBED_MAX_TEXTS, maxTextChars: config.EMBED_MAX_TEXT_CHARS };
  const app = createServiceApp({
    service: 'embedder',
    level: config.LOG_LEVEL,
    logger: deps.logger,
    // Room for a full batch of maximal texts even when every character is JSON-escaped (\uXXXX).
    bodyLimit: limits.maxTexts * limits.maxTextChars * 6 + 64 * 1024,
    requestLogging: 'debug',
  });

  await app.register(httpMetrics, { registry: metrics.registry });

  const provider = config.EMBEDDINGS_PROVIDER;
  await app.register(embedRoutes(embedder, limits, metrics, provider));
  await app.register(modelRoutes(embedder, limits, provider));
  await app.register(
    operationsRoutes({
      embedder,
      readinessCacheMs: deps.readinessCacheMs ?? (provider === 'builtin' ? 0 : 5_000),
      readinessTimeoutMs: Math.min(config.EMBEDDINGS_TIMEOUT_MS, 5_000),
    }),
  );
  return app;
}
