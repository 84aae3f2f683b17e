import { createServiceApp } from '@hindsight/http';
import type { Logger } from '@hindsight/logger';
import { createMetricsRegistry, httpMetrics } from '@hindsight/metrics';
import type { FastifyInstance } from 'fastify';
import type { AgentConfig } from './config.ts';
import type { Conversation } from './conversation/conversation.ts';
import type { MemoryTools } from './conversation/ports.ts';
import { type AgentCallers, registerCallerAuth } from './http/callers.ts';
import { chatRoutes } from './routes/chat.ts';
import { operationsRoutes } from './routes/health.ts';

export interface AgentAppDeps {
  config: Pick<AgentConfig, 'LOG_LEVEL' | 'BODY_LIMIT_BYTES'>;
  conversation: Conversation;
  tools: Pick<MemoryTools, 'check'>;
  /** Who may call: `AGENT_API_KEYS` applications and `AGENT_USER_TOKENS` users, or anyone on loopback. */
  callers: AgentCallers;
  logger?: Logger;
}

/** Builds the agent's HTTP API from its dependencies. Never listens: main.ts does. */
export async function buildApp(deps: AgentAppDeps): Promise<FastifyInstance> {
  const app = createServiceApp({
    service: 'agent',
    level: deps.config.LOG_LEVEL,
    logger: deps.logger,
    bodyLimit: deps.config.BODY_LIMIT_BYTES,
    requestLogging: 'always',
  });
  registerCallerAuth(app, deps.callers);
  // Request latency by route and GET /metrics, like every service.
  await app.register(httpMetrics, { registry: createMetricsRegistry({ service: 'agent' }) });
  await app.register(operationsRoutes(() => deps.tools.check(), deps.conversation.mode));
  await app.register(chatRoutes(deps.conversation));
  return app;
}
