import { BuiltinEmbedder, type Embedder } from '@hindsight/embedding';
import { createLogger, type Logger } from '@hindsight/logger';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { type EmbedderConfig, loadEmbedderConfig } from '../src/config.ts';
import { createMetrics, type EmbedderMetrics } from '../src/metrics.ts';

export function testConfig(env: Record<string, string> = {}): EmbedderConfig {
  return loadEmbedderConfig({ LOG_LEVEL: 'silent', ...env });
}

/** The real app around a real embedder; tests talk to it with `inject` or over a listening port. */
export async function testApp(
  options: { env?: Record<string, string>; embedder?: Embedder; metrics?: EmbedderMetrics } = {},
): Promise<{ app: FastifyInstance; embedder: Embedder; metrics: EmbedderMetrics }> {
  const config = testConfig(options.env);
  const embedder = options.embedder ?? new BuiltinEmbedder({ dimension: config.EMBEDDINGS_DIM });
  const metrics = options.metrics ?? createMetrics();
  const app = await buildApp({ config, embedder, metrics, readinessCacheMs: 0 });
  return { app, embedder, metrics };
}

export function silentLogger(): Logger {
  return createLogger({ service: 'embedder-test', level: 'silent' });
}
