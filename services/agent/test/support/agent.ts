import { createLogger } from '@hindsight/logger';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadAgentConfig } from '../../src/config.ts';
import { createDependencies } from '../../src/dependencies.ts';
import { AgentCallers } from '../../src/http/callers.ts';

/** The agent built in process from its real dependencies, listening on a free loopback port. */
export async function startAgent(
  env: Record<string, string>,
): Promise<{ app: FastifyInstance; url: string; close(): Promise<void> }> {
  const config = loadAgentConfig({ LOG_LEVEL: 'silent', ...env });
  const logger = createLogger({ service: 'agent-test', level: 'silent' });
  const deps = createDependencies(config, logger);
  const app = await buildApp({
    config,
    logger,
    conversation: deps.conversation,
    tools: deps.tools,
    callers: AgentCallers.fromConfig(config),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || !address) throw new Error('not listening');
  return {
    app,
    url: `http://127.0.0.1:${address.port}`,
    async close() {
      await app.close();
      await deps.close();
    },
  };
}
