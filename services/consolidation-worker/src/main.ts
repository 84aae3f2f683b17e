import { closeApp, exitOnStartupFailure, stopOnSignals } from '@hindsight/http';
import { createLogger } from '@hindsight/logger';
import { buildWorker } from './app.ts';
import { loadWorkerConfig } from './config.ts';
import { openWorkerDependencies } from './dependencies.ts';

/** Boots the worker: config → logger → dependencies → worker → health server → run → graceful shutdown. */
async function main(): Promise<void> {
  const config = loadWorkerConfig();
  const log = createLogger({ service: 'consolidation-worker', level: config.LOG_LEVEL });
  const consolidation = buildWorker(config, openWorkerDependencies(config, log), log);
  const address = await consolidation.health.listen({ host: config.HOST, port: config.PORT });
  if (config.SCHEDULES_ENABLED) await consolidation.schedule();
  // run() resolves only when the worker closes; failures surface through the 'error' listener.
  consolidation.worker.run().catch((error: unknown) => log.error({ err: error }, 'worker loop stopped'));
  log.info({ address }, 'consolidation worker running');

  stopOnSignals(log, { timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, async ({ drainMs }) => {
    await closeApp(consolidation.health, drainMs);
    await consolidation.close();
  });
}

main().catch(exitOnStartupFailure('consolidation-worker'));
