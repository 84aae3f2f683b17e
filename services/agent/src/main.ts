import { createLogger } from '@hindsight/logger';
import { buildApp } from './app.ts';
import { loadAgentConfig } from './config.ts';
import { createDependencies } from './dependencies.ts';

/** Boots the agent: config → logger → dependencies → app → listen → graceful shutdown. */
async function main(): Promise<void> {
  const config = loadAgentConfig();
  const log = createLogger({ service: 'agent', level: config.LOG_LEVEL });
  const deps = createDependencies(config, log);
  const app = await buildApp({ config, logger: log, conversation: deps.conversation, tools: deps.tools });
  await app.listen({ host: config.HOST, port: config.PORT });
  log.info(
    { memoryApi: config.MEMORY_API_URL, mode: deps.conversation.mode, model: config.LLM_MODEL ?? null },
    deps.conversation.mode === 'llm'
      ? 'agent answering with the configured model'
      : 'agent answering with the offline policy (no LLM_BASE_URL/LLM_MODEL)',
  );

  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    try {
      await app.close();
      await deps.close();
    } catch (error) {
      log.error({ err: error }, 'error during shutdown');
    }
    log.flush();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`agent failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
