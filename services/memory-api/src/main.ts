import { isLoopbackHost } from '@hindsight/config';
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
      log.fatal({ host: config.HOST }, 'refusing to listen on a non-loopback address without API keys: set API_KEYS (and ADMIN_API_KEY)');
      process.exit(78);
    }
    log.warn('no API keys configured: listening on loopback only, every caller is tenant "default"');
  }

  const deps = await openDependencies(config, log);
  const app = await buildApp({ config, logger: log, ...deps });
  await app.listen({ host: config.HOST, port: config.PORT });

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
  // The logger may not exist yet (bad config): report on stderr and fail.
  process.stderr.write(`memory-api failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
