import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { bearerKey, createServiceApp, healthRoutes, type ReadinessCheck, routeAccess } from '@hindsight/http';
import type { Logger } from '@hindsight/logger';
import { httpMetrics } from '@hindsight/metrics';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { MemoryApiConfig } from './config.ts';
import type { ApiKeys } from './http/api-keys.ts';
import { registerAuth } from './http/auth.ts';
import { registerErasureFence } from './http/erasure-fence.ts';
import type { MemoryService } from './memory/service.ts';
import type { MemoryApiMetrics } from './observability/metrics.ts';
import { challengeBrowsers, registerQueueDashboard } from './routes/admin-queues.ts';
import { consoleRoutes } from './routes/console.ts';
import { debugRoutes } from './routes/debug.ts';
import { jobRoutes } from './routes/jobs.ts';
import { maintenanceRoutes } from './routes/maintenance.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { memoryRoutes } from './routes/memories.ts';
import { quarantineRoutes } from './routes/quarantine.ts';
import { searchRoutes } from './routes/search.ts';
import { sessionRoutes } from './routes/sessions.ts';
import { shortFormRoutes } from './routes/short-form.ts';
import { transferRoutes } from './routes/transfer.ts';
import { userRoutes } from './routes/users.ts';
import { whoamiRoutes } from './routes/whoami.ts';
import type { Idempotency } from './routes/write-reply.ts';
import type { UserService } from './users/service.ts';
import type { HindsightDeps } from './working/port.ts';

export interface AppDeps {
  config: MemoryApiConfig;
  memory: MemoryService;
  keys: ApiKeys;
  idempotency: Idempotency;
  readiness: readonly ReadinessCheck[];
  /** A pino logger to share; when absent Fastify makes one at LOG_LEVEL. */
  logger?: Logger;
  /** The process's metrics (openDependencies makes them). */
  metrics: MemoryApiMetrics;
  /** Working memory, sessions and the hindsight queue; without them the session and user routes are absent. */
  hindsight?: HindsightDeps;
  /** The tenant's users (directory, profile, erasure); present with `hindsight`. */
  users?: UserService;
  /** The BullMQ queues the admin dashboard shows (`/admin/queues`). */
  dashboardQueues?: readonly Queue[];
}

/** Builds memory-api from its dependencies. Never listens: main.ts does, tests `inject`. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  // Per-request lines only when debugging: at info they would drown the memory events.
  const app = createServiceApp({
    service: 'memory-api',
    level: config.LOG_LEVEL,
    logger: deps.logger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    requestLogging: 'debug',
  });

  await app.register(swagger, {
    openapi: {
      info: {
        title: 'hindsight memory-api',
        description: 'Long-term and working memory for LLM agents. Send `Authorization: Bearer <API key>`.',
        version: '0.1.0',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  // The API's documentation needs a key like every route but /health and /ready (DESIGN §9).
  await app.register(async (scope) => {
    challengeBrowsers(scope, 'hindsight API');
    await scope.register(swaggerUi, { routePrefix: '/docs' });
  });

  if (config.RATE_LIMIT_PER_MINUTE > 0) {
    await app.register(rateLimit, {
      max: config.RATE_LIMIT_PER_MINUTE,
      timeWindow: 60_000,
      keyGenerator: (request) => bearerKey(request.headers) ?? request.ip,
      // Probes are never throttled: the route the router matched says so, not the raw URL.
      allowList: (request) => routeAccess(request) === 'public',
    });
  }
  registerAuth(app, deps.keys);
  // Before the routes (hooks apply to routes registered after them): job writes for erased users are refused.
  if (deps.users) registerErasureFence(app, deps.users);
  // Before the routes, so the latency hooks see every one of them.
  const { metrics } = deps;
  await app.register(httpMetrics, { registry: metrics.registry });

  // Public by their route config (access: 'public'), which also keeps them out of the rate limit.
  await app.register(healthRoutes(deps.readiness, { timeoutMs: 2000 }));
  await app.register(whoamiRoutes(deps.keys));
  await app.register(consoleRoutes());
  await app.register(shortFormRoutes(deps.memory, deps.idempotency));
  await app.register(memoryRoutes(deps.memory, deps.idempotency));
  await app.register(searchRoutes(deps.memory));
  await app.register(
    transferRoutes(deps.memory, {
      maxImportBytes: config.IMPORT_MAX_BYTES,
      onImported: (inserted) => {
        metrics.imports.inc(inserted);
        if (inserted > 0) metrics.activity.lastWriteAt = new Date().toISOString();
      },
    }),
  );
  await app.register(quarantineRoutes(deps.memory));
  await app.register(
    debugRoutes({
      memory: deps.memory,
      activity: metrics.activity,
      startedAt: new Date().toISOString(),
      ...(deps.hindsight ? { queue: deps.hindsight.queue } : {}),
    }),
  );
  await app.register(
    mcpRoutes({
      memory: deps.memory,
      allowedHosts: config.MCP_ALLOWED_HOSTS,
      ...(deps.hindsight ? { sessions: deps.hindsight.sessions } : {}),
    }),
  );
  if (deps.hindsight) {
    const { sessions, queue } = deps.hindsight;
    await app.register(sessionRoutes(sessions));
    await app.register(jobRoutes(queue));
    if (deps.users) await app.register(userRoutes(deps.users));
    await app.register(maintenanceRoutes(deps.memory, () => deps.keys.tenantNames()));
    await registerQueueDashboard(app, deps.dashboardQueues ?? []);
  }
  return app;
}
