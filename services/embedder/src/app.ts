import type { Embedder } from '@hindsight/embedding';
import { type Logger, loggerOptions } from '@hindsight/logger';
import { httpMetrics } from '@hindsight/metrics';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { EmbedderConfig } from './config.ts';
import { registerErrorHandler } from './http/errors.ts';
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
  const app = Fastify({
    ...(deps.logger
      ? { loggerInstance: deps.logger as FastifyBaseLogger }
      : { logger: loggerOptions({ service: 'embedder', level: config.LOG_LEVEL }) }),
    // Room for a full batch of maximal texts even when every character is JSON-escaped (\uXXXX).
    bodyLimit: limits.maxTexts * limits.maxTextChars * 6 + 64 * 1024,
    requestIdHeader: 'x-request-id',
    logController: new LogController({ disableRequestLogging: config.LOG_LEVEL !== 'debug' && config.LOG_LEVEL !== 'trace' }),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);

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
