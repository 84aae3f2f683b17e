import { createLogger } from '@hindsight/logger';
import { buildWorker } from './app.ts';
import { loadWorkerConfig } from './config.ts';

/** Boots the worker: config → logger → worker → health server → run → graceful shutdown. */
async function main(): Promise<void> {
  const config = loadWorkerConfig();
  const log = createLogger({ service: 'consolidation-worker', level: config.LOG_LEVEL });
  const consolidation = buildWorker(config, log);
  const address = await consolidation.health.listen({ host: config.HOST, port: config.PORT });
  if (config.SCHEDULES_ENABLED) await consolidation.schedule();
  // run() resolves only when the worker closes; failures surface through the 'error' listener.
  consolidation.worker.run().catch((error: unknown) => log.error({ err: error }, 'worker loop stopped'));
  log.info({ address }, 'consolidation worker running');

  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    try {
      await consolidation.health.close();
      await consolidation.close();
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
  process.stderr.write(`consolidation-worker failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
