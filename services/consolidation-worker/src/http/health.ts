import { healthRoutes, type ReadinessCheck, refuseWhileClosing } from '@hindsight/http';
import type { Registry } from '@hindsight/metrics';
import Fastify, { type FastifyInstance } from 'fastify';

/**
 * The worker's only HTTP surface: `/health` (the process answers), `/ready` (Redis,
 * the worker loop and memory-api answer), `/metrics` (Prometheus text).
 */
export function buildHealthServer(checks: readonly ReadinessCheck[], registry: Registry): FastifyInstance {
  // Requests reaching it while it closes get the error envelope, not Fastify's own 503 body.
  const app = Fastify({ logger: false, return503OnClosing: false });
  refuseWhileClosing(app, 'consolidation-worker');
  // Fastify loads registered plugins before it listens or injects; nothing here needs to wait for it.
  app.register(healthRoutes(checks, { timeoutMs: 2000 }));
  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
  return app;
}
