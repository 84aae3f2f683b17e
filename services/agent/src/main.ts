import { closeApp, enforceListenPolicy, exitOnStartupFailure, stopOnSignals } from '@hindsight/http';
import { createLogger } from '@hindsight/logger';
import { checkMemoryApiKey } from './adapters/memory-api-access.ts';
import { buildApp } from './app.ts';
import { loadAgentConfig } from './config.ts';
import { createDependencies } from './dependencies.ts';
import { AgentCallers } from './http/callers.ts';

/** Boots the agent: config → logger → caller keys → dependencies → app → listen → graceful shutdown. */
async function main(): Promise<void> {
  const config = loadAgentConfig();
  const log = createLogger({ service: 'agent', level: config.LOG_LEVEL });
  const callers = AgentCallers.fromConfig(config);
  enforceListenPolicy(log, {
    host: config.HOST,
    keysConfigured: !callers.open,
    keys: 'caller keys',
    keyVariables: 'AGENT_API_KEYS (or AGENT_USER_TOKENS)',
    openCallers: 'every caller may chat as any user',
  });

  const deps = createDependencies(config, log);
  try {
    await checkMemoryApiKey(
      deps.memoryApi,
      { url: config.MEMORY_API_URL, keySet: Boolean(config.MEMORY_API_KEY) },
      log,
    );
  } catch (error) {
    await deps.close();
    throw error;
  }
  const app = await buildApp({
    config,
    logger: log,
    conversation: deps.conversation,
    tools: deps.tools,
    callers,
  });
  await app.listen({ host: config.HOST, port: config.PORT });
  log.info(
    { memoryApi: config.MEMORY_API_URL, mode: deps.conversation.mode, model: config.LLM_MODEL ?? null },
    deps.conversation.mode === 'llm'
      ? 'agent answering with the configured model'
      : 'agent answering with the offline policy (no LLM_BASE_URL/LLM_MODEL)',
  );

  stopOnSignals(log, { timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, async ({ drainMs }) => {
    await closeApp(app, drainMs);
    await deps.close();
  });
}

main().catch(exitOnStartupFailure('agent'));
