import { exitOnStartupFailure, stopOnSignals } from '@hindsight/http';
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

  stopOnSignals(log, async () => {
    await app.close();
    await deps.close();
  });
}

main().catch(exitOnStartupFailure('agent'));
