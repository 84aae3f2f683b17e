import { isLoopbackHost } from '@hindsight/config';
import { exitOnStartupFailure, stopOnSignals } from '@hindsight/http';
import { createLogger } from '@hindsight/logger';
import { buildApp } from './app.ts';
import { loadMemoryApiConfig } from './config.ts';
import { openDependencies } from './dependencies.ts';
import { ApiKeys } from './http/api-keys.ts';

/** Boots memory-api: config → logger → dependencies → app → listen → graceful shutdown. */
async function main(): Promise<void> {
  const config = loadMemoryApiConfig();
  const log = createLogger({ service: 'memory-api', level: config.LOG_LEVEL });

  if (ApiKeys.fromConfig(config).open) {
    if (!isLoopbackHost(config.HOST)) {
      log.fatal(
        { host: config.HOST },
        'refusing to listen on a non-loopback address without API keys: set API_KEYS (and ADMIN_API_KEY)',
      );
      process.exit(78);
    }
    log.warn('no API keys configured: listening on loopback only, every caller is tenant "default"');
  }

  const deps = await openDependencies(config, log);
  const app = await buildApp({ config, logger: log, ...deps });
  await app.listen({ host: config.HOST, port: config.PORT });

  stopOnSignals(log, async () => {
    await app.close();
    await deps.close();
  });
}

main().catch(exitOnStartupFailure('memory-api'));
