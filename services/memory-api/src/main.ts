import { closeApp, enforceListenPolicy, exitOnStartupFailure, stopOnSignals } from '@hindsight/http';
import { createLogger } from '@hindsight/logger';
import { buildApp } from './app.ts';
import { loadMemoryApiConfig } from './config.ts';
import { openDependencies } from './dependencies.ts';
import { ApiKeys } from './http/api-keys.ts';

/** Boots memory-api: config → logger → dependencies → app → listen → graceful shutdown. */
async function main(): Promise<void> {
  const config = loadMemoryApiConfig();
  const log = createLogger({ service: 'memory-api', level: config.LOG_LEVEL });

  enforceListenPolicy(log, {
    host: config.HOST,
    keysConfigured: !ApiKeys.fromConfig(config).open,
    keys: 'API keys',
    keyVariables: 'API_KEYS (and ADMIN_API_KEY)',
    openCallers: 'every caller is tenant "default"',
  });

  const deps = await openDependencies(config, log);
  const app = await buildApp({ config, logger: log, ...deps });
  await app.listen({ host: config.HOST, port: config.PORT });

  stopOnSignals(log, { timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, async ({ drainMs }) => {
    await closeApp(app, drainMs);
    await deps.close();
  });
}

main().catch(exitOnStartupFailure('memory-api'));
