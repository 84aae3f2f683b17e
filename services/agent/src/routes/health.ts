import { healthRoutes } from '@hindsight/http';
import type { FastifyPluginAsync } from 'fastify';

/**
 * `/health`: the process answers, and in which mode (`llm` or `offline`). `/ready`: memory-api
 * answers over MCP too. The check runs under the memory-api client's own timeout, and the body
 * keeps the agent's documented layout `{status, memory_api: {ok, error?}}`.
 */
export function operationsRoutes(checkMemoryApi: () => Promise<void>, mode: string): FastifyPluginAsync {
  return healthRoutes([{ name: 'memory_api', check: checkMemoryApi }], {
    health: { mode },
    readyBody: (readiness) => ({ status: readiness.status, memory_api: readiness.checks.memory_api }),
  });
}
