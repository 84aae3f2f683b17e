import { type Logger, loggerOptions } from '@hindsight/logger';
import { createMetricsRegistry, httpMetrics } from '@hindsight/metrics';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AgentConfig } from './config.ts';
import type { Conversation } from './conversation/conversation.ts';
import type { MemoryTools } from './conversation/ports.ts';
import { registerErrorHandler } from './http/errors.ts';
import { chatRoutes } from './routes/chat.ts';
import { healthRoutes } from './routes/health.ts';

export interface AgentAppDeps {
  config: Pick<AgentConfig, 'LOG_LEVEL' | 'BODY_LIMIT_BYTES'>;
  conversation: Conversation;
  tools: Pick<MemoryTools, 'check'>;
  logger?: Logger;
}

/** Builds the agent's HTTP API from its dependencies. Never listens: main.ts does. */
export async function buildApp(deps: AgentAppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    ...(deps.logger
      ? { loggerInstance: deps.logger as FastifyBaseLogger }
      : { logger: loggerOptions({ service: 'agent', level: deps.config.LOG_LEVEL }) }),
    bodyLimit: deps.config.BODY_LIMIT_BYTES,
    requestIdHeader: 'x-request-id',
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  // Request latency by route and GET /metrics, like every service.
  await app.register(httpMetrics, { registry: createMetricsRegistry({ service: 'agent' }) });
  await app.register(healthRoutes(() => deps.tools.check(), deps.conversation.mode));
  await app.register(chatRoutes(deps.conversation));
  return app;
}
