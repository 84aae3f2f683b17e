import type { Registry } from '@hindsight/metrics';
import Fastify, { type FastifyInstance } from 'fastify';

export interface HealthCheck {
  name: string;
  check(): Promise<void>;
}

/**
 * The worker's only HTTP surface: `/health` (the process answers), `/ready` (Redis,
 * the worker loop and memory-api answer), `/metrics` (Prometheus text).
 */
export function buildHealthServer(checks: readonly HealthCheck[], registry: Registry): FastifyInstance {
  const app = Fastify({ logger: false });
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/ready', async (_request, reply) => {
    const results = await Promise.all(
      checks.map(async (c) => {
        try {
          await withTimeout(c.check(), 2000);
          return [c.name, { ok: true }] as const;
        } catch (error) {
          return [c.name, { ok: false, error: error instanceof Error ? error.message : String(error) }] as const;
        }
      }),
    );
    const ready = results.every(([, r]) => r.ok);
    reply.status(ready ? 200 : 503);
    return { status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results) };
  });
  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
  return app;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
