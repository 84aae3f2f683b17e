import type { Logger } from '@hindsight/logger';

/**
 * The process's one shutdown routine: on the first SIGINT or SIGTERM, log, run `stop` (which
 * closes in reverse start order), flush the logger, and exit with the code a shell gives that
 * signal (130, 143) so supervisors see why the process ended.
 */
export function stopOnSignals(log: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    try {
      await stop();
    } catch (error) {
      log.error({ err: error }, 'error during shutdown');
    }
    log.flush();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

/**
 * For `main().catch(...)`: the logger may not exist yet (bad config), so report on stderr and exit
 * with the error's own `exitCode` (a refused bind: 78), else 1.
 */
export function exitOnStartupFailure(service: string): (error: unknown) => never {
  return (error) => {
    process.stderr.write(`${service} failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    const code = (error as { exitCode?: unknown } | undefined)?.exitCode;
    process.exit(typeof code === 'number' ? code : 1);
  };
}
