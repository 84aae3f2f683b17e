import type { FastifyPluginAsync } from 'fastify';
import './access.ts';
import { checkReadiness, type Readiness, type ReadinessCheck } from './readiness.ts';

export interface HealthRoutesOptions {
  /** Per-check deadline for `/ready`; absent when every check already bounds its own time. */
  timeoutMs?: number;
  /** Fields `/health` reports next to `status` (the agent says which mode it answers in). */
  health?: Readonly<Record<string, unknown>>;
  /** Shapes the `/ready` body for a service whose clients expect another layout; the report itself by default. */
  readyBody?: (readiness: Readiness) => unknown;
}

/**
 * `GET /health`: the process answers. `GET /ready`: every check answers too (200), or not (503).
 * The schemas carry documentation only, no response schema, so the plugin serves the same JSON
 * in a zod-typed app (memory-api, embedder, agent) and in a plain Fastify one (the worker).
 */
export function healthRoutes(checks: readonly ReadinessCheck[], options: HealthRoutesOptions = {}): FastifyPluginAsync {
  const presentReady = options.readyBody ?? ((readiness: Readiness) => readiness);
  return async (app) => {
    app.get(
      '/health',
      { config: { access: 'public' }, schema: { tags: ['operations'], summary: 'The process answers' } },
      async () => ({
        status: 'ok',
        ...options.health,
      }),
    );
    app.get(
      '/ready',
      {
        config: { access: 'public' },
        schema: { tags: ['operations'], summary: 'Every dependency answers (200) or not (503)' },
      },
      async (_request, reply) => {
        const readiness = await checkReadiness(checks, options.timeoutMs);
        reply.status(readiness.status === 'ready' ? 200 : 503);
        return presentReady(readiness);
      },
    );
  };
}
